/**
 * Runs test files beside a group file in this one process. The pure modules' tests (test/core,
 * test/unit) are ~120 small files whose own run is ~0.15 s each, while a process of tap's (Node,
 * its processinfo hook, which every module it loads goes through, and the tap module) costs ~1.5 s
 * of CPU: as one file each they took 107 s alone and 123 s of a CI run on 2 cores. So each directory
 * of them has an `all.tests.ts` that runs its `*.test.js` here (package.json's tap config excludes
 * them from the suite's own list), and test/coverage-map.mjs holds the directory's modules to what
 * its tests cover together. The short integration tests are grouped the same way, a directory's
 * `short.tests.ts` running the files test/helpers/shortTests.ts names. A file still runs alone as
 * before (`npx tap dist/test/core/csv.test.js`).
 */
import { existsSync, readdirSync } from 'node:fs';
import { basename, dirname, join, relative } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { SHORT_TESTS } from './shortTests.js';

/** The compiled tests' root (dist/test): this module is in its helpers directory. */
const TESTS_ROOT = dirname(dirname(fileURLToPath(import.meta.url)));

/**
 * The test files (compiled, absolute paths) a group file runs: for `short.tests.js` the files
 * shortTests.ts names for its directory, in that order; for `all.tests.js` every `*.test.js` of its
 * directory, in name order.
 */
export function groupMembers(groupFile: string): string[] {
  const dir = dirname(groupFile);
  if (basename(groupFile) === 'short.tests.js') {
    const names = SHORT_TESTS[relative(TESTS_ROOT, dir).replace(/\\/g, '/')] ?? [];
    return names.map((name) => join(dir, `${name}.test.js`));
  }
  return readdirSync(dir)
    .filter((f) => f.endsWith('.test.js'))
    .sort()
    .map((f) => join(dir, f));
}

/** Imports the tests of the group file `groupUrl` (its `import.meta.url`), one after another. */
export async function runTestsHere(groupUrl: string): Promise<void> {
  const tests = groupMembers(fileURLToPath(groupUrl));
  if (tests.length === 0) throw new Error(`no tests for ${fileURLToPath(groupUrl)}`);
  const missing = tests.filter((f) => !existsSync(f));
  if (missing.length > 0) throw new Error(`a group names tests that do not exist: ${missing.join(', ')}`);
  for (const test of tests) await import(pathToFileURL(test).href);
}
