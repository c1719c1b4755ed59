// Coverage policy: every pure module (no I/O: no files, sockets, threads, database or logger) is
// held to full coverage — 100% lines, branches, functions and statements — by unit tests alone: its
// own, and in the suite's run its directory's (the last rule below). Integration tests drive the I/O
// layers and are not counted, so they cannot hide gaps in the pure code.
//
// - The core: a test in test/core/<dir>/ covers the modules of src/core/<dir>/ (a test named after
//   one module covers that module alone).
// - Elsewhere: a test at test/unit/<path>.test.ts covers src/<path>.ts alone, e.g.
//   test/unit/http/router.test.ts → src/http/router.ts. A module is under the gate once it has its
//   test there, so each pure module outside src/core has one, named after it. test/coverage-map.alone.test.ts
//   checks that every unit test names an existing module (a misnamed one would escape the gate
//   unnoticed) and that the modules it names import no I/O.
// - Every other test (test/http, test/ingest, test/store, ...) maps to nothing.
// - The suite runs each directory of test/core and test/unit as one process, its `all.tests.js`
//   (test/helpers/testsHere.ts: a process of tap's costs ~1.5 s of CPU, 124 of them 123 s of a
//   CI run): that file covers what its tests cover, together, so a module of the directory may be
//   covered by a neighbour's test as well as its own. Still only unit tests count. Run alone, a test
//   file covers its own module(s) as above.
//
// Not under the gate, on purpose:
// - the I/O layers: app, main, cli, auth/secret, durableFile, log, promptModules (it loads modules), http/server, http/uws, ingest/coordinator,
//   ingestLog, logSync (and its thread), logReplay, logTriage, lanes and computeIngest, openapi/write (the build step that writes docs/openapi.json),
//   src/store and src/pool (the few store modules without I/O of their own are SQL text
//   and column lists that mean something only to DuckDB; test/store holds them to it; store/refusals,
//   which reads DuckDB's error messages, has its unit test and is under the gate);
// - the route handlers (http/routes/*, http/routeTable): they work through the store and compute
//   services, and integration tests drive them;
// - the contract modules other than strictQuery (contract/*.ts): their code is typia's generated
//   validators and schemas (contract/catalog.ts: the types the API reference names);
// - testHooks: it reads the environment once at load and kills the process at a crash point
//   (the fault tests drive it);
// - modules of types only (http/services, pool/tasks, ...): no code to run.
import { existsSync, readdirSync } from 'node:fs';
import { dirname, join } from 'node:path';

export default function coverageMap(testFile) {
  const file = testFile.replace(/\\/g, '/');
  // A directory's group file (test/helpers/testsHere.ts): what its tests cover, together.
  if (/^dist\/test\/(core|unit)\/(.+\/)?all\.tests\.js$/.test(file)) {
    const dir = dirname(file);
    const covered = readdirSync(dir)
      .filter((f) => f.endsWith('.test.js'))
      .flatMap((f) => {
        const own = moduleOf(`${dir}/${f}`);
        return own === null ? [] : own;
      });
    return covered.length > 0 ? [...new Set(covered)].sort() : null;
  }
  return moduleOf(file);
}

/** What one test file covers. */
function moduleOf(file) {
  const unit = /^dist\/test\/unit\/(.+)\.test\.js$/.exec(file);
  if (unit) {
    const own = `dist/src/${unit[1]}.js`;
    return existsSync(own) ? own : null;
  }
  const m = /^dist\/test\/core\/(.+)\.test\.js$/.exec(file);
  if (!m) return null;
  const own = `dist/src/core/${m[1]}.js`;
  if (existsSync(own)) return own;
  const dir = join('dist/src/core', dirname(m[1]));
  return existsSync(dir)
    ? readdirSync(dir)
        .filter((f) => f.endsWith('.js'))
        .map((f) => join(dir, f))
    : null;
}
