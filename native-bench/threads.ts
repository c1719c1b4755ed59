/**
 * native-bench/threads: where the server's CPU goes, thread by thread, under sustained OTLP load —
 * /proc's per-thread CPU time over a run of 512-span protobuf exports until every acknowledged span
 * is readable: a closed loop of 8 connections (503s sent again after Retry-After), or with
 * `--rate N` an open loop at N spans/s, which also prints the acknowledgements' latency at the
 * client (also without the first 5 s: a fresh server's first second of load is slow) and in the
 * server (its phases), and where the generations' time went until readable
 * (`tracelake_generation_seconds`): a steady load's readability, from a fresh server. The main
 * thread is marked; the other threads have only the kernel's ids; the main thread's garbage
 * collections are prom-client's (`nodejs_gc_duration_seconds`).
 *
 *   npm run build && node dist/native-bench/threads.js [--seconds 20] [--rate N] [--cpu-prof DIR] [--main path/to/dist/src/main.js] [--node-flags "--flag ..."]
 *
 * `--main` runs another build's server (A/B against an older checkout, one run after the other).
 * `--cpu-prof DIR` writes the server's CPU profiles (main thread and workers) there.
 * `--node-flags` starts the server's node with these flags (V8's GC settings, A/B run after run).
 */
import { startServer } from '../test/helpers/server.js';
import { Bodies, SPANS } from './bodies.js';
import { closedLoop, encodeRequest, openLoop, percentile } from './loadClient.js';
import { histograms } from './serverMetrics.js';
import { arg, textArg } from './args.js';
import { memoryMiB, processMinorFaults, threadTimes } from './procThreads.js';

const SECONDS = arg('seconds', 20);
const PROFILES = textArg('cpu-prof', '');
const RATE = arg('rate', 0);
const MAIN = textArg('main', new URL('../src/main.js', import.meta.url).pathname);
const NODE_FLAGS = textArg('node-flags', '').split(' ').filter(Boolean);
const KEY = 'sk_service_' + 'Bench'.repeat(8);

const server = await startServer({
  env: { TRACELAKE_BOOTSTRAP_KEY: KEY },
  args: [
    '--workers',
    '2',
    '--duckdb-threads',
    '2',
    '--duckdb-memory',
    '4GiB',
    '--metrics-listen',
    'api',
    ...(process.env.BENCH_SERVER_ARGS ?? '').split(' ').filter(Boolean),
  ],
  main: MAIN,
  ...(PROFILES || NODE_FLAGS.length
    ? {
        command: [
          process.execPath,
          ...NODE_FLAGS,
          ...(PROFILES ? ['--cpu-prof', `--cpu-prof-dir=${PROFILES}`] : []),
          MAIN,
        ],
      }
    : {}),
});
const appId = server.logs.find((l) => l.msg === 'bootstrap')!.app_id as string;
const bodies = new Bodies(8);
const target = {
  host: '127.0.0.1',
  port: server.port,
  path: '/v1/traces',
  headers: { authorization: KEY, 'x-service-app-id': appId, 'content-type': 'application/x-protobuf' },
};
const pid = server.child.pid!;
const before = threadTimes(pid);
const faultsBefore = processMinorFaults(pid);
// The HTTP thread's collections, as prom-client's default metrics observe them (its isolate only).
const gcBefore = await histograms(server, 'nodejs_gc_duration_seconds', 'kind', '0.01');
const started = performance.now();
const end = started + SECONDS * 1000;
let acked = 0;
const statuses = new Map<number, number>();
const ackMs: number[] = [];
/** Those of requests sent after the first 5 s: a fresh server's first second of load runs unoptimised code. */
const warmAckMs: number[] = [];
if (RATE > 0) {
  await openLoop(
    '127.0.0.1',
    server.port,
    RATE / SPANS,
    SECONDS,
    () => encodeRequest(target, bodies.next().body),
    (a, sentAt) => {
      statuses.set(a.status, (statuses.get(a.status) ?? 0) + 1);
      if (a.status === 200) {
        acked++;
        ackMs.push(a.ms);
        if (sentAt - started > 5000) warmAckMs.push(a.ms);
      }
    },
  );
} else {
  await closedLoop(
    '127.0.0.1',
    server.port,
    8,
    () => (performance.now() < end ? encodeRequest(target, bodies.next().body) : null),
    (a) => {
      if (a.status === 503 && a.headers['retry-after'] !== undefined) return 1000 * Number(a.headers['retry-after']);
      if (a.status !== 200) throw new Error(`ingest answered ${a.status}`);
      acked++;
    },
  );
}
const total = async () =>
  (
    (await (
      await fetch(`${server.url}/v1/spans?limit=1`, { headers: { authorization: KEY, 'x-service-app-id': appId } })
    ).json()) as { pagination: { total: number } }
  ).pagination.total;
