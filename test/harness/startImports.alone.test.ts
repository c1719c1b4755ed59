/**
 * What each thread of the server loads before it can answer: the packages a start does not need are
 * imported at their first use (a server took 2.7 s of CPU to listen with them, 2.1 without). Read
 * from the built modules' static imports (what Node loads at start; `import()` is left out), so a
 * new static import of one of them from the wrong place fails here rather than in a profile.
 */
import { readFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import t from 'tap';
import { packageOf, specifiersIn, type Loading } from '../helpers/moduleImports.js';

const SRC = resolve(dirname(fileURLToPath(import.meta.url)), '../../src');

interface Reached {
  /** The first chain of modules that reaches the package. */
  chain: string[];
  /** How that chain's last module loads it: an ESM import, or `require()` of `createRequire`. */
  how: Exclude<Loading, 'dynamic'>;
}

/** Every package that `entry`'s static imports (and its modules' `require()` calls) reach. */
function packagesOf(entry: string): Map<string, Reached> {
  const seen = new Set<string>();
  const packages = new Map<string, Reached>();
  const walk = (file: string, chain: string[]): void => {
    if (seen.has(file)) return;
    seen.add(file);
    const here = [...chain, file.slice(SRC.length + 1)];
    for (const { spec, how } of specifiersIn(readFileSync(file, 'utf8'))) {
      // What loads at first use is not the start's.
      if (how === 'dynamic') continue;
      if (spec.startsWith('.')) walk(resolve(dirname(file), spec), here);
      else {
        const name = packageOf(spec);
        if (name && !packages.has(name)) packages.set(name, { chain: here, how });
      }
    }
  };
  walk(join(SRC, entry), []);
  return packages;
}

const THREADS: Record<string, { entry: string; notAtStart: string[] }> = {
  // The HTTP thread never touches DuckDB (the store thread owns the database), and the git
  // providers load their clients at their first request.
  main: {
    entry: 'main.js',
    notAtStart: [
      '@duckdb/node-api',
      '@duckdb/node-bindings',
      'apache-arrow',
      'isomorphic-git',
      '@octokit/rest',
      '@octokit/auth-app',
      '@secretlint/core',
    ],
  },
  // Arrow exports are rare: apache-arrow loads at the first.
  store: {
    entry: 'store/storeThread.js',
    notAtStart: ['apache-arrow', 'isomorphic-git', '@octokit/rest', '@secretlint/core'],
  },
  // Secret scrubbing is for agent sessions only: secretlint loads at the first scrub.
  compute: {
    entry: 'ingest/computeThread.js',
    notAtStart: [
      'apache-arrow',
      '@secretlint/core',
      '@secretlint/secretlint-rule-preset-recommend',
      'isomorphic-git',
      '@octokit/rest',
    ],
  },
};

for (const [thread, { entry, notAtStart }] of Object.entries(THREADS)) {
  t.test(`the ${thread} thread's start loads only what it needs`, async (t) => {
    const packages = packagesOf(entry);
    // The walk reads the imports it should: each thread does load these at start.
    t.ok(packages.has(thread === 'main' ? 'pino' : '@duckdb/node-api'), `the walk finds ${entry}'s own packages`);
    for (const name of notAtStart) t.notOk(packages.get(name), `${name} is not imported at start`);
    // DuckDB's API is CommonJS: an ESM import of it lexes its files for named exports, ~0.3 s of
    // CPU a thread at every start; store/duckdb.ts requires it.
    if (thread !== 'main')
      t.same(packages.get('@duckdb/node-api')?.how, 'require', 'DuckDB is loaded with require()', {
        chain: packages.get('@duckdb/node-api')?.chain,
      });
  });
}
