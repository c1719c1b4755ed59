/**
 * native-bench/grpc: the same OTLP/protobuf bodies (512-span batches of realistic agent traces,
 * bodies.ts) sent to one server over OTLP/gRPC and over OTLP/HTTP, in alternating rounds of the same
 * length, so a drift of the machine falls on both: acknowledged spans a second each, ack p50/p99 and
 * the gRPC/HTTP ratio. Between rounds the server writes what was acknowledged (not timed).
 *
 *   npm run build && node dist/native-bench/grpc.js [--seconds 10] [--rounds 4] [--connections 8]
 *
 * HTTP goes through the lean keep-alive client (loadClient.ts), gRPC through grpc-js's client, one
 * channel per connection, each sending its next call when the last is answered (closed loop). A 503
 * or UNAVAILABLE is sent again after the answer's delay, as an exporter would.
 */
import { rmSync } from 'node:fs';
import { Client, credentials, Metadata, status } from '@grpc/grpc-js';
import { startServer } from '../test/helpers/server.js';
import { arg } from './args.js';
import { Bodies, SPANS } from './bodies.js';
import { closedLoop, encodeRequest, percentile } from './loadClient.js';

const SECONDS = arg('seconds', 10);
const ROUNDS = arg('rounds', 4);
const CONNECTIONS = arg('connections', 8);
const KEY = 'sk_service_' + 'Bench'.repeat(8);
const EXPORT = '/opentelemetry.proto.collector.trace.v1.TraceService/Export';
const passThrough = (bytes: Buffer) => bytes;

interface Round {
  spansPerSec: number;
  latencies: number[];
  retried: number;
}

const server = await startServer({
  env: { TRACELAKE_BOOTSTRAP_KEY: KEY },
  args: ['--grpc-port', '0', '--workers', '2', '--duckdb-threads', '2', '--duckdb-memory', '4GiB'],
});
const appId = server.bootstrap!.app_id as string;
const bodies = new Bodies(8);
/** A trace of the last body sent: once it is readable, what the round acknowledged is written. */
let lastTrace = '';
const nextBody = () => {
  const { body, traceId } = bodies.next();
  lastTrace = traceId;
  return body;
};

/**
 * Waits, outside the measured time, until the round's last trace is readable, so each round starts
 * with the log's backlog written rather than inheriting the last round's.
 */
async function settle(): Promise<void> {
  const headers = { authorization: `Bearer ${KEY}`, 'x-service-app-id': appId };
  while ((await fetch(`${server.url}/v1/traces/${lastTrace}/spans`, { headers })).status !== 200)
    await new Promise((done) => setTimeout(done, 100));
}

/** A closed loop over OTLP/HTTP for `SECONDS`. */
async function overHttp(): Promise<Round> {
  const target = {
    host: '127.0.0.1',
    port: server.port,
    path: '/v1/traces',
    headers: { authorization: KEY, 'x-service-app-id': appId, 'content-type': 'application/x-protobuf' },
  };
  const until = performance.now() + SECONDS * 1000;
  const latencies: number[] = [];
  let retried = 0;
  const started = performance.now();
  await closedLoop(
    '127.0.0.1',
    server.port,
    CONNECTIONS,
    () => (performance.now() < until ? encodeRequest(target, nextBody()) : null),
    (a) => {
      if (a.status === 503) {
        retried++;
        return Number(a.headers['retry-after'] ?? 1) * 1000;
      }
      if (a.status !== 200) throw new Error(`HTTP ${a.status}`);
      latencies.push(a.ms);
      return undefined;
    },
  );
  return { spansPerSec: (latencies.length * SPANS) / ((performance.now() - started) / 1000), latencies, retried };
}

/** One Export call; the error's code when refused. */
function exportCall(client: Client, metadata: Metadata, body: Buffer): Promise<number> {
  return new Promise((resolve) =>
    client.makeUnaryRequest(EXPORT, passThrough, passThrough, body, metadata, (error) =>
      resolve(error ? error.code : status.OK),
    ),
  );
}

/** The same closed loop over OTLP/gRPC, one channel per connection. */
async function overGrpc(): Promise<Round> {
  const metadata = new Metadata();
  metadata.set('authorization', KEY);
  metadata.set('x-service-app-id', appId);
  const until = performance.now() + SECONDS * 1000;
  const latencies: number[] = [];
  let retried = 0;
  const started = performance.now();
  await Promise.all(
    Array.from({ length: CONNECTIONS }, async () => {
      const client = new Client(`127.0.0.1:${server.grpcPort}`, credentials.createInsecure(), {
        'grpc.use_local_subchannel_pool': 1,
      });
      while (performance.now() < until) {
        const body = nextBody();
        for (;;) {
          const sent = performance.now();
          const code = await exportCall(client, metadata, body);
          if (code === status.OK) {
            latencies.push(performance.now() - sent);
            break;
          }
          if (code !== status.UNAVAILABLE) throw new Error(`gRPC status ${code}`);
          retried++;
          await new Promise((done) => setTimeout(done, 1000));
        }
      }
      client.close();
    }),
  );
  return { spansPerSec: (latencies.length * SPANS) / ((performance.now() - started) / 1000), latencies, retried };
}

const results = { http: [] as Round[], grpc: [] as Round[] };
try {
  for (let round = 0; round < ROUNDS; round++) {
    const order = round % 2 ? (['grpc', 'http'] as const) : (['http', 'grpc'] as const);
    for (const path of order) {
      const r = path === 'http' ? await overHttp() : await overGrpc();
      results[path].push(r);
      await settle();
      console.log(`round ${round + 1} ${path}: ${Math.round(r.spansPerSec)} spans/s (${r.retried} retried)`);
    }
  }
} finally {
  await server.stop('SIGTERM');
  rmSync(server.dataDir, { recursive: true, force: true });
}

const summary = (rounds: Round[]) => {
  const latencies = rounds.flatMap((r) => r.latencies).sort((a, b) => a - b);
  const spans = rounds.map((r) => r.spansPerSec).sort((a, b) => a - b);
  return {
    median: spans[spans.length >> 1]!,
    p50: percentile(latencies, 0.5),
    p99: percentile(latencies, 0.99),
    retried: rounds.reduce((n, r) => n + r.retried, 0),
  };
};
const http = summary(results.http);
const grpc = summary(results.grpc);
console.log(`\n${ROUNDS} rounds of ${SECONDS} s each, ${CONNECTIONS} connections, ${SPANS}-span bodies`);
console.log('| path | spans/s (median round) | ack p50 ms | ack p99 ms | retried |');
console.log('|---|---:|---:|---:|---:|');
for (const [name, s] of [
  ['OTLP/HTTP', http],
  ['OTLP/gRPC', grpc],
] as const) {
  console.log(`| ${name} | ${Math.round(s.median)} | ${s.p50.toFixed(1)} | ${s.p99.toFixed(1)} | ${s.retried} |`);
}
console.log(`\ngRPC / HTTP: ${(grpc.median / http.median).toFixed(2)}`);
