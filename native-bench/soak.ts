/**
 * native-bench/soak: an hour of OTLP ingest at a fraction of the sustained rate with reads beside
 * it, a line a minute, then kill -9 and a restart: does compaction keep up, do latencies stay flat,
 * is RSS bounded by the configuration and disk growth linear, without an error — and is every
 * acknowledged span there after the crash.
 *
 *   npm run build && node dist/native-bench/soak.js [--minutes 60] [--rate <spans/s> | --fraction 0.7]
 *        [--sustained-seconds 60] [--reads-per-second 2] [--out native-bench/soak] [--keep]
 *
 * - Rate: `--rate` — the rate a long load held, compaction included (native-bench/scale/load's) —
 *   or `--fraction` of the steady rate of a short closed loop measured first as native-bench/ingest
 *   measures it (8 connections, a throw-away store). The short loop runs ahead of compaction: an
 *   hour at 0.7 of it fell behind within minutes (small segments piling up, then 503s).
 * - Ingest: an open loop on a fresh store of 512-span requests of realistic agent traces
 *   (workload.ts), their spans ending when sent, every trace and span id unique (bodies.ts);
 *   every 5 s one acknowledged trace is polled by id every 100 ms until readable (ack → readable).
 * - Reads: an open loop at `--reads-per-second` of a UI's mix: the latest 50 traces of the last
 *   24 h, a trace acknowledged 10 s to 5 min before, the dashboard's cost and tokens by model
 *   hourly over 24 h (`GET /v1/metrics`).
 * - A minute: spans acknowledged, ack p50/p99, ack → readable p99, read p50/p99 by kind, small
 *   segments, live files and their bytes at its end (`GET /v1/health/files`), peak RSS (/proc,
 *   each second), the data directory's allocated bytes, errors (any answer not 2xx, 503 included, and any
 *   failed connection) by status. A second line says where the server's time and memory went:
 *   its CPU in cores, the store thread's background jobs, its busiest tasks, DuckDB's memory by
 *   instance and tag, the summary parts waiting (soakWhere.ts, from the operations metrics).
 * - The end: 3 s after the last minute, 5 ms after a request left, SIGKILL; a restart on the same
 *   store timed to `listening` and to the first `GET /v1/traces` answered 200; then, the server
 *   stopped, the store read in this process (acknowledged.ts): every acknowledged trace with all
 *   its spans. Exits 1 if one is missing.
 *
 * Writes `<out>/soak.json` (the rows and the end) and `<out>/soak.png` (a panel a metric, a point
 * a minute), and prints a table of 10-minute windows.
 */
