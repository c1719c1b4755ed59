/**
 * A gateway under OTLP load, as the ingest benchmarks (ingest.ts, soak.ts) drive and read it: its
 * ingest target, the sustained rate of a closed loop, the spans it serves, its segment files, and
 * the outside probe of ack → readable.
 */
import type { TestServer } from '../test/helpers/server.js';
import { type Bodies, SPANS } from './bodies.js';
import { closedLoop, Connection, encodeRequest, percentile, type Target } from './loadClient.js';
import { memoryMiB } from './procThreads.js';

/** A started server with the key the bench bootstrapped it with and the key's app. */
export interface Gateway {
  server: TestServer;
  key: string;
  appId: string;
}

/** `POST /v1/traces` as OTLP/protobuf exporters send it. */
export function ingestTarget(g: Gateway): Target {
  return {
    host: '127.0.0.1',
    port: g.server.port,
    path: '/v1/traces',
    headers: { authorization: g.key, 'x-service-app-id': g.appId, 'content-type': 'application/x-protobuf' },
  };
}

/** The bootstrap app (the bench chose the key; the log line names the app). */
export function gatewayOf(server: TestServer, key: string): Gateway {
  const line = server.logs.find((l) => l.msg === 'bootstrap');
  if (!line) throw new Error('the server did not bootstrap');
  return { server, key, appId: line.app_id as string };
}

export interface Sustained {
  /** Acknowledged spans over the run plus the time until all of them were readable. */
  spansPerSec: number;
  /** Spans made readable a second in the last three quarters of the run (see `sustained`). */
  steadyPerSec: number;
  /** Acknowledged spans over the run alone (the log absorbs what segments have not caught up with). */
  ackedPerSec: number;
  drainMs: number;
  p50: number;
  p99: number;
  rssMiB: number;
  /** Requests answered 503 at the log's bound (and sent again). */
  backPressured: number;
}

/**
 * 8 connections in a closed loop for `warmup` seconds, then for `seconds` measured. With
 * `readable`, the steady rate (spans made readable a second from a quarter of the run to its end)
 * and the wait until every acknowledged span is readable.
 */
export async function sustained(
  g: Gateway,
  bodies: Bodies,
  seconds: number,
  warmup: number,
  readable: boolean,
): Promise<Sustained> {
  const target = ingestTarget(g);
  const run = async (secs: number) => {
    const latencies: number[] = [];
    let acked = 0;
    let backPressured = 0;
    let rss = 0;
    const end = performance.now() + secs * 1000;
    const started = performance.now();
    const sampler = setInterval(() => (rss = Math.max(rss, memoryMiB(g.server.child.pid!, 'VmRSS'))), 500);
    // The steady rate: spans made readable a second between a quarter of the run and its end, while
    // the log's backlog keeps the workers busy. Acknowledgements run ahead of it (the log absorbs up
    // to its bound), so the acknowledged rate and even acknowledged / (run + drain) overstate what
    // the server keeps up with.
    const first = readable
      ? new Promise<{ at: number; spans: number }>((resolve) =>
          setTimeout(async () => resolve({ at: performance.now(), spans: await totalSpans(g) }), (secs * 1000) / 4),
        )
      : null;
    await closedLoop(
      '127.0.0.1',
      g.server.port,
      8,
      () => (performance.now() < end ? encodeRequest(target, bodies.next().body) : null),
      (a) => {
        // Back-pressure (the log's bound): sent again after Retry-After, as exporters do.
        if (a.status === 503 && a.headers['retry-after'] !== undefined) {
          backPressured++;
          return 1000 * Number(a.headers['retry-after']);
        }
        if (a.status !== 200) throw new Error(`ingest answered ${a.status}`);
        acked++;
        latencies.push(a.ms);
      },
    );
    clearInterval(sampler);
    const elapsed = (performance.now() - started) / 1000;
    const from = await first;
    const steadyPerSec = from ? ((await totalSpans(g)) - from.spans) / ((performance.now() - from.at) / 1000) : 0;
    // Sustained means kept up with: the run counts until every acknowledged span is readable.
    const drainStart = performance.now();
    ackedTotal += acked * SPANS;
    if (readable) while ((await totalSpans(g)) < ackedTotal) await new Promise((r) => setTimeout(r, 50));
    const drainMs = readable ? performance.now() - drainStart : 0;
    latencies.sort((a, b) => a - b);
    return {
      spansPerSec: (acked * SPANS) / (elapsed + drainMs / 1000),
      steadyPerSec,
      ackedPerSec: (acked * SPANS) / elapsed,
      drainMs,
      p50: percentile(latencies, 0.5),
      p99: percentile(latencies, 0.99),
      rssMiB: rss,
      backPressured,
    };
  };
  let ackedTotal = 0;
  await run(warmup);
  return run(seconds);
}

/** Spans the gateway serves (the default window of `GET /v1/spans`). */
export async function totalSpans(g: Gateway): Promise<number> {
  const r = await fetch(`${g.server.url}/v1/spans?limit=1`, {
    headers: { authorization: g.key, 'x-service-app-id': g.appId },
  });
  return ((await r.json()) as { pagination: { total: number } }).pagination.total;
}

export interface SegmentDetail {
  small_segments: number;
  compacted_segments: number;
  /** Compacted files whose rollups are not written yet. */
  rollups_pending: number;
  span_rows: number;
  segment_bytes: number;
}

/** The live segment files (`GET /v1/health/files`, the `segments` dependency's detail). */
export async function segmentDetail(server: TestServer): Promise<SegmentDetail> {
  const r = await fetch(`${server.url}/v1/health/files`);
  const report = (await r.json()) as { dependencies: { name: string; detail: SegmentDetail }[] };
  return report.dependencies.find((d) => d.name === 'segments')!.detail;
}

/** Waits until the store's background work has caught up: no small segment left, every compacted file rolled up. */
export async function settled(server: TestServer, pollMs: number): Promise<void> {
  for (;;) {
    const d = await segmentDetail(server);
    if (d.small_segments === 0 && d.rollups_pending === 0) return;
    await new Promise((r) => setTimeout(r, pollMs));
  }
}

/**
 * Milliseconds from `ackedAt` until trace `traceId` is readable: its spans are asked for every
 * `pollMs` until the answer is 200.
 */
export async function visibleAfterAck(g: Gateway, traceId: string, ackedAt: number, pollMs: number): Promise<number> {
  const c = await Connection.open('127.0.0.1', g.server.port);
  const get = Buffer.from(
    `GET /v1/traces/${traceId}/spans HTTP/1.1\r\nHost: x\r\nAuthorization: ${g.key}\r\nX-Service-App-Id: ${g.appId}\r\n\r\n`,
    'latin1',
  );
  try {
    for (;;) {
      const a = await c.send(get);
      if (a.status === 200) return performance.now() - ackedAt;
      await new Promise((r) => setTimeout(r, pollMs));
    }
  } finally {
    c.close();
  }
}
