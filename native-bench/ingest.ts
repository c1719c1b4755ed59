/**
 * native-bench/ingest: OTLP/protobuf ingestion over HTTP against the raw DuckDB append rate of the
 * same rows, measured in the same run.
 *
 *   npm run build && node dist/native-bench/ingest.js [--batches 400] [--concurrency 8]
 *
 * 1. gateway: a real server (child process, fresh data dir) receives batches of 512 spans from
 *    `concurrency` keep-alive clients; spans/s = spans acknowledged / wall time; ack latency p50/p99.
 * 2. raw: the same batches decoded and mapped in this process (not timed), then appended through
 *    DuckDB's appender in one transaction per batch into a fresh database with the same schema,
 *    on one thread (our single store thread's ceiling) and on two threads with a database each.
 */
import { rmSync } from 'node:fs';
import { Worker } from 'node:worker_threads';
import { mapExportRequest } from '../src/core/otlp/map.js';
import { decodeExportRequest } from '../src/ingest/otlpProto.js';
import { toRows } from '../src/ingest/rows.js';
import type { SpanRow } from '../src/store/spans/columns.js';
import { startServer, tempDir } from '../test/helpers/server.js';
import { encodedBatch } from './workload.js';

const arg = (name: string, fallback: number) => {
  const i = process.argv.indexOf(`--${name}`);
  return i > 0 ? Number(process.argv[i + 1]) : fallback;
};
const BATCHES = arg('batches', 400);
const CONCURRENCY = arg('concurrency', 8);
const SPANS_PER_BATCH = 512;

const bodies = Array.from({ length: BATCHES }, (_, i) => encodedBatch(SPANS_PER_BATCH, i + 1));
const avgBytes = bodies.reduce((n, b) => n + b.length, 0) / (BATCHES * SPANS_PER_BATCH);

async function gateway(): Promise<{ spansPerSec: number; p50: number; p99: number }> {
  const key = 'sk_service_' + 'Bench'.repeat(8);
  const server = await startServer({ env: { TRACELAKE_BOOTSTRAP_KEY: key }, args: ['--workers', '2', '--duckdb-threads', '2', '--duckdb-memory', '4GiB'] });
  const appId = server.bootstrap!.app_id as string;
  const headers = { authorization: key, 'x-service-app-id': appId, 'content-type': 'application/x-protobuf' };
  // Warm-up: JIT, connections, first DuckDB pages.
  for (let i = 0; i < 4; i++) await fetch(`${server.url}/v1/traces`, { method: 'POST', headers, body: encodedBatch(SPANS_PER_BATCH, 10_000 + i) });
  const latencies: number[] = [];
  let next = 0;
  const started = performance.now();
  await Promise.all(
    Array.from({ length: CONCURRENCY }, async () => {
      while (next < bodies.length) {
        const body = bodies[next++]!;
        const t0 = performance.now();
        const res = await fetch(`${server.url}/v1/traces`, { method: 'POST', headers, body });
        await res.arrayBuffer();
        if (res.status !== 200) throw new Error(`ingest answered ${res.status}`);
        latencies.push(performance.now() - t0);
      }
    }),
  );
  const seconds = (performance.now() - started) / 1000;
  await server.stop('SIGTERM');
  rmSync(server.dataDir, { recursive: true, force: true });
  latencies.sort((a, b) => a - b);
  return {
    spansPerSec: (BATCHES * SPANS_PER_BATCH) / seconds,
    p50: latencies[Math.floor(latencies.length * 0.5)]!,
    p99: latencies[Math.floor(latencies.length * 0.99)]!,
  };
}

function rowsOf(body: Uint8Array): SpanRow[] {
  const scope = { tenantId: '00000000-0000-4000-8000-000000000001', appId: '00000000-0000-4000-8000-000000000002', environmentId: '00000000-0000-4000-8000-000000000003' };
  return toRows(scope, mapExportRequest(decodeExportRequest(body)).spans).rows;
}

/**
 * Appends `batches` in `threads` worker threads, each into its own fresh database (the instance
 * cache is per thread, so two threads cannot share one). Opening is not timed: the workers start
 * appending together once all are ready, and the rate is all rows over the slowest worker's time.
 */
async function raw(batches: SpanRow[][], threads: number): Promise<number> {
  const share = Math.ceil(batches.length / threads);
  const workers = Array.from({ length: threads }, (_, i) => new Worker(new URL('./rawAppend.js', import.meta.url), {
    workerData: { batches: batches.slice(i * share, (i + 1) * share), dataDir: tempDir('tracelake-raw-') },
  }));
  await Promise.all(workers.map((w) => new Promise((resolve, reject) => (w.once('message', resolve), w.once('error', reject)))));
  const times = await Promise.all(workers.map((w) => new Promise<number>((resolve, reject) => {
    w.once('message', resolve);
    w.once('error', reject);
    w.postMessage('go');
  })));
  return (batches.length * SPANS_PER_BATCH) / (Math.max(...times) / 1000);
}

const g = await gateway();
const rows = bodies.map(rowsOf);
const raw1 = await raw(rows, 1);
const raw2 = await raw(rows, 2);
const fmt = (n: number) => Math.round(n).toLocaleString('en-US');
console.log(`ingest: ${BATCHES} batches × ${SPANS_PER_BATCH} spans, ~${Math.round(avgBytes)} bytes/span (protobuf), ${CONCURRENCY} clients`);
console.log(`  gateway over HTTP     ${fmt(g.spansPerSec)} spans/s   ack p50 ${g.p50.toFixed(1)} ms, p99 ${g.p99.toFixed(1)} ms`);
console.log(`  raw append, 1 thread  ${fmt(raw1)} spans/s`);
console.log(`  raw append, 2 threads ${fmt(raw2)} spans/s`);
console.log(`  ratio gateway / raw 1 thread  ${(g.spansPerSec / raw1).toFixed(2)}×`);
console.log(`  ratio gateway / raw 2 threads ${(g.spansPerSec / raw2).toFixed(2)}×   (target ≥ 0.55×, and ≥ 150k spans/s)`);
