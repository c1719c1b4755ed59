/**
 * The harness of the in-process read benches (`traceById`, `spanById`): a synthetic store, read by
 * this build's store functions and, with `--baseline`, by another build's over a copy of it, read by
 * read alternating, then medians and ratios (the reference is the baseline). `compactionLayout`
 * alternates and prints with it too, over stores of its own.
 */
import { copyFileSync, rmSync, symlinkSync } from 'node:fs';
import { join } from 'node:path';
import { Database } from '../src/store/db.js';
import { DATABASE_FILE, storeDirs } from '../src/store/layout.js';
import { migrate } from '../src/store/migrate.js';
import { tempDir } from '../test/helpers/server.js';
import { buildModule } from './args.js';
import { loadSynthetic, type SyntheticScope } from './synthetic.js';

/** One build's store modules the read benches call, loaded from its `dist` (this one's when `root` is empty). */
export async function storeModules(root: string) {
  const at = (path: string) => buildModule(root, path);
  return {
    db: (await import(at('src/store/db.js'))) as typeof import('../src/store/db.js'),
    reads: (await import(at('src/store/spans/reads.js'))) as typeof import('../src/store/spans/reads.js'),
    hints: (await import(at('src/store/spans/traceHints.js'))) as typeof import('../src/store/spans/traceHints.js'),
    segments: (await import(
      at('src/store/spans/segmentStore.js')
    )) as typeof import('../src/store/spans/segmentStore.js'),
  };
}

/** A store opened by one build: what it reads an id with, and its database to close. */
export interface OpenStore {
  db: { close(): void };
  read: (id: string) => Promise<unknown>;
}

/** One kind of read: the id of its `i`-th read, and whether that id is found. */
export type ReadCase = (i: number) => { id: string; found: boolean };

/**
 * `spans` synthetic spans in a temporary store, opened by this build (`open('', dir)`) and, with a
 * `baseline` checkout, a copy of its database over the very same segment files opened by that
 * build (each DuckDB holds its file's lock). Builds in the order baseline, this build.
 */
export async function syntheticStores(
  scope: SyntheticScope,
  spans: number,
  baseline: string,
  open: (root: string, dataDir: string) => Promise<OpenStore>,
): Promise<{ stores: [string, OpenStore][]; close(): void }> {
  const dataDir = tempDir('tracelake-read-ab-');
  const db = await Database.open({ dataDir, threads: 2, memoryLimit: '4GiB', queryTimeoutMs: 600_000 });
  await migrate(db);
  await loadSynthetic(db, dataDir, scope, spans, Date.now());
  await db.checkpoint();
  db.close();
  const stores: [string, OpenStore][] = [['this build', await open('', dataDir)]];
  let copyDir = '';
  if (baseline) {
    copyDir = tempDir('tracelake-read-ab-baseline-');
    copyFileSync(join(dataDir, DATABASE_FILE), join(copyDir, DATABASE_FILE));
    symlinkSync(storeDirs(dataDir).segments, storeDirs(copyDir).segments);
    stores.unshift(['baseline', await open(baseline, copyDir)]);
  }
  return {
    stores,
    close() {
      for (const [, store] of stores) store.db.close();
      rmSync(dataDir, { recursive: true, force: true });
      if (copyDir) rmSync(copyDir, { recursive: true, force: true });
    },
  };
}

/**
 * Milliseconds of each read, by `case|build`: a warm-up pass (files opened, statements planned),
 * then the timed one; the builds take turns at going first. An answer found or not against the
 * case's expectation stops the bench.
 */
export async function alternate(
  stores: [string, OpenStore][],
  cases: Record<string, ReadCase>,
  reads: number,
): Promise<Map<string, number[]>> {
  const times = new Map<string, number[]>();
  for (let pass = 0; pass < 2; pass++) {
    for (let i = 0; i < reads; i++) {
      for (const [name, make] of Object.entries(cases)) {
        const { id, found } = make(i);
        for (const [build, store] of i % 2 ? [...stores].reverse() : stores) {
          const started = performance.now();
          const answer = await store.read(id);
          const ms = performance.now() - started;
          if ((answer !== null) !== found)
            throw new Error(`${build}: ${name} ${id} answered ${answer === null ? 'nothing' : 'something'}`);
          if (pass === 1) times.set(`${name}|${build}`, [...(times.get(`${name}|${build}`) ?? []), ms]);
        }
      }
    }
  }
  return times;
}

/** One line a case: each build's median, and this build's ratio to the baseline's when there is one. */
export function printMedians(
  title: string,
  stores: [string, OpenStore][],
  cases: Record<string, ReadCase>,
  times: Map<string, number[]>,
): void {
  const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[xs.length >> 1]!;
  const of = (name: string, build: string) => median(times.get(`${name}|${build}`)!);
  console.log(title);
  for (const name of Object.keys(cases)) {
    const line = stores.map(([build]) => `${build} ${of(name, build).toFixed(2)}`).join(', ');
    const ratio = stores.length > 1 ? `; ratio ${(of(name, 'this build') / of(name, 'baseline')).toFixed(2)}×` : '';
    console.log(`  ${name.padEnd(26)} ${line}${ratio}`);
  }
}
