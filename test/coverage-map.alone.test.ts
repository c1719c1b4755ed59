/**
 * The coverage policy of test/coverage-map.mjs: which test is held to full coverage of which module.
 * A unit test under test/unit must be named after an existing module, or it would silently escape the
 * gate; and the modules under the gate must stay free of I/O.
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import t from 'tap';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const { default: coverageMap } = (await import(pathToFileURL(join(ROOT, 'test/coverage-map.mjs')).href)) as {
  default: (testFile: string) => string | string[] | null;
};

function files(dir: string, suffix: string): string[] {
  if (!existsSync(dir)) return [];
  return readdirSync(dir, { recursive: true, encoding: 'utf8' })
    .filter((f) => f.endsWith(suffix))
    .map((f) => relative(ROOT, join(dir, f)).replace(/\\/g, '/'))
    .sort();
}

const UNIT_TESTS = files(join(ROOT, 'test/unit'), '.test.ts');

t.test('the map', async (t) => {
  const inRoot = (f: string) => {
    const cwd = process.cwd();
    process.chdir(ROOT);
    try {
      return coverageMap(f);
    } finally {
      process.chdir(cwd);
    }
  };
  t.equal(
    inRoot('dist/test/unit/http/router.test.js'),
    'dist/src/http/router.js',
    'a unit test covers the module it is named after',
  );
  t.equal(inRoot('dist/test/unit/ingest/protoDecode.test.js'), 'dist/src/ingest/protoDecode.js');
  t.equal(inRoot('dist\\test\\unit\\config.test.js'), 'dist/src/config.js', 'Windows separators');
  t.equal(inRoot('dist/test/unit/http/nothing.test.js'), null, 'a unit test named after no module maps to nothing');
  t.equal(inRoot('dist/test/core/csv.test.js'), 'dist/src/core/csv.js', 'the core: a test named after a module');
  const dir = inRoot('dist/test/core/filter/cases.test.js');
  t.ok(
    Array.isArray(dir) && dir.includes('dist/src/core/filter/parser.js'),
    'the core: a test named after no module covers its directory',
  );
  for (const f of [
    'dist/test/http/auth.test.js',
    'dist/test/ingest/protoDecode.test.js',
    'dist/test/coverage-map.alone.test.js',
    'dist/test/reliability/wal.alone.test.js',
  ]) {
    t.equal(inRoot(f), null, `${f} is not counted`);
  }
  // A directory's group file covers what its tests cover, together, and nothing more.
  for (const dir of ['dist/test/unit/http', 'dist/test/core/scores', 'dist/test/core']) {
    const members = readdirSync(join(ROOT, dir)).filter((f) => f.endsWith('.test.js'));
    const union = [...new Set(members.flatMap((f) => [inRoot(`${dir}/${f}`) ?? []].flat()))].sort();
    t.ok(union.length > 0, `${dir}: its tests cover modules`);
    t.same(
      inRoot(`${dir}/all.tests.js`),
      union,
      `${dir}/all.tests.js covers the union of its ${members.length} tests' modules`,
    );
  }
  t.ok((inRoot('dist/test/unit/http/all.tests.js') as string[]).includes('dist/src/http/router.js'));
  t.notOk(
    (inRoot('dist/test/unit/http/all.tests.js') as string[]).includes('dist/src/http/server.js'),
    'not the I/O modules beside them',
  );
  t.equal(inRoot('dist/test/http/all.tests.js'), null, 'a group outside the unit tests is not counted');
  t.equal(inRoot('dist/test/http/short.tests.js'), null, 'nor a group of short integration tests');
});

t.test('every directory of unit tests has its group file, which is what the suite runs', async (t) => {
  const config = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')).tap as {
    include: string[];
    exclude: string[];
  };
  t.ok(config.include.includes('dist/test/**/*.tests.js'), 'the suite runs the group files');
  t.same(
    config.include.filter((p) => p.endsWith('.test.js') && !p.endsWith('.alone.test.js')),
    [],
    "and of the tests only `.alone` ones, not the groups' tests a second time",
  );
  const unitTests = [...files(join(ROOT, 'test/core'), '.test.ts'), ...UNIT_TESTS];
  t.same(
    unitTests.filter((f) => f.endsWith('.alone.test.ts')),
    [],
    "no unit test runs alone (its coverage is its group's)",
  );
  const dirs = new Set(unitTests.map((f) => f.slice(0, f.lastIndexOf('/'))));
  t.ok(dirs.size > 10, `${dirs.size} directories`);
  for (const dir of dirs)
    t.ok(
      existsSync(join(ROOT, dir, 'all.tests.ts')),
      `${dir}/all.tests.ts (else its tests would never run in npm test)`,
    );
});

t.test('every unit test is named after a module', async (t) => {
  t.ok(UNIT_TESTS.length > 0, `${UNIT_TESTS.length} unit tests`);
  for (const test of UNIT_TESTS) {
    const module = test.replace(/^test\/unit\//, 'src/').replace(/\.test\.ts$/, '.ts');
    t.ok(existsSync(join(ROOT, module)), `${test} → ${module}`);
  }
});

t.test('the modules under the gate do no I/O', async (t) => {
  const IO =
    /^(node:)?(fs|fs\/promises|net|http|https|http2|dgram|tls|child_process|worker_threads|cluster|readline)$|^@duckdb\/|^uWebSockets\.js$|^piscina$|^pino$/;
  for (const test of UNIT_TESTS) {
    const module = test.replace(/^test\/unit\//, 'src/').replace(/\.test\.ts$/, '.ts');
    if (!existsSync(join(ROOT, module))) continue;
    const source = readFileSync(join(ROOT, module), 'utf8');
    const io = [...source.matchAll(/^import\s+(?!type\s)[^;]*?from\s+'([^']+)'/gm)]
      .map((m) => m[1]!)
      .filter((spec) => IO.test(spec));
    t.same(io, [], `${module} imports no I/O module`);
  }
});
