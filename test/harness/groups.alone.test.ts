/**
 * The suite runs every test file exactly once: either as its own process (an `*.alone.test.js`, in
 * tap's list from package.json's config) or inside its folder's group file, `all.tests.js` or
 * `short.tests.js` (test/helpers/testsHere.ts). A file the config leaves out and no group runs would
 * silently never run; one in both would run twice.
 */
import { execFileSync } from 'node:child_process';
import { existsSync, readdirSync } from 'node:fs';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import t from 'tap';
import { groupMembers, hasSource, isGrouped } from '../helpers/testsHere.js';
import { unhooked } from '../helpers/unhooked.js';

const ROOT = fileURLToPath(new URL('../../../', import.meta.url));
const DIST_TESTS = join(ROOT, 'dist/test');

/** Every compiled test file the suite should run, relative to the repository (the fault tests have a run of their own). */
function testFiles(): string[] {
  return readdirSync(DIST_TESTS, { recursive: true, encoding: 'utf8' })
    .map((f) => f.replace(/\\/g, '/'))
    .filter((f) => /(^|\/)[^/]+\.tests?\.js$/.test(f) && !/(^|\/)(helpers|fixtures|faults|node_modules)\//.test(f))
    .map((f) => `dist/test/${f}`)
    .filter((f) => hasSource(join(ROOT, f)))
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
  t.ok(
    groups.some((f) => f.endsWith('/short.tests.js')) && groups.some((f) => f.endsWith('/all.tests.js')),
    'both kinds of group run',
  );
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
  t.same(
    tests.filter((f) => !runs.has(f)),
    [],
    'none is never run',
  );
  t.same(
    tests.filter((f) => (runs.get(f)?.length ?? 0) > 1).map((f) => `${f}: ${runs.get(f)!.join(', ')}`),
    [],
    'none runs twice',
  );
  t.same(
    [...runs.keys()].filter((f) => !tests.includes(f)),
    [],
    'every file run is a test file',
  );
});

t.test(
  'tap runs the group files and the `.alone` tests, nothing else; a folder of grouped tests has its group',
  async (t) => {
    const listed = tapList();
    t.same(
      listed.filter((f) => !f.endsWith('.tests.js') && !f.endsWith('.alone.test.js')),
      [],
      'no grouped test runs as its own process',
    );
    const files = testFiles();
    const folders = new Set(files.filter((f) => isGrouped(f)).map((f) => f.slice(0, f.lastIndexOf('/'))));
    const grouped = [...folders].filter((dir) =>
      ['all.tests.js', 'short.tests.js'].some((g) => existsSync(join(ROOT, dir, g))),
    );
    t.same(
      [...folders].filter((dir) => !grouped.includes(dir)),
      [],
      'every folder with a grouped test has a group file',
    );
    // A group of test/core or test/unit is what test/coverage-map.mjs reads a folder's coverage from, even of one file.
    const shortGroups = files.filter((f) => f.endsWith('/short.tests.js'));
    t.same(
      shortGroups.filter((g) => groupMembers(join(ROOT, g)).length < 2),
      [],
      'no short group of one (it would save nothing)',
    );
  },
);
