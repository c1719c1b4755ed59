/**
 * native-bench/scale/reads: the reads of a large kept store (`scale/load --dir`), through a server of
 * this build over HTTP and then, with the server stopped, the same store functions on raw DuckDB over
 * the same files in this process — each read's median and p99, and the API's ratio to raw DuckDB.
 * The reads are the peers bench's eight (windows ending at the dataset's end) and a filtered page of
 * traces (model, cost and a metadata key, 24 h). A trace by id and a session rotate over `--sample`
 * traces drawn evenly across the whole period, so that each run opens another part of the store.
 *
 *   npm run build && node dist/native-bench/scale/reads.js --dir /path/of/the/store [--runs 50] [--slow-runs 5] [--warmup 3] [--sample 200]
 *        [--only traceById,sessionById,...]
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseFilter } from '../../src/core/filter/index.js';
import type { ReadScope } from '../../src/store/scope.js';
import { searchTraces } from '../../src/store/spans/search.js';
import { startServer } from '../../test/helpers/server.js';
import { settled } from '../gateway.js';
import { arg, textArg } from '../args.js';
import { processCpu } from '../procThreads.js';
import { QUERY_LABELS, QUERY_NAMES, timeQuery, windows, type QueryParams, type Timing } from '../peers/common.js';
import { batchCount, datasetBatch } from '../peers/dataset.js';
import { openRawDuckDb, tracelakeHttpQueries } from '../peers/tracelake.js';
import { SCALE_KEY, SCALE_SERVER_ARGS, type ScaleDataset } from './store.js';

const DIR = textArg('dir', '');
if (!DIR) throw new Error('--dir: the store scale/load kept');
const RUNS = arg('runs', 50);
const WARMUP = arg('warmup', 3);
const SAMPLE = arg('sample', 200);
const SLOW_RUNS = arg('slow-runs', 5);
/** Reads to time (names as in the table's code, comma-separated); all by default. */
const ONLY = textArg('only', '').split(',').filter(Boolean);
const dataset = JSON.parse(readFileSync(join(DIR, 'dataset.json'), 'utf8')) as ScaleDataset;
const scope = JSON.parse(readFileSync(join(DIR, 'scope.json'), 'utf8')) as ReadScope;
const dataDir = join(DIR, 'data');
const fmt = (n: number, digits = 1) =>
  n.toLocaleString('en-US', { minimumFractionDigits: digits, maximumFractionDigits: digits });
const log = (line: string) => console.log(`[${new Date().toISOString().slice(11, 19)}] ${line}`);

/** Traces (and their sessions) drawn evenly over the dataset: one from each of `SAMPLE` batches. */
function sampledParams(): QueryParams[] {
  const batches = batchCount(dataset);
  const params: QueryParams[] = [];
  for (let i = 0; i < SAMPLE; i++) {
    const batch = datasetBatch(dataset, Math.floor(((i + 0.5) * batches) / SAMPLE));
    const roots = batch.spans.filter((s) => s.parentId === null);
    const root = roots[(i * 7) % roots.length]!;
    params.push({ nowMs: dataset.endMs, traceId: root.traceId, sessionId: root.sessionId! });
  }
  return params;
}

const sample = sampledParams();
let turn = 0;
/** The next sampled trace and session, in turn; the windows always end at the dataset's end. */
const nextParams = (): QueryParams => sample[turn++ % sample.length]!;

const TRACE_FILTER = 'model = gpt-4o and cost > 0.005 and metadata.customer = customer-0';
type Read = { name: string; label: string; run: () => Promise<unknown> };

function readsOf(queries: ReturnType<typeof tracelakeHttpQueries>, filteredTraces: () => Promise<unknown>): Read[] {
  const all = [
    ...QUERY_NAMES.map((q) => ({ name: q, label: QUERY_LABELS[q], run: () => queries[q](nextParams()) })),
    { name: 'filteredTraces', label: 'traces: model, cost, metadata (24 h)', run: filteredTraces },
  ];
  return ONLY.length > 0 ? all.filter((r) => ONLY.includes(r.name)) : all;
}

