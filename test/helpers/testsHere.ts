/**
 * Runs the test files of a folder in one process: its group file, `all.tests.ts` (the pure modules'
 * tests of test/core and test/unit) or `short.tests.ts` (the integration tests), runs every
 * `*.test.js` beside it, one after another, in name order. A process of tap's (Node, its
 * processinfo hook, which every module it loads goes through, and the tap module) costs ~1.5 s of
 * CPU before a file's own work, and the files of a folder share most of their modules.
 *
 * A file that must run as its own process is named `*.alone.test.ts`: the group leaves it out and
 * tap runs it (package.json's tap config takes the group files and the `.alone` ones, nothing else).
 * A file runs alone when it is long (tap's timeout is a process's, and two long processes balance
 * the two jobs) or when it changes the process for the files after it: instrumentations registers
 * OpenTelemetry's global context manager, reliability/http-edges sets the root's `jobs`, the
 * harness tests look at their own process, coverage-map changes directory. A folder without a
 * group file holds `.alone` tests only (test/harness/groups.alone.test.ts holds all of this to it).
 * test/coverage-map.mjs holds a test/core or test/unit folder's modules to what its tests cover
 * together. A file still runs alone as before (`npx tap dist/test/core/csv.test.js`).
 */
import { existsSync, readdirSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import t from 'tap';

/** How long a group process may take, a file of it: a loaded machine stretches a short file many times over. */
const GROUP_MS_PER_FILE = 60_000;

/** The compiled tests' root (dist/test): this module is in its helpers directory. */
const TESTS_ROOT = dirname(dirname(fileURLToPath(import.meta.url)));
const SOURCE_ROOT = join(TESTS_ROOT, '../../test');

/** Whether a compiled test file runs in its folder's group (not `*.alone.test.js`). */
export function isGrouped(file: string): boolean {
  return file.endsWith('.test.js') && !file.endsWith('.alone.test.js');
}

/** Whether a compiled test (absolute path) still has its source: a renamed test's old build is left in dist/ by tsc. */
export function hasSource(file: string): boolean {
  return existsSync(join(SOURCE_ROOT, relative(TESTS_ROOT, file)).replace(/\.js$/, '.ts'));
}

/** The test files (compiled, absolute paths) a group file runs: its folder's grouped tests, in name order. */
export function groupMembers(groupFile: string): string[] {
  const dir = dirname(groupFile);
  return readdirSync(dir)
    .filter(isGrouped)
    .sort()
    .filter((f) => hasSource(join(dir, f)))
    .map((f) => join(dir, f));
}

/** Imports the tests of the group file `groupUrl` (its `import.meta.url`), one after another. */
export async function runTestsHere(groupUrl: string): Promise<void> {
  const tests = groupMembers(fileURLToPath(groupUrl));
  if (tests.length === 0) throw new Error(`no tests for ${fileURLToPath(groupUrl)}`);
  // tap's timeout bounds a process that hangs; a group is many files, so its bound is theirs together.
  t.setTimeout(Math.max(t.options.timeout ?? 0, tests.length * GROUP_MS_PER_FILE));
  for (const test of tests) await import(pathToFileURL(test).href);
}
