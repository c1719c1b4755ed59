/**
 * The production dependencies are what the server's code loads: the container image keeps only them
 * (`npm prune --omit=dev`, Dockerfile), so a package the compiled server imports from the dev
 * dependencies would fail there at its first use, and a production dependency nothing loads is
 * weight every deployment installs (protobufjs was one until the twenty-fourth session).
 */
import { readdirSync, readFileSync } from 'node:fs';
import { builtinModules } from 'node:module';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import t from 'tap';
import { UWS_BUILDS } from '../../src/http/uwsBuilds.js';

const ROOT = fileURLToPath(new URL('../../../', import.meta.url));
const SERVER = join(ROOT, 'dist/src');
const pkg = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { dependencies: Record<string, string>; devDependencies: Record<string, string> };

/** Module specifiers of static imports and re-exports (at a line's start), `import()` and `require()` of a literal. */
const SPECIFIERS = [/^\s*(?:import|export)\b[^;'"]*?\bfrom\s*['"]([^'"]+)['"]/gm, /^\s*import\s*['"]([^'"]+)['"]/gm, /\bimport\(\s*['"]([^'"]+)['"]\s*\)/g, /\brequire\(\s*['"]([^'"]+)['"]\s*\)/g];

/** The package a bare specifier names (`@scope/name/sub` → `@scope/name`); null for relative paths and Node's own modules. */
function packageOf(specifier: string): string | null {
  if (specifier.startsWith('.') || specifier.startsWith('/') || specifier.startsWith('node:')) return null;
  const parts = specifier.split('/');
  const name = specifier.startsWith('@') ? parts.slice(0, 2).join('/') : parts[0]!;
  return builtinModules.includes(name) ? null : name;
}

/** Each package the compiled server loads, with a file that loads it. */
function packagesLoaded(): Map<string, string> {
  const loaded = new Map<string, string>();
  for (const file of readdirSync(SERVER, { recursive: true, encoding: 'utf8' }).filter((f) => f.endsWith('.js'))) {
    const text = readFileSync(join(SERVER, file), 'utf8');
    for (const re of SPECIFIERS) {
      for (const m of text.matchAll(re)) {
        const name = packageOf(m[1]!);
        if (name && !loaded.has(name)) loaded.set(name, `dist/src/${file}`);
      }
    }
  }
  return loaded;
}

t.test('the specifiers the scan reads', async (t) => {
  t.equal(packageOf('@duckdb/node-api'), '@duckdb/node-api');
  t.equal(packageOf('yaml/util'), 'yaml');
  t.equal(packageOf('node:fs'), null);
  t.equal(packageOf('fs/promises'), null);
  t.equal(packageOf('./reads.js'), null);
});

t.test('the server loads production dependencies only, and every one of them', async (t) => {
  const loaded = packagesLoaded();
  // The scan finds what is known to be there, through each form of import.
  t.ok(loaded.has('@duckdb/node-api') && loaded.has('typia') && loaded.has('prom-client') && loaded.has('yaml'), `the scan finds ${loaded.size} packages`);
  const notProduction = [...loaded].filter(([name]) => !(name in pkg.dependencies)).map(([name, file]) => `${name} (${file})`);
  t.same(notProduction, [], 'every package the server loads is a production dependency');
  // The uWebSockets.js builds are loaded by name from a table (http/uwsBuilds.ts), not by an import.
  const byName = new Set(UWS_BUILDS.map((b) => b.name));
  const unused = Object.keys(pkg.dependencies).filter((name) => !loaded.has(name) && !byName.has(name));
  t.same(unused, [], 'every production dependency is loaded by the server');
});