async function timeAll(reads: Read[], store: string): Promise<Map<string, Timing>> {
  const timings = new Map<string, Timing>();
  for (const r of reads) {
    // A read of seconds gets `--slow-runs` runs: 50 of each would take the hour.
    const t0 = performance.now();
    await r.run();
    const slow = performance.now() - t0 > 1000;
    timings.set(r.name, await timeQuery(r.run, slow ? SLOW_RUNS : RUNS, slow ? 0 : WARMUP - 1));
    const t = timings.get(r.name)!;
    log(`${store}: ${r.label}: median ${fmt(t.median, 2)} ms, p99 ${fmt(t.p99, 2)} ms`);
  }
  return timings;
}

const day = windows({ nowMs: dataset.endMs, traceId: '', sessionId: '' }).day;
const isoUs = (us: number) => new Date(Math.floor(us / 1000)).toISOString();

log(
  `store ${DIR}: ${dataset.spans.toLocaleString('en-US')} spans over ${dataset.days} days ending ${new Date(dataset.endMs).toISOString()}; ${RUNS} runs after ${WARMUP} warm-up; ${SAMPLE} sampled traces and sessions`,
);
const started = performance.now();
const server = await startServer({
  dataDir,
  env: { TRACELAKE_BOOTSTRAP_KEY: SCALE_KEY },
  // A month's metrics over 100M spans may take longer than the default 30 s: timed, not refused.
  args: [...SCALE_SERVER_ARGS, '--query-timeout-ms', '600000'],
  startTimeoutMs: 600_000,
});
log(`server listening after ${fmt((performance.now() - started) / 1000)} s`);
// A store from before rollups rolls its compacted files up in the background first.
await settled(server, 1000);
log(`every compacted file rolled up after ${fmt((performance.now() - started) / 1000)} s`);
// A large store's start goes on after `listening` (the trace hints fill from every summary): the
// reads are timed once the server has been idle (under a tenth of a core) for three seconds.
for (let quiet = 0, cpu = processCpu(server.child.pid!); quiet < 3; ) {
  await new Promise((r) => setTimeout(r, 1000));
  const now = processCpu(server.child.pid!);
  quiet = now - cpu < 0.1 ? quiet + 1 : 0;
  cpu = now;
}
log(`server idle after ${fmt((performance.now() - started) / 1000)} s`);
const http = tracelakeHttpQueries(() => ({ url: server.url, key: SCALE_KEY, appId: scope.appId }));
const httpFiltered = async () => {
  const r = await fetch(
    `${server.url}/v1/traces?limit=50&start_date=${encodeURIComponent(isoUs(day.fromUs))}&end_date=${encodeURIComponent(isoUs(day.toUs))}&filter=${encodeURIComponent(TRACE_FILTER)}`,
    { headers: { authorization: SCALE_KEY, 'x-service-app-id': scope.appId } },
  );
  if (r.status !== 200) throw new Error(`filtered traces: ${r.status} ${await r.text()}`);
  return r.json();
};
const overHttp = await timeAll(readsOf(http, httpFiltered), 'HTTP');
await server.stop('SIGTERM');

const raw = await openRawDuckDb(dataDir, scope);
const rawFiltered = () =>
  searchTraces(
    raw.src,
    {
      scope,
      fromMs: day.fromUs / 1000,
      toMs: day.toUs / 1000,
      limit: 50,
      offset: 0,
      sortBy: 'start',
      sortOrder: 'desc',
      format: 'json',
    },
    parseFilter(TRACE_FILTER, 'traces'),
  );
const overRaw = await timeAll(readsOf(raw.queries, rawFiltered), 'raw DuckDB');
await raw.close();

console.log(
  `\n${dataset.spans.toLocaleString('en-US')} spans over ${dataset.days} days; median / p99 of ${RUNS} runs (${SLOW_RUNS} for a read over 1 s), ms; the API over raw DuckDB's median\n`,
);
console.log('| read | Tracelake (HTTP) | raw DuckDB (same files) | ratio |');
console.log('|---|---|---|---|');
for (const r of readsOf(http, httpFiltered)) {
  const a = overHttp.get(r.name)!;
  const b = overRaw.get(r.name)!;
  console.log(
    `| ${r.label} | ${fmt(a.median)} / ${fmt(a.p99)} | ${fmt(b.median)} / ${fmt(b.p99)} | ${(a.median / b.median).toFixed(2)}× |`,
  );
}
process.exit(0);
