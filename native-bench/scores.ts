/**
 * native-bench/scores: score aggregation through the API against the same SQL on DuckDB, and the
 * latency of a 1000-score batch insert, over a store filled with `--scores` scores (default 10M).
 *
 *   npm run build && node dist/native-bench/scores.js [--scores 10000000] [--runs 30] [--batches 30]
 *
 * 1. A real server (child process, fresh data dir, chosen bootstrap key) takes a few traces over
 *    OTLP, so scores have real resources; then it is stopped.
 * 2. The scores are written with SQL straight into that store (30 days, 20 names, 4 sources, in
 *    time order, as append-only scores arrive).
 * 3. The server is started again on the same data: `POST /v1/scores/batch` with 1000 scores,
 *    `--batches` times (p50, p99); then `GET /v1/scores/aggregations` over the whole 30 days,
 *    `--runs` times after a warm-up (median).
 * 4. The server is stopped and this process opens the same file and runs the store's own
 *    `aggregateScores` (the identical SQL and parameters) `--runs` times (median).
 * Target (the search budget, native-bench/RESULTS.md): API median ≤ 1.3 × raw median + 5 ms.
 */
import { rmSync } from 'node:fs';
import { listValue } from '@duckdb/node-api';
import { resolve } from 'node:path';
import { planAggregation, type AggregationQuery } from '../src/core/scores/selection.js';
import { Database } from '../src/store/db.js';
import { aggregateScores } from '../src/store/scores/scores.js';
import { exportRequest, hex } from '../test/helpers/otlp.js';
import { startServer, tempDir, type TestServer } from '../test/helpers/server.js';
import { arg } from './args.js';

const SCORES = arg('scores', 10_000_000);
const RUNS = arg('runs', 30);
const BATCHES = arg('batches', 30);
const TRACES = 200;
const DAY = 86_400_000;
const KEY = 'sk_service_' + 'Scores'.repeat(7);
const SERVER_ARGS = ['--workers', '2', '--duckdb-threads', '2', '--duckdb-memory', '4GiB'];

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
const pct = (xs: number[], p: number) =>
  [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor(xs.length * p))]!;

async function timed(fn: () => Promise<unknown>): Promise<number> {
  const t0 = performance.now();
  await fn();
  return performance.now() - t0;
}

const dataDir = tempDir('tracelake-scores-bench-');
const now = Date.now();
// The window covers every score: [now - 30 days, now + 1 minute).
const query: AggregationQuery = {
  start_date: new Date(now - 30 * DAY).toISOString(),
  end_date: new Date(now + 60_000).toISOString(),
};

// 1. A store with a tenant, an app and some traces.
let server: TestServer = await startServer({ dataDir, env: { TRACELAKE_BOOTSTRAP_KEY: KEY }, args: SERVER_ARGS });
const scope = {
  tenantId: server.bootstrap!.tenant_id as string,
  appId: server.bootstrap!.app_id as string,
  environmentId: server.bootstrap!.environment_id as string,
};
const traceIds = Array.from({ length: TRACES }, () => hex(16));
const ingest = await fetch(`${server.url}/v1/traces`, {
  method: 'POST',
  headers: { authorization: KEY, 'x-service-app-id': scope.appId, 'content-type': 'application/json' },
  body: JSON.stringify(exportRequest(traceIds.map((traceId) => ({ traceId })))),
});
if (ingest.status !== 200) throw new Error(`ingest answered ${ingest.status}`);
await server.stop('SIGTERM');

// 2. The scores, written with SQL in chunks, oldest first, as the store writes them (a trace score
//    keeps no resource_id of its own: storedResourceId in src/store/scores/scores.ts).
const options = { dataDir: resolve(dataDir), threads: 2, memoryLimit: '4GiB', queryTimeoutMs: 600_000 };
let db = await Database.open(options);
const fillStarted = performance.now();
const CHUNK = 1_000_000;
for (let from = 0; from < SCORES; from += CHUNK) {
  const to = Math.min(SCORES, from + CHUNK);
  await db.exec(
    `INSERT INTO scores
     SELECT gen_random_uuid(), $1::UUID, $2::UUID, $3::UUID,
            'metric_' || (i % 20), round(random() * 100, 3), 'NUMERIC', NULL, NULL,
            (['api', 'eval', 'annotation', 'sdk'])[(i % 4) + 1], NULL,
            NULL, 'trace', ($4::VARCHAR[])[(i % ${TRACES}) + 1], NULL, NULL,
            make_timestamp(($5::BIGINT + (i * $6::DOUBLE)::BIGINT) * 1000), 'bench'
       FROM range($7::BIGINT, $8::BIGINT) t(i)`,
    [
      scope.tenantId,
      scope.appId,
      scope.environmentId,
      listValue(traceIds),
      now - 30 * DAY,
      (30 * DAY - 120_000) / SCORES,
      from,
      to,
    ],
  );
}
await db.checkpoint();
const fillSeconds = (performance.now() - fillStarted) / 1000;
const [{ n: stored } = { n: 0 }] = await db.query<{ n: number }>('SELECT count(*)::DOUBLE AS n FROM scores');
db.close();

