/**
 * native-bench/metrics: `GET /v1/metrics` through the gateway against the same statement run
 * directly on DuckDB over the same files, in the same run, over `--spans` spans (default 10M:
 * traces of 8 spans, 4 s apart, going back in time from now; synthetic.ts). Budget: the API within
 * 1.3× raw + 5 ms.
 *
 *   npm run build && node dist/native-bench/metrics.js [--spans 10000000] [--runs 9]
 *
 * Gateway timings are client-side HTTP round trips; raw timings call the store's own function (the
 * identical statement and parameters) on a DuckDB opened in this process on a copy of the database
 * file and the same segment files, one after the other in one loop. Both answers are compared
 * once, so the bench also shows they agree.
 */
import { copyFileSync, rmSync, symlinkSync } from 'node:fs';
import { join } from 'node:path';
import { isDeepStrictEqual } from 'node:util';
import { parseFilter } from '../src/core/filter/index.js';
import { planMetrics, type MetricsRequest } from '../src/core/metrics/plan.js';
import { resolveWindow } from '../src/core/window.js';
import { Database } from '../src/store/db.js';
import { DATABASE_FILE, storeDirs } from '../src/store/layout.js';
import { queryMetrics } from '../src/store/metrics/metrics.js';
import { LocalSegmentStore } from '../src/store/spans/segmentStore.js';
import { startServer, tempDir } from '../test/helpers/server.js';
import { arg } from './args.js';
import { syntheticStore } from './syntheticStore.js';

const SPANS = arg('spans', 10_000_000);
const RUNS = arg('runs', 9);
const KEY = 'sk_service_' + 'Metric'.repeat(7);
const DAY = 86_400_000;

const { dataDir, scope, dbOptions, now } = await syntheticStore('metrics', KEY, SPANS);

interface Case {
  name: string;
  query: MetricsRequest & { from?: string; to?: string; filter?: string };
}

// Fixed windows, so the gateway's and the raw answers can be compared.
const day = { from: new Date(now - DAY).toISOString(), to: new Date(now + 60_000).toISOString() };
const week = { from: new Date(now - 7 * DAY).toISOString(), to: day.to };
const cases: Case[] = [
  {
    name: 'spans: cost, tokens by model, hourly, 24 h',
    query: { view: 'spans', bucket: 'hour', measures: 'cost,total_tokens', group_by: 'model', ...day },
  },
  {
    name: 'spans: latency p50/p95/p99, LLM, hourly, 7 d',
    query: {
      view: 'spans',
      bucket: 'hour',
      measures: 'latency_p50,latency_p95,latency_p99',
      filter: 'type = GENERATION',
      ...week,
    },
  },
  {
    name: 'spans: every measure by model × kind, daily, 7 d',
    query: {
      view: 'spans',
      bucket: 'day',
      measures:
        'count,cost,input_tokens,output_tokens,total_tokens,latency_mean,latency_p50,latency_p90,latency_p95,latency_p99,error_rate',
      group_by: 'model,span_kind',
      ...week,
    },
  },
  {
    name: 'traces: count, errors, p95 by name, daily, 7 d',
    query: { view: 'traces', bucket: 'day', measures: 'count,error_rate,latency_p95', group_by: 'name', ...week },
  },
  {
    name: 'traces: cost by user (top 10), hourly, 24 h',
    query: { view: 'traces', bucket: 'hour', measures: 'cost', group_by: 'user_id', ...day },
  },
  {
    name: 'traces: metadata filter, count, minutely, 24 h',
    query: {
      view: 'traces',
      bucket: 'minute',
      measures: 'count,cost',
      filter: 'metadata.customer = customer-42',
      ...day,
    },
  },
];

const toQuery = (q: Case['query']) =>
  new URLSearchParams(Object.entries(q).map(([k, v]): [string, string] => [k, String(v)])).toString();
const sorted = (xs: number[]) => [...xs].sort((a, b) => a - b);
const median = (xs: number[]) => sorted(xs)[Math.floor(xs.length / 2)]!;
const p99 = (xs: number[]) => sorted(xs)[Math.min(xs.length - 1, Math.floor(xs.length * 0.99))]!;

// Raw DuckDB reads a copy of the database file (the server holds the original's lock) and the
// very same segment files (a link), so both run in one loop, alternating: load from the other
// work on this shared machine then weighs on both alike.
const rawDir = tempDir('tracelake-metrics-raw-');
copyFileSync(join(dataDir, DATABASE_FILE), join(rawDir, DATABASE_FILE));
symlinkSync(storeDirs(dataDir).segments, storeDirs(rawDir).segments);
const db = await Database.open({ ...dbOptions, dataDir: rawDir });
const src = { db, segments: new LocalSegmentStore(storeDirs(rawDir).segments) };
const readScope = { ...scope, environmentId: null };

const server = await startServer({
  dataDir,
  startTimeoutMs: 300_000,
  args: ['--duckdb-threads', '2', '--duckdb-memory', '4GiB', '--compaction-interval-ms', '0'],
});
const headers = { authorization: KEY, 'x-service-app-id': scope.appId };
const gateway: number[][] = [];
const raw: number[][] = [];
const agree: boolean[] = [];
for (const c of cases) {
  const g: number[] = [];
  const w: number[] = [];
  let answers: [unknown, unknown] = [null, null];
  // A warm-up pass (files opened, caches filled), then the timed pass.
  for (let pass = 0; pass < 2; pass++) {
    for (let i = 0; i < RUNS; i++) {
      let t0 = performance.now();
      const res = await fetch(`${server.url}/v1/metrics?${toQuery(c.query)}`, { headers });
      const body = (await res.json()) as { data: unknown };
      if (res.status !== 200) throw new Error(`${c.name}: ${res.status} ${JSON.stringify(body)}`);
      if (pass === 1) g.push(performance.now() - t0);
      t0 = performance.now();
      // What the route does before the statement (plan, filter) is pure and included here too.
      const plan = planMetrics(c.query, resolveWindow(c.query, Date.now()));
      const filter = c.query.filter ? parseFilter(c.query.filter, plan.view) : [];
      const answer = await queryMetrics(src, plan, readScope, filter);
      if (pass === 1) w.push(performance.now() - t0);
      if (pass === 1 && i === 0) answers = [body.data, JSON.parse(JSON.stringify(answer.rows))];
    }
  }
  gateway.push(g);
  raw.push(w);
  agree.push(isDeepStrictEqual(answers[0], answers[1]));
}
await server.stop('SIGTERM');
db.close();
rmSync(dataDir, { recursive: true, force: true });
rmSync(rawDir, { recursive: true, force: true });

console.log(
  `metrics over ${SPANS.toLocaleString('en-US')} spans (${Math.floor(SPANS / 8).toLocaleString('en-US')} traces), ${RUNS} runs (ms)`,
);
console.log(
  '  query                                              gateway p50    p99   raw p50   ratio   budget (1.3×raw+5)  same answer',
);
cases.forEach((c, i) => {
  const g = median(gateway[i]!);
  const w = median(raw[i]!);
  const budget = 1.3 * w + 5;
  console.log(
    `  ${c.name.padEnd(50)} ${g.toFixed(1).padStart(8)} ${p99(gateway[i]!).toFixed(1).padStart(7)} ${w.toFixed(1).padStart(9)} ${(g / w).toFixed(2).padStart(6)}×  ${budget.toFixed(1).padStart(7)} ${g <= budget ? 'ok  ' : 'OVER'}  ${agree[i] ? 'yes' : 'NO'}`,
  );
});
