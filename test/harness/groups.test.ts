/**
 * The suite runs every test file exactly once: either as its own process (tap's list, from
 * package.json's config) or inside one group file — a directory's `all.tests.js` (every unit test
 * there) or `short.tests.js` (the short integration tests test/helpers/shortTests.ts names). A file
 * the config leaves out and no group runs would silently never run; one in both would run twice.
 */
import { execFileSync } from 'node:child_process';
import { existsSync, readdirSync } from 'node:fs';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import t from 'tap';
import { SHORT_TESTS } from '../helpers/shortTests.js';
import { groupMembers } from '../helpers/testsHere.js';
import { unhooked } from '../helpers/unhooked.js';

const ROOT = fileURLToPath(new URL('../../../', import.meta.url));
const DIST_TESTS = join(ROOT, 'dist/test');

/** Every compiled test file the suite should run, relative to the repository (the fault tests have a run of their own). */
function testFiles(): string[] {
  return readdirSync(DIST_TESTS, { recursive: true, encoding: 'utf8' })
    .map((f) => f.replace(/\\/g, '/'))
    .filter((f) => /(^|\/)[^/]+\.tests?\.js$/.test(f) && !/(^|\/)(helpers|fixtures|faults|node_modules)\//.test(f))
    .map((f) => `dist/test/${f}`)
    .sort();
}

/** What `tap list` says the suite runs, with the repository's config (no variable of the running tap). */
function tapList(): string[] {
  const env = Object.fromEntries(Object.entries(process.env).filter(([k]) => !k.startsWith('TAP')));
  const [command, args] = unhooked(process.execPath, [join(ROOT, 'node_modules/tap/dist/esm/run.mjs'), 'list'], env);
  return execFileSync(command, args, { cwd: ROOT, env, encoding: 'utf8' }).split('\n').filter(Boolean).sort();
}

t.test('every test file runs once: alone, or in one group', async (t) => {
  const files = testFiles();
  const listed = tapList();
  t.ok(listed.length > 40, `tap lists ${listed.length} files`);
  const groups = listed.filter((f) => f.endsWith('.tests.js'));
  t.ok(groups.some((f) => f.endsWith('/short.tests.js')) && groups.some((f) => f.endsWith('/all.tests.js')), 'both kinds of group run');
  const runs = new Map<string, string[]>();
  for (const f of listed) if (!f.endsWith('.tests.js')) runs.set(f, [...(runs.get(f) ?? []), 'alone']);
  for (const g of groups) {
    for (const member of groupMembers(join(ROOT, g))) {
      const f = relative(ROOT, member).replace(/\\/g, '/');
      runs.set(f, [...(runs.get(f) ?? []), g]);
    }
  }
  const tests = files.filter((f) => !f.endsWith('.tests.js'));
  t.ok(tests.length > 200, `${tests.length} test files`);
  t.same(tests.filter((f) => !runs.has(f)), [], 'none is never run');
  t.same(tests.filter((f) => (runs.get(f)?.length ?? 0) > 1).map((f) => `${f}: ${runs.get(f)!.join(', ')}`), [], 'none runs twice');
  t.same([...runs.keys()].filter((f) => !tests.includes(f)), [], 'every file run is a test file');
});

t.test('every short group is listed, and names files of its own directory', async (t) => {
  const entries = Object.entries(SHORT_TESTS);
  t.same(entries.filter(([dir]) => !existsSync(join(DIST_TESTS, dir, 'short.tests.js'))).map(([dir]) => dir), [], 'every listed directory has its group file');
  t.same(entries.filter(([, names]) => names.length < 2).map(([dir]) => dir), [], 'no group of one (it would save nothing)');
  t.same(entries.flatMap(([dir, names]) => names.map((n) => `${dir}/${n}.test.js`)).filter((f) => !existsSync(join(DIST_TESTS, f))), [], 'every file named exists');
  const groupFiles = testFiles().filter((f) => f.endsWith('/short.tests.js'));
  t.same(groupFiles.map((f) => f.slice('dist/test/'.length, -'/short.tests.js'.length)).sort(), Object.keys(SHORT_TESTS).sort(), 'and no group file lacks its list');
});