while ((await total()) < acked * SPANS) await new Promise((r) => setTimeout(r, 50));
const elapsed = (performance.now() - started) / 1000;
const after = threadTimes(pid);
const faults = processMinorFaults(pid) - faultsBefore;
const rows = [...after]
  .map(([tid, a]) => ({
    tid,
    name: a.name,
    cpu: a.cpu - (before.get(tid)?.cpu ?? 0),
    sys: a.sys - (before.get(tid)?.sys ?? 0),
    faults: a.minorFaults - (before.get(tid)?.minorFaults ?? 0),
  }))
  .filter((r) => r.cpu > 0.05)
  .sort((a, b) => b.cpu - a.cpu);
const cpu = rows.reduce((n, r) => n + r.cpu, 0);
const spans = acked * SPANS;
console.log(
  `${spans.toLocaleString('en-US')} spans readable in ${elapsed.toFixed(1)} s: ${Math.round(spans / elapsed).toLocaleString('en-US')} spans/s; server CPU ${cpu.toFixed(1)} s = ${((cpu * 1e6) / spans).toFixed(1)} µs a span; ${(faults / spans).toFixed(2)} minor page faults a span; RSS ${memoryMiB(pid, 'VmRSS').toFixed(0)} MiB (peak ${memoryMiB(pid, 'VmHWM').toFixed(0)})`,
);
for (const r of rows)
  console.log(
    `  ${r.tid === pid ? 'main' : String(r.tid)} ${r.name.padEnd(16)} ${r.cpu.toFixed(2).padStart(7)} s  ${((r.cpu * 1e6) / spans).toFixed(1).padStart(5)} µs/span (system ${r.sys.toFixed(2)} s, ${(r.faults / spans).toFixed(2)} minor faults a span)`,
  );
const gcAfter = await histograms(server, 'nodejs_gc_duration_seconds', 'kind', '0.01');
const gcKinds = ['minor', 'major', 'incremental'].map((kind) => {
  const a = gcAfter.get(kind) ?? { count: 0, sum: 0, upTo: 0 };
  const b = gcBefore.get(kind) ?? { count: 0, sum: 0, upTo: 0 };
  const count = a.count - b.count;
  return `${kind} ${count} × ${count > 0 ? ((1000 * (a.sum - b.sum)) / count).toFixed(1) : '0'} ms (${(1000 * (a.sum - b.sum)).toFixed(0)} ms, ${count - (a.upTo - b.upTo)} over 10 ms)`;
});
console.log(`  the HTTP thread's garbage collections: ${gcKinds.join('; ')}`);
if (RATE > 0) {
  const stages = await histograms(server, 'tracelake_generation_seconds', 'stage', '0.25');
  const means = ['open', 'write', 'queue', 'commit'].map((name) => {
    const h = stages.get(name);
    return h
      ? `${name} ${((1000 * h.sum) / h.count).toFixed(1)} ms (${((100 * (h.count - h.upTo)) / h.count).toFixed(0)}% over 250)`
      : `${name} —`;
  });
  const [all, warm] = [ackMs, warmAckMs].map((xs) => [...xs].sort((x, y) => x - y));
  const at = (q: number) =>
    `${percentile(all!, q).toFixed(1)} (after the first 5 s ${percentile(warm!, q).toFixed(1)})`;
  console.log(
    `open loop at ${RATE.toLocaleString('en-US')} spans/s: answers ${JSON.stringify(Object.fromEntries(statuses))}; acknowledged in p50 ${at(0.5)} ms, p99 ${at(0.99)}, at most ${at(1)}; a generation's way to readable, means: ${means.join(', ')}`,
  );
  const phases = await histograms(server, 'tracelake_ingest_phase_seconds', 'phase', '0.05');
  const http = (await histograms(server, 'tracelake_http_request_duration_seconds', 'route', '0.05')).get('/v1/traces');
  if (http)
    console.log(
      `the server's time for POST /v1/traces (arrival to answer): ${http.count} × ${((1000 * http.sum) / http.count).toFixed(1)} ms, ${http.count - http.upTo} over 50 ms`,
    );
  console.log(
    `an answer's phases (count, mean, over 50 ms): ${[...phases].map(([phase, h]) => `${phase} ${h.count} × ${((1000 * h.sum) / h.count).toFixed(1)} ms, ${h.count - h.upTo}`).join('; ')}`,
  );
  // The store thread's tasks, queueing on it included: what a commit waits behind.
  const tasks = [...(await histograms(server, 'tracelake_store_task_duration_seconds', 'task', '0.25'))]
    .sort((a, b) => b[1].sum - a[1].sum)
    .slice(0, 6);
  console.log(
    `store thread tasks (count, mean, over 250 ms): ${tasks.map(([task, h]) => `${task} ${h.count} × ${((1000 * h.sum) / h.count).toFixed(1)} ms, ${h.count - h.upTo}`).join('; ')}`,
  );
}
await server.stop('SIGTERM');
