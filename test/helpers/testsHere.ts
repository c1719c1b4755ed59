/**
 * Runs the unit tests beside a group file in this one process. The pure modules' tests (test/core,
 * test/unit) are ~120 small files whose own run is ~0.15 s each, while a process of tap's (Node,
 * its processinfo hook, which every module it loads goes through, and the tap module) costs ~1.5 s
 * of CPU: as one file each they took 107 s alone and 123 s of a CI run on 2 cores. So each directory
 * of them has an `all.tests.ts` that runs its `*.test.js` here (package.json's tap config excludes
 * them from the suite's own list), and test/coverage-map.mjs holds the directory's modules to what
 * its tests cover together. A file still runs alone as before (`npx tap dist/test/core/csv.test.js`).
 */
import { readdirSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

/** The test files (compiled) of the group file's directory, in name order. */
function testsBeside(groupFile: string): string[] {
  const dir = dirname(groupFile);
  return readdirSync(dir)
    .filter((f) => f.endsWith('.test.js'))
    .sort()
    .map((f) => join(dir, f));
}

/** Imports each test beside `groupUrl` (the group file's `import.meta.url`), one after another. */
export async function runTestsHere(groupUrl: string): Promise<void> {
  const tests = testsBeside(fileURLToPath(groupUrl));
  if (tests.length === 0) throw new Error(`no tests beside ${fileURLToPath(groupUrl)}`);
  for (const test of tests) await import(pathToFileURL(test).href);
}
