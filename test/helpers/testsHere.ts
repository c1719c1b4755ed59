/**
 * Runs test files beside a group file in this one process. The pure modules' tests (test/core,
 * test/unit) are ~120 small files whose own run is ~0.15 s each, while a process of tap's (Node,
 * its processinfo hook, which every module it loads goes through, and the tap module) costs ~1.5 s
 * of CPU: as one file each they took 107 s alone and 123 s of a CI run on 2 cores. So each directory
 * of them has an `all.tests.ts` that runs its `*.test.js` here (package.json's tap config excludes
 * them from the suite's own list), and test/coverage-map.mjs holds the directory's modules to what
 * its tests cover together. The short integration tests are grouped the same way, by name
 * (test/helpers/shortTests.ts). A file still runs alone as before (`npx tap dist/test/core/csv.test.js`).
 */
import { existsSync, readdirSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

/** The test files (compiled) of a directory, in name order. */
function testsIn(dir: string): string[] {
  return readdirSync(dir)
    .filter((f) => f.endsWith('.test.js'))
    .sort()
    .map((f) => join(dir, f));
}

/**
 * Imports the tests beside `groupUrl` (the group file's `import.meta.url`), one after another:
 * those named (`<name>.test.js`, in the order given), or every one there when none are named.
 */
export async function runTestsHere(groupUrl: string, names?: readonly string[]): Promise<void> {
  const dir = dirname(fileURLToPath(groupUrl));
  const tests = names ? names.map((name) => join(dir, `${name}.test.js`)) : testsIn(dir);
  if (tests.length === 0) throw new Error(`no tests beside ${fileURLToPath(groupUrl)}`);
  const missing = tests.filter((f) => !existsSync(f));
  if (missing.length > 0) throw new Error(`a group names tests that do not exist: ${missing.join(', ')}`);
  for (const test of tests) await import(pathToFileURL(test).href);
}