// 3. Through the API.
server = await startServer({ dataDir, args: SERVER_ARGS });
const headers = { authorization: `Bearer ${KEY}`, 'x-service-app-id': scope.appId, 'content-type': 'application/json' };
const batchLatencies: number[] = [];
for (let b = 0; b < BATCHES + 2; b++) {
  const scores = Array.from({ length: 1000 }, (_, i) => ({
    name: `metric_${i % 20}`,
    score: i / 10,
    resource_id: traceIds[(b * 7 + i) % TRACES],
    source: 'api',
    client_id: `b${b}-${i}`,
  }));
  const body = JSON.stringify({ scores });
  const ms = await timed(async () => {
    const r = await fetch(`${server.url}/v1/scores/batch`, { method: 'POST', headers, body });
    await r.arrayBuffer();
    if (r.status !== 201) throw new Error(`batch answered ${r.status}`);
  });
  if (b >= 2) batchLatencies.push(ms); // the first two warm up
}

const url = `${server.url}/v1/scores/aggregations?start_date=${encodeURIComponent(query.start_date!)}&end_date=${encodeURIComponent(query.end_date!)}`;
let apiAnswer: unknown;
const api: number[] = [];
for (let r = 0; r < RUNS + 3; r++) {
  const ms = await timed(async () => {
    const res = await fetch(url, { headers });
    apiAnswer = await res.json();
    if (res.status !== 200) throw new Error(`aggregations answered ${res.status}: ${JSON.stringify(apiAnswer)}`);
  });
  if (r >= 3) api.push(ms);
}
await server.stop('SIGTERM');

// 4. The same function on the same file, in this process.
db = await Database.open(options);
const plan = planAggregation(query, Date.now());
let rawAnswer: unknown;
const raw: number[] = [];
for (let r = 0; r < RUNS + 3; r++) {
  const ms = await timed(async () => {
    rawAnswer = await aggregateScores(db, scope, plan);
  });
  if (r >= 3) raw.push(ms);
}
db.close();
rmSync(dataDir, { recursive: true, force: true });

// Parallel sums may round differently from run to run: compare the averages within 1e-9.
const same = (a: unknown, b: unknown) =>
  JSON.stringify(a, (_k, v: unknown) => (typeof v === 'number' ? Number(v.toPrecision(9)) : v)) ===
  JSON.stringify(b, (_k, v: unknown) => (typeof v === 'number' ? Number(v.toPrecision(9)) : v));
if (!same((apiAnswer as { data: unknown }).data, rawAnswer)) {
  throw new Error(
    `the API and the raw query disagree:\n${JSON.stringify((apiAnswer as { data: unknown }).data)}\n${JSON.stringify(rawAnswer)}`,
  );
}
const apiMs = median(api);
const rawMs = median(raw);
const budget = 1.3 * rawMs + 5;
console.log(
  `scores: ${Math.round(stored).toLocaleString('en-US')} scores (filled by SQL in ${fillSeconds.toFixed(1)} s), 20 names, 30 days`,
);
console.log(`  aggregation, API median   ${apiMs.toFixed(1)} ms   (p99 ${pct(api, 0.99).toFixed(1)} ms, ${RUNS} runs)`);
console.log(`  aggregation, raw median   ${rawMs.toFixed(1)} ms   (same SQL, in process)`);
console.log(
  `  ratio API / raw           ${(apiMs / rawMs).toFixed(2)}×   budget 1.3 × raw + 5 ms = ${budget.toFixed(1)} ms: ${apiMs <= budget ? 'met' : 'MISSED'}`,
);
console.log(
  `  batch of 1000, p50        ${median(batchLatencies).toFixed(1)} ms   (p99 ${pct(batchLatencies, 0.99).toFixed(1)} ms, ${BATCHES} batches)`,
);
