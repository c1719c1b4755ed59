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
import { PART_COLUMNS, sessionKeySql, traceKeySql } from '../src/store/spans/traceParts.js';
import { tempDir } from '../test/helpers/server.js';
import { arg, buildModule, textArg } from './args.js';

const TRACES = arg('traces', 2_500_000);
const PARTS = arg('parts', 20_000);
const RUNS = arg('runs', 7);
const BASELINE = textArg('baseline', '');
const SCOPE = {
  tenantId: '00000000-0000-4000-8000-000000000001',
  appId: '00000000-0000-4000-8000-000000000002',
  environmentId: '00000000-0000-4000-8000-000000000003',
};
const DAY_MS = 86_400_000;
/** The store's newest trace starts now; the list's window is fixed to the day before it. */
const NOW_MS = Date.now();

/** Summary `i` of the day as a part row (column order of `PART_COLUMNS`), trace i's id MD5(i). */
function partRow(i: string, nowNs: bigint, gapNs: bigint, total: number): string {
  const start = `${nowNs} - (${total} - ${i}) * ${gapNs}`;
  return `'${SCOPE.tenantId}'::UUID, '${SCOPE.appId}'::UUID, '${SCOPE.environmentId}'::UUID, md5(${i}::VARCHAR),
          ${start}, ${start} + 50000000, 0, ${start}, 'agent', 'the question of trace ' || ${i}, 'its answer ' || ${i},
          0.01, 800, 8, 0, 1, ['bench'], 'session-' || (${i} // 4), 'user-' || (${i} % 100), NULL, '{"k":"v"}',
          NULL, NULL, NULL`;
}

async function build(dataDir: string): Promise<void> {
  const db = await Database.open({ dataDir, threads: 2, memoryLimit: '4GiB', queryTimeoutMs: 600_000 });
  await migrate(db);
  await db.exec(
    `INSERT INTO environments (id, tenant_id, app_id, name, kind) VALUES ($1, $2, $3, 'default', 'production')`,
    [SCOPE.environmentId, SCOPE.tenantId, SCOPE.appId],
  );
  const cols = PART_COLUMNS.join(', ');
  const total = TRACES + PARTS;
  const nowNs = BigInt(NOW_MS) * 1_000_000n;
  const gapNs = (BigInt(DAY_MS) * 1_000_000n) / BigInt(total + 1);
  const row = (i: string) => partRow(i, nowNs, gapNs, total);
  // In chunks, in order: the merge appends, so a store's merged rows lie in about time order.
  for (let from = 0; from < TRACES; from += 250_000)
    await db.exec(
      `INSERT INTO traces (${cols}, trace_key, session_key)
       SELECT *, ${traceKeySql('trace_id')}, ${sessionKeySql('session_id')}
         FROM (SELECT ${row('i')} FROM range(${from}, ${Math.min(TRACES, from + 250_000)}) r(i) ORDER BY i) x(${cols})`,
    );
  await db.exec(`INSERT INTO trace_parts (${cols}) SELECT ${row('i')} FROM range(${TRACES}, ${total}) r(i)`);
  await db.exec(
    `INSERT INTO trace_parts (${cols}) SELECT ${row('i')} FROM range(${TRACES - Math.floor(PARTS / 10)}, ${TRACES}) r(i)`,
  );
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
          const [row] = await tx.query<{ upto: string }>('SELECT max(seq)::VARCHAR AS upto FROM trace_parts');
          for (const statement of parts.MERGE_STATEMENTS(BigInt(row!.upto))) await tx.exec(statement);
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
