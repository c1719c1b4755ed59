/**
 * native-bench/rss: the server's resident memory over a large store — at start (the high-water mark
 * while starting), idle, under reads, under sustained OTLP/protobuf ingest, and after. The issue's
 * budget quotes it at 10M spans, bounded by the configuration (`--duckdb-memory`, the ingest
 * backlog, the admission index). There is no reference to compare with: the figures are quoted.
 *
 *   npm run build && node dist/native-bench/rss.js [--spans 10000000] [--ingest-seconds 30]
 *
 * The store is filled as `search` fills it (synthetic spans written by SQL, one sorted file a day,
 * merged summaries). RSS is sampled from /proc every 250 ms, with the kernel's high-water mark
 * (`VmHWM`) for the peaks between samples.
 */
import { rmSync } from 'node:fs';
import { startServer } from '../test/helpers/server.js';
import { Bodies, SPANS as BODY_SPANS } from './bodies.js';
import { closedLoop, encodeRequest } from './loadClient.js';
import { syntheticTraceId } from './synthetic.js';
import { arg } from './args.js';
import { syntheticStore } from './syntheticStore.js';
import { memoryMiB } from './procThreads.js';

const SPANS = arg('spans', 10_000_000);
const INGEST_SECONDS = arg('ingest-seconds', 30);
const KEY = 'sk_service_' + 'Memory'.repeat(7);
const SERVER_ARGS = ['--workers', '2', '--duckdb-threads', '2', '--duckdb-memory', '4GiB'];

/** Samples RSS until the returned function is called; it answers the peak seen. */
function peakRss(pid: number): () => number {
  let peak = memoryMiB(pid, 'VmRSS');
  const timer = setInterval(() => (peak = Math.max(peak, memoryMiB(pid, 'VmRSS'))), 250);
  return () => {
    clearInterval(timer);
    return Math.max(peak, memoryMiB(pid, 'VmRSS'));
  };
}

const { dataDir, scope, now } = await syntheticStore('rss', KEY, SPANS);

const startedAt = performance.now();
const server = await startServer({ dataDir, env: { TRACELAKE_BOOTSTRAP_KEY: KEY }, args: SERVER_ARGS });
const pid = server.child.pid!;
const fmt = (n: number) => n.toLocaleString('en-US', { maximumFractionDigits: 0 });
console.log(`rss over ${fmt(SPANS)} spans (${SERVER_ARGS.join(' ')}), MiB`);
console.log(
  `  start: listening after ${((performance.now() - startedAt) / 1000).toFixed(1)} s, high-water mark ${fmt(memoryMiB(pid, 'VmHWM'))}`,
);
// Idle: the background (merges, checkpoints, the first compaction check) has had its first turns.
await new Promise((r) => setTimeout(r, 10_000));
console.log(`  idle after start: ${fmt(memoryMiB(pid, 'VmRSS'))}`);

const headers = { authorization: KEY, 'x-service-app-id': scope.appId };
const day = `start_date=${new Date(now - 86_400_000).toISOString()}&end_date=${new Date(now + 60_000).toISOString()}`;
const reads = [
  `/v1/traces?limit=50&${day}`,
  '/v1/traces?limit=50',
  `/v1/traces?limit=50&filter=${encodeURIComponent('status = ERROR and cost > 0.001 and model = gpt-4o')}`,
  `/v1/spans?limit=50&filter=${encodeURIComponent('model = gpt-4o and tokens > 1500 and status = OK')}`,
];
let stop = peakRss(pid);
for (let i = 0; i < 100; i++) {
  for (const path of [...reads, `/v1/traces/${syntheticTraceId((i * 7919) % Math.floor(SPANS / 8))}`]) {
    const res = await fetch(`${server.url}${path}`, { headers });
    await res.arrayBuffer();
    if (res.status !== 200) throw new Error(`${path}: ${res.status}`);
  }
}
console.log(`  under ${100 * (reads.length + 1)} reads (latest pages, searches, traces by id): peak ${fmt(stop())}`);

const bodies = new Bodies(8);
const target = {
  host: '127.0.0.1',
  port: server.port,
  path: '/v1/traces',
  headers: { ...headers, 'content-type': 'application/x-protobuf' },
};
let acked = 0;
let refused = 0;
stop = peakRss(pid);
const end = performance.now() + INGEST_SECONDS * 1000;
await closedLoop(
  '127.0.0.1',
  server.port,
  8,
  () => (performance.now() < end ? encodeRequest(target, bodies.next().body) : null),
  (a) => {
    // Back-pressure at the log's bound: sent again after Retry-After, as exporters do.
    if (a.status === 503) {
      refused++;
      return 1000 * Number(a.headers['retry-after'] ?? 1);
    }
    if (a.status !== 200) throw new Error(`ingest answered ${a.status}`);
    acked++;
  },
);
console.log(
  `  under ${INGEST_SECONDS} s of ingest (8 connections, ${fmt((acked * BODY_SPANS) / INGEST_SECONDS)} spans/s acknowledged, ${refused} × 503 at the log's bound): peak ${fmt(stop())}`,
);
stop = peakRss(pid);
await new Promise((r) => setTimeout(r, 30_000));
console.log(
  `  the 30 s after (merges, compaction): peak ${fmt(stop())}, then ${fmt(memoryMiB(pid, 'VmRSS'))}; high-water mark of the run ${fmt(memoryMiB(pid, 'VmHWM'))}`,
);
await server.stop('SIGTERM');
rmSync(dataDir, { recursive: true, force: true });
