/**
 * native-bench/waitingParts: what trace summary parts waiting to be merged — always some, under
 * ingest — cost the latest page of traces and the merge, over the summaries of a busy day.
 *
 *   npm run build && node dist/native-bench/waitingParts.js [--traces 2500000] [--parts 20000] [--runs 7]
 *        [--baseline /path/to/built/checkout]
 *
 * The store: `--traces` merged summaries written by SQL in time order over the last 24 h (as an
 * hour of ingest at ~17,600 spans/s leaves them: every one in the list's window), then `--parts`
 * parts waiting — new traces, the newest — and a tenth as many late parts of the newest merged
 * traces. Timed: the latest 50 traces of 24 h with their total (`searchTraces`, what
 * `GET /v1/traces` runs), and the merge of the waiting parts (in a transaction rolled back, so
 * each run merges the same); then the parts are merged and the same list is timed again — the
 * reference, the read with nothing waiting. With `--baseline`, that build runs the same on a copy
 * of the store, run by run alternating with this one. Medians.
 */
import { copyFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { Database } from '../src/store/db.js';
import { DATABASE_FILE } from '../src/store/layout.js';
import { migrate } from '../src/store/migrate.js';
import { tempDir } from '../test/helpers/server.js';
import { arg, buildModule, textArg } from './args.js';
import { addEnvironment, addParts, appendSummaries, DAY_MS, SCOPE } from './summaryStore.js';

const TRACES = arg('traces', 2_500_000);
const PARTS = arg('parts', 20_000);
const RUNS = arg('runs', 7);
const BASELINE = textArg('baseline', '');
/** The store's newest trace starts now; the list's window is fixed to the day before it. */
const NOW_MS = Date.now();

async function build(dataDir: string): Promise<void> {
  const db = await Database.open({ dataDir, threads: 2, memoryLimit: '4GiB', queryTimeoutMs: 600_000 });
  await migrate(db);
  await addEnvironment(db);
  const total = TRACES + PARTS;
  await appendSummaries(db, 0, TRACES, total, NOW_MS);
  await addParts(db, TRACES, total, total, NOW_MS);
  await addParts(db, TRACES - Math.floor(PARTS / 10), TRACES, total, NOW_MS);
  await db.checkpoint();
  db.close();
}

/** One build's list and merge over a store of its own. */
async function open(root: string, dataDir: string) {
  const at = (path: string) => buildModule(root, path);
  const dbModule = (await import(at('src/store/db.js'))) as typeof import('../src/store/db.js');
  const search = (await import(at('src/store/spans/search.js'))) as typeof import('../src/store/spans/search.js');
  const parts = (await import(
    at('src/store/spans/traceParts.js')
  )) as typeof import('../src/store/spans/traceParts.js');
  const summaryMerge = (await import(
    at('src/store/spans/summaryMerge.js')
  )) as typeof import('../src/store/spans/summaryMerge.js');
  const db = await dbModule.Database.open({ dataDir, threads: 2, memoryLimit: '2GiB', queryTimeoutMs: 600_000 });
  const src = { db, segments: null as never };
  // The settled keys, as the store thread's background work keeps them (builds that have them).
  const settled = (await import(at('src/store/spans/settledKeys.js')).catch(() => null)) as
    | typeof import('../src/store/spans/settledKeys.js')
    | null;
  await settled?.advanceSettledKeys(db, BigInt(NOW_MS) * 1_000_000n);
  return {
    db,
    list: async () => {
      const answer = await search.searchTraces(
        src,
        {
          scope: { tenantId: SCOPE.tenantId, appId: SCOPE.appId, environmentId: null },
          fromMs: NOW_MS - DAY_MS,
          toMs: NOW_MS + 60_000,
          limit: 50,
          offset: 0,
          sortBy: 'start',
          sortOrder: 'desc',
          format: 'json',
        },
        [],
      );
      if (answer.kind !== 'json' || answer.data.length !== 50) throw new Error('the list is not a full page');
      return answer.total;
    },
    mergeRolledBack: async () => {
      const rollback = new Error('rolled back');
      await db
        .transaction(async (tx) => {
          const fold = (summaryMerge as Partial<typeof summaryMerge>).foldParts;
          if (fold) await fold(db, tx);
          else {
            // A build from before `foldParts`: its MERGE_STATEMENTS make the tables and drop them.
            const [row] = await tx.query<{ upto: string }>('SELECT max(seq)::VARCHAR AS upto FROM trace_parts');
            for (const statement of parts.MERGE_STATEMENTS(BigInt(row!.upto))) await tx.exec(statement);
          }
          throw rollback;
        })
        .catch((e: unknown) => {
          if (e !== rollback) throw e;
        });
    },
    mergeNow: () => summaryMerge.mergeParts(db),
  };
}

type Build = Awaited<ReturnType<typeof open>>;

const dataDir = tempDir('tracelake-waiting-parts-');
const t0 = performance.now();
await build(dataDir);
console.log(
  `${TRACES.toLocaleString('en-US')} merged summaries in 24 h, ${PARTS.toLocaleString('en-US')} parts of new traces and ${Math.floor(PARTS / 10).toLocaleString('en-US')} late ones waiting; written in ${((performance.now() - t0) / 1000).toFixed(1)} s`,
);
const builds: [string, Build][] = [['this build', await open('', dataDir)]];
let copyDir = '';
if (BASELINE) {
  copyDir = tempDir('tracelake-waiting-parts-baseline-');
  copyFileSync(join(dataDir, DATABASE_FILE), join(copyDir, DATABASE_FILE));
  builds.unshift(['baseline', await open(BASELINE, copyDir)]);
}

const times = new Map<string, number[]>();
async function timed(label: string, f: () => Promise<unknown>): Promise<unknown> {
  const start = performance.now();
  const out = await f();
  const list = times.get(label) ?? [];
  list.push(performance.now() - start);
  times.set(label, list);
  return out;
}
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[xs.length >> 1]!;

const totals = new Set<unknown>();
for (const [, b] of builds) await b.list(); // warm-up: files opened, statements planned
for (let run = 0; run < RUNS; run++)
  for (const [name, b] of run % 2 ? [...builds].reverse() : builds) {
    totals.add(await timed(`list, parts waiting|${name}`, b.list));
    await timed(`merge|${name}`, b.mergeRolledBack);
  }
for (const [, b] of builds) await b.mergeNow();
for (let run = 0; run < RUNS; run++)
  for (const [name, b] of run % 2 ? [...builds].reverse() : builds)
    totals.add(await timed(`list, none waiting|${name}`, b.list));
if (totals.size !== 1) throw new Error(`the totals differ: ${[...totals].join(', ')}`);

console.log(`median ms of ${RUNS} runs (total ${[...totals][0]} traces in the window)`);
const names = builds.map(([name]) => name);
console.log(['', ...names, ...(BASELINE ? ['this / baseline'] : [])].join('\t'));
for (const what of ['list, parts waiting', 'merge', 'list, none waiting']) {
  const m = names.map((name) => median(times.get(`${what}|${name}`)!));
  console.log([what, ...m.map((x) => x.toFixed(1)), ...(BASELINE ? [(m[1]! / m[0]!).toFixed(2)] : [])].join('\t'));
}
for (const name of names) {
  const waiting = median(times.get(`list, parts waiting|${name}`)!);
  const none = median(times.get(`list, none waiting|${name}`)!);
  console.log(`${name}: the list with parts waiting ${(waiting / none).toFixed(2)} × the list with none`);
}
for (const [, b] of builds) b.db.close();
rmSync(dataDir, { recursive: true, force: true });
if (copyDir) rmSync(copyDir, { recursive: true, force: true });