import { execFileSync } from 'node:child_process';
import { existsSync, lstatSync, mkdirSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { cpus } from 'node:os';
import { join } from 'node:path';
import { CHROMIUM } from '../test/helpers/chromium.js';
import { startServer } from '../test/helpers/server.js';
import { Acknowledged } from './acknowledged.js';
import { arg, flag, textArg } from './args.js';
import { Bodies, SPANS } from './bodies.js';
import {
  type Gateway,
  gatewayOf,
  ingestTarget,
  segmentDetail,
  sustained,
  totalSpans,
  visibleAfterAck,
} from './gateway.js';
import { type Answer, encodeGet, encodeRequest, openLoop } from './loadClient.js';
import { panelsSvg, writePng } from './plot.js';
import { memoryMiB } from './procThreads.js';
import {
  MinuteSamples,
  minuteLine,
  minuteRow,
  type MinuteRow,
  type ReadKind,
  type ServerState,
  soakPanels,
  summaryTable,
} from './soakMinutes.js';
import { readServer, whereBetween, whereLine } from './soakWhere.js';

const MINUTES = arg('minutes', 60);
const RATE = arg('rate', 0);
const FRACTION = arg('fraction', 0.7);
const SUSTAINED_SECONDS = arg('sustained-seconds', 60);
const READS_PER_SECOND = arg('reads-per-second', 2);
const OUT = textArg('out', 'native-bench/soak');
const KEY = 'sk_service_' + 'Soak'.repeat(10);
/** The memory the configuration allows is what RSS is judged against: given, not defaulted. */
const SERVER_ARGS = ['--workers', '2', '--duckdb-threads', '2', '--duckdb-memory', '2GiB'];
/** The operations metrics on the API port: where each minute's time and memory went (soakWhere.ts). */
const METRICS_ARGS = ['--metrics-listen', 'api'];
const WARMUP_SECONDS = 8;
const PROBE_EVERY_MS = 5_000;
const PROBE_POLL_MS = 100;
const KILL_AFTER_MS = 3_000;
/** The kill lands this long after a request was sent, sooner than its answer usually comes. */
const KILL_DELAY_MS = 5;
/** A UI session: the list, a trace opened from it, the list again, another trace, the dashboard. */
const READ_MIX: ReadKind[] = ['list', 'trace', 'list', 'trace', 'metrics'];
/** A trace opened was acknowledged at least this long before (readable by then, as a person finds it). */
const OPENED_AFTER_MS = 10_000;
const HOUR_MS = 3_600_000;

const fmt = (n: number) => Math.round(n).toLocaleString('en-US');
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

async function startGateway(): Promise<Gateway> {
  return gatewayOf(
    await startServer({ env: { TRACELAKE_BOOTSTRAP_KEY: KEY }, args: [...SERVER_ARGS, ...METRICS_ARGS] }),
    KEY,
  );
}

/** Bytes allocated under `dir`; files compaction removes during the walk are skipped. */
function diskBytes(dir: string): number {
  for (let attempt = 0; ; attempt++) {
    try {
      let total = 0;
      for (const name of readdirSync(dir, { recursive: true }) as string[]) {
        try {
          total += lstatSync(join(dir, name)).blocks * 512;
        } catch {
          // Removed since the listing.
        }
      }
      return total;
    } catch (e) {
      if (attempt === 3) throw e;
    }
  }
}

async function serverState(g: Gateway): Promise<ServerState | null> {
  try {
    const d = await segmentDetail(g.server);
    return {
      smallSegments: d.small_segments,
      liveFiles: d.small_segments + d.compacted_segments,
      segmentBytes: d.segment_bytes,
      diskBytes: diskBytes(g.server.dataDir),
    };
  } catch {
    return null;
  }
}

// The plot is drawn by Chromium after the hour: without it, the run would end there, before the crash test.
if (!existsSync(CHROMIUM)) {
  console.error(`soak: no Chromium at ${CHROMIUM} to draw the plot (apt-get install -y chromium)`);
  process.exit(1);
}
const bodies = new Bodies(8, { sendTime: true, mixedIds: true });
console.log(
  `soak: ${MINUTES} min, ${cpus().length} cores (${cpus()[0]?.model ?? '?'}), server ${SERVER_ARGS.join(' ')}`,
);
let rate = RATE;
let sustainedRate: number | null = null;
if (!rate) {
  const g = await startGateway();
  const s = await sustained(g, bodies, SUSTAINED_SECONDS, WARMUP_SECONDS, true);
  await g.server.stop('SIGTERM');
  rmSync(g.server.dataDir, { recursive: true, force: true });
  sustainedRate = s.steadyPerSec;
  rate = FRACTION * s.steadyPerSec;
  console.log(
    `sustained (closed loop, 8 connections, ${SUSTAINED_SECONDS} s after ${WARMUP_SECONDS} s of warm-up, a throw-away store): ${fmt(s.steadyPerSec)} spans/s made readable (the steady rate; ${fmt(s.spansPerSec)} acknowledged and readable over the run and its drain), ack p99 ${s.p99.toFixed(1)} ms, ${s.backPressured} × 503 at the log's bound`,
  );
}
console.log(
  `open loop at ${fmt(rate)} spans/s${sustainedRate ? ` (${FRACTION} × sustained)` : ''} in ${SPANS}-span requests, reads at ${READS_PER_SECOND}/s (${READ_MIX.join(', ')})`,
);

const g = await startGateway();
const bootstrap = g.server.bootstrap!;
const scope = { tenantId: bootstrap.tenant_id as string, appId: g.appId, environmentId: null };
const pid = g.server.child.pid!;
const headers = { authorization: KEY, 'x-service-app-id': g.appId };
const acked = new Acknowledged(bodies);
const rows: MinuteRow[] = [];
const samples: MinuteSamples[] = [];
let minute = new MinuteSamples();
/** soak: minutes recorded; tail: after the last minute, before the kill; killed. */
let phase: 'soak' | 'tail' | 'killed' = 'soak';
const tail = { statuses: new Map<number, number>(), inFlightAtKill: 0 };
const sent = new Map<number, { request: number; traceId: string }>();
/** A trace acknowledged each second, the last 5 minutes: what the reads open. */
const recent: { at: number; traceId: string }[] = [];
let lastProbe = 0;
const probes = new Set<Promise<void>>();
/** Called as an ingest request is made. */
let onSend: (() => void) | null = null;

function probe(traceId: string, ackedAt: number): void {
  const settled = visibleAfterAck(g, traceId, ackedAt, PROBE_POLL_MS)
    .then(
      (ms) => {
        if (phase === 'soak') minute.readable.push(ms);
      },
      () => {
        if (phase === 'soak') minute.error('probe', 0);
      },
    )
    .then(() => {
      probes.delete(settled);
    });
  probes.add(settled);
}

function onIngest(a: Answer, _sentAt: number, i: number): void {
  const s = sent.get(i)!;
  sent.delete(i);
  // An answer 200 is an acknowledgement, whenever it arrived: the check after the crash counts it.
  if (a.status === 200) acked.add(s.request);
  if (phase !== 'soak') {
    tail.statuses.set(a.status, (tail.statuses.get(a.status) ?? 0) + 1);
    return;
  }
  if (a.status !== 200) {
    minute.error('ingest', a.status);
    return;
  }
  minute.ackedSpans += SPANS;
  minute.ack.push(a.ms);
  const now = performance.now();
  if (recent.length === 0 || now - recent[recent.length - 1]!.at >= 1000) {
    recent.push({ at: now, traceId: s.traceId });
    if (recent.length > 300) recent.shift();
  }
  if (now - lastProbe >= PROBE_EVERY_MS) {
    lastProbe = now;
    probe(s.traceId, now);
  }
}

const readKinds = new Map<number, ReadKind>();
const window24h = (key: 'start_date' | 'from', end: 'end_date' | 'to') => {
  const now = Date.now();
  return `${key}=${encodeURIComponent(new Date(now - 24 * HOUR_MS).toISOString())}&${end}=${encodeURIComponent(new Date(now + 60_000).toISOString())}`;
};

function readRequest(i: number): Buffer | null {
  if (phase !== 'soak') return null;
  const now = performance.now();
  const openable = recent.filter((r) => now - r.at >= OPENED_AFTER_MS);
  let kind = READ_MIX[i % READ_MIX.length]!;
  if (kind === 'trace' && openable.length === 0) kind = 'list';
  const path =
    kind === 'list'
      ? `/v1/traces?limit=50&${window24h('start_date', 'end_date')}`
      : kind === 'trace'
        ? `/v1/traces/${openable[Math.floor(Math.random() * openable.length)]!.traceId}`
        : `/v1/metrics?view=spans&bucket=hour&measures=${encodeURIComponent('cost,total_tokens')}&group_by=model&${window24h('from', 'to')}`;
  readKinds.set(i, kind);
  return encodeGet({ host: '127.0.0.1', port: g.server.port, path, headers });
}

function onRead(a: Answer, _sentAt: number, i: number): void {
  const kind = readKinds.get(i)!;
  readKinds.delete(i);
  if (phase !== 'soak') return;
  if (a.status >= 200 && a.status < 300) minute.reads[kind].push(a.ms);
  else minute.error(kind, a.status);
}

const target = ingestTarget(g);
const rssTimer = setInterval(() => {
  try {
    minute.rssMiB = Math.max(minute.rssMiB, memoryMiB(pid, 'VmRSS'));
  } catch {
    // The server is gone: its requests fail and say so.
  }
}, 1000);
const ingest = openLoop(
  '127.0.0.1',
  g.server.port,
  rate / SPANS,
  MINUTES * 60 + 60,
  (i) => {
    if (phase === 'killed') return null;
    const { body, traceId, request } = bodies.next();
    sent.set(i, { request, traceId });
    const bytes = encodeRequest(target, body);
    onSend?.();
    return bytes;
  },
  onIngest,
);
const reads = openLoop('127.0.0.1', g.server.port, READS_PER_SECOND, MINUTES * 60, readRequest, onRead);
let lastReading = await readServer(g.server, pid).catch(() => null);
await new Promise<void>((resolve) => {
  let m = 0;
  let closing = Promise.resolve();
  const timer = setInterval(() => {
    const done = ++m;
    const seen = minute;
    minute = new MinuteSamples();
    if (done === MINUTES) {
      phase = 'tail';
      clearInterval(timer);
      clearInterval(rssTimer);
    }
    // In minute order, whatever each one's health request takes.
    closing = closing.then(async () => {
      const state = await serverState(g);
      if (!state) seen.error('health', 0);
      const reading = await readServer(g.server, pid).catch(() => null);
      const where = lastReading && reading ? whereBetween(lastReading, reading) : null;
      lastReading = reading;
      const row = minuteRow(
        done,
        seen,
        state ?? { smallSegments: NaN, liveFiles: NaN, segmentBytes: NaN, diskBytes: NaN },
        where,
      );
      rows.push(row);
      samples.push(seen);
      console.log(minuteLine(row));
      if (where) console.log(whereLine(where));
      if (done === MINUTES) resolve();
    });
  }, 60_000);
});

await sleep(KILL_AFTER_MS);
// Just after a request leaves (at low rates there may be none in flight otherwise).
await new Promise<void>((resolve) => (onSend = resolve));
await sleep(KILL_DELAY_MS);
tail.inFlightAtKill = sent.size;
phase = 'killed';
await g.server.stop('SIGKILL');
await Promise.all([ingest, reads, ...probes]);
console.log(
  `SIGKILL ${KILL_AFTER_MS / 1000} s after the last minute, ${tail.inFlightAtKill} ingest requests in flight; answers after the last minute: ${JSON.stringify(Object.fromEntries(tail.statuses))} (0: connection closed)`,
);

const result = {
  date: new Date().toISOString(),
  commit: execFileSync('git', ['rev-parse', '--short', 'HEAD']).toString().trim(),
  machine: { cores: cpus().length, model: cpus()[0]?.model ?? null },
  config: {
    minutes: MINUTES,
    serverArgs: SERVER_ARGS,
    readsPerSecond: READS_PER_SECOND,
    readMix: READ_MIX,
    fraction: sustainedRate ? FRACTION : null,
  },
  sustainedSpansPerSec: sustainedRate,
  rateSpansPerSec: rate,
  rows,
  kill: { inFlight: tail.inFlightAtKill, answersAfterLastMinute: Object.fromEntries(tail.statuses) },
  restart: null as null | { listeningMs: number; firstReadMs: number; servedSpans: number },
  acknowledged: null as null | Record<string, number>,
};
mkdirSync(OUT, { recursive: true });
const writeJson = () => writeFileSync(join(OUT, 'soak.json'), `${JSON.stringify(result, null, 2)}\n`);
writeJson();
await writePng(
  panelsSvg(soakPanels(rows), {
    caption: `Tracelake soak: ${fmt(rate)} spans/s open loop${sustainedRate ? ` (${FRACTION} × sustained ${fmt(sustainedRate)})` : ''}, reads ${READS_PER_SECOND}/s, ${SERVER_ARGS.join(' ')} · ${result.commit} · ${result.date.slice(0, 16)}Z`,
    xName: 'minute',
  }),
  join(OUT, 'soak.png'),
);
console.log(`\n${summaryTable(samples, rows)}\n`);

const t0 = performance.now();
const again = await startServer({
  dataDir: g.server.dataDir,
  env: { TRACELAKE_BOOTSTRAP_KEY: KEY },
  args: SERVER_ARGS,
  startTimeoutMs: 600_000,
});
const listeningMs = performance.now() - t0;
for (;;) {
  const r = await fetch(`${again.url}/v1/traces?limit=50`, { headers }).catch(() => null);
  await r?.arrayBuffer();
  if (r?.status === 200) break;
  await sleep(20);
}
const firstReadMs = performance.now() - t0;
const servedSpans = await totalSpans({ server: again, key: KEY, appId: g.appId });
await again.stop('SIGTERM');
result.restart = { listeningMs, firstReadMs, servedSpans };
console.log(
  `restart on the same store: listening after ${(listeningMs / 1000).toFixed(2)} s, the first GET /v1/traces answered 200 after ${(firstReadMs / 1000).toFixed(2)} s; ${fmt(servedSpans)} spans served (acknowledged ${fmt(acked.spans)} in ${fmt(acked.count)} requests; the rest were in flight at the kill)`,
);

const held = await acked.heldIn(g.server.dataDir, scope);
result.acknowledged = { requests: acked.count, ...held, missingTraces: held.traces - held.foundTraces };
writeJson();
console.log(
  `acknowledged: ${fmt(held.traces)} traces, ${fmt(held.spans)} spans; found in the store: ${fmt(held.foundTraces)} traces, ${fmt(held.foundSpans)} spans; missing: ${fmt(held.traces - held.foundTraces)} traces, ${fmt(held.spans - held.foundSpans)} spans (${fmt(held.incompleteTraces)} traces absent or incomplete)`,
);
console.log(`wrote ${join(OUT, 'soak.json')} and ${join(OUT, 'soak.png')}`);
if (flag('keep')) console.log(`store kept in ${g.server.dataDir}`);
else rmSync(g.server.dataDir, { recursive: true, force: true });
if (held.incompleteTraces > 0 || held.spans !== acked.spans) process.exitCode = 1;
