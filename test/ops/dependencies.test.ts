/**
 * The production dependencies are what the server's code loads: the container image keeps only them
 * (`npm prune --omit=dev`, Dockerfile), so a package the compiled server imports from the dev
 * dependencies would fail there at its first use, and a production dependency nothing loads is
 * weight every deployment installs (protobufjs was one until the twenty-fourth session).
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import t from 'tap';
import { UWS_BUILD } from '../../src/http/uwsBuilds.js';
import { packageOf, specifiersIn } from '../helpers/moduleImports.js';

const ROOT = fileURLToPath(new URL('../../../', import.meta.url));
const SERVER = join(ROOT, 'dist/src');
const pkg = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as {
  dependencies: Record<string, string>;
  devDependencies: Record<string, string>;
};

/** Each package the compiled server loads, with a file that loads it. */
function packagesLoaded(): Map<string, string> {
  const loaded = new Map<string, string>();
  for (const file of readdirSync(SERVER, { recursive: true, encoding: 'utf8' }).filter((f) => f.endsWith('.js'))) {
    for (const { spec } of specifiersIn(readFileSync(join(SERVER, file), 'utf8'))) {
      const name = packageOf(spec);
      if (name && !loaded.has(name)) loaded.set(name, `dist/src/${file}`);
    }
  }
  return loaded;
}

t.test('the specifiers the scan reads, and the packages they name', async (t) => {
  const text = [
    "import { a } from '@duckdb/node-api';",
    'export { b } from "yaml/util";',
    "import './side.js';",
    'const fs = require("node:fs");',
    "const late = await import('prom-client');",
    "  const s = 'not an import from \\'x\\'';",
  ].join('\n');
  t.same(
    specifiersIn(text).map(({ spec, how }) => [spec, how, packageOf(spec)]),
    [
      ['@duckdb/node-api', 'import', '@duckdb/node-api'],
      ['yaml/util', 'import', 'yaml'],
      ['./side.js', 'import', null],
      ['node:fs', 'require', null],
      ['prom-client', 'dynamic', 'prom-client'],
    ],
  );
  t.equal(packageOf('fs/promises'), null, "Node's own modules without the prefix");
});

t.test('the server loads production dependencies only, and every one of them', async (t) => {
  const loaded = packagesLoaded();
  // The scan finds what is known to be there, through each form of import.
  t.ok(
    loaded.has('@duckdb/node-api') && loaded.has('typia') && loaded.has('prom-client') && loaded.has('yaml'),
    `the scan finds ${loaded.size} packages`,
  );
  const notProduction = [...loaded]
    .filter(([name]) => !(name in pkg.dependencies))
    .map(([name, file]) => `${name} (${file})`);
  t.same(notProduction, [], 'every package the server loads is a production dependency');
  // The uWebSockets.js build is loaded by its binary's path (http/uwsBuilds.ts), not by an import.
  const unused = Object.keys(pkg.dependencies).filter((name) => !loaded.has(name) && name !== UWS_BUILD.name);
  t.same(unused, [], 'every production dependency is loaded by the server');
});
