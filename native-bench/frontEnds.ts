/**
 * native-bench/frontEnds: the two HTTP front ends side by side in one run — a server started with
 * TRACELAKE_FRONT_END=node and one with uws (under Debian 13's C library where the system's is too
 * old for the uWS build: test/helpers/newerGlibc.ts), both up for the whole run, measured in turns:
 * every scenario on one front end then the other, the order flipped each round, so a drift of the
 * machine falls on both. Medians of the rounds, their spread, and the ratio uws / node.
 *
 *   npm run build && node dist/native-bench/frontEnds.js [--seconds 4] [--rounds 3] [--warmup 1] [--connections 16] [--ingest-connections 8] [--same-libc]
 *
 * `--same-libc` runs the node:http server under Debian 13's C library too, so that the two servers
 * differ by their front end alone (malloc and memcpy are the C library's, and DuckDB leans on them).
 *
 * Scenarios, each a closed loop of keep-alive connections (loadClient.ts) for `--seconds`:
 *   health   GET /health, unauthenticated (its store checks are cached for a few seconds)
 *   api-keys GET /v1/api-keys with the root key: authentication (a cached key) and a small read in
 *            the store thread (cloud mode has no small authenticated read that skips the store)
 *   ingest   POST /v1/traces, 512-span OTLP/protobuf bodies (bodies.ts), `--ingest-connections`;
 *            503s at the log's bound sent again after Retry-After; after the window the bench waits
 *            until every acknowledged span is readable
 * Before each window both servers are left to settle (their CPU under a tenth of a core), so the
 * one not measured is idle. The server's CPU per request (or per span) comes from /proc, over the
 * window and, for ingest, until its spans are readable. The load client runs in this process, on
 * the same cores as the servers: its CPU is printed beside theirs.
 */
import { execFileSync } from 'node:child_process';
import { loadavg } from 'node:os';
import { rmSync } from 'node:fs';
import {
  rootCredentials,
  startServer,
  type Credentials,
  type ServerOptions,
  type TestServer,
} from '../test/helpers/server.js';
import { uwsServerOptions } from '../test/helpers/newerGlibc.js';
import { closedLoop, encodeGet, encodeRequest, percentile } from './loadClient.js';
import { Bodies, SPANS } from './bodies.js';
import { median } from './alternating.js';
import { arg, flag } from './args.js';
import { processCpu, threadTimes } from './procThreads.js';

const SECONDS = arg('seconds', 4);
const ROUNDS = arg('rounds', 3);
const WARMUP = arg('warmup', 1);
const CONNECTIONS = arg('connections', 16);
const INGEST_CONNECTIONS = arg('ingest-connections', 8);
const SAME_LIBC = flag('same-libc');
const SERVER_ARGS = ['--workers', '2', '--duckdb-threads', '2', '--duckdb-memory', '4GiB'];
const HOST = '127.0.0.1';
/** A server counts as settled once it uses less than this share of a core over SETTLE_SAMPLE_MS. */
const QUIET_CORES = 0.1;
const SETTLE_SAMPLE_MS = 500;
const SETTLE_LIMIT_MS = 30_000;
/** How often the drain after an ingest window counts the readable spans (each count is a read the server pays for). */
const DRAIN_POLL_MS = 250;

interface Served {
  name: 'node' | 'uws';
  server: TestServer;
  credentials: Credentials;
  /** Spans acknowledged so far (the drain after an ingest window waits for all of them). */
  ackedSpans: number;
}

interface Scenario {
  name: string;
  /** What a window's rate counts: answered requests, or acknowledged spans (512 a request). */
  unit: 'request' | 'span';
  connections: number;
  /** The request maker for one server. */
  requests(s: Served): () => Buffer;
}

interface Window {
  perSec: number;
  p50: number;
  p99: number;
  /** The server's CPU (all threads, then its main thread: the HTTP thread) a unit, µs, over the window. */
  cpuUs: number;
  mainUs: number;
  /** This process's CPU (the load client) over the window, in cores. */
  clientCores: number;
  /** Ingest only: 503s at the log's bound, the wait after the window until every acknowledged span was readable, and the server's CPU a span until then (µs). */
  backPressured: number;
  drainMs: number;
  readableCpuUs: number;
}

const bearer = (s: Served) => ({
  authorization: `Bearer ${s.credentials.key}`,
  'x-service-app-id': s.credentials.appId,
});
const get = (path: string, auth: boolean) => (s: Served) => {
  const request = encodeGet({ host: HOST, port: s.server.port, path, headers: auth ? bearer(s) : {} });
  return () => request;
};
const bodies = new Bodies(8);
const SCENARIOS: Scenario[] = [
  { name: 'health', unit: 'request', connections: CONNECTIONS, requests: get('/health', false) },
  { name: 'api-keys', unit: 'request', connections: CONNECTIONS, requests: get('/v1/api-keys', true) },
  {
    name: 'ingest',
    unit: 'span',
    connections: INGEST_CONNECTIONS,
    requests(s) {
      // OTLP ingestion takes the key raw, without "Bearer ".
      const target = {
        host: HOST,
        port: s.server.port,
        path: '/v1/traces',
        headers: {
          authorization: s.credentials.key,
          'x-service-app-id': s.credentials.appId,
          'content-type': 'application/x-protobuf',
        },
      };
      return () => encodeRequest(target, bodies.next().body);
    },
  },
];

async function start(name: Served['name'], options: ServerOptions): Promise<Served> {
  const server = await startServer({
    ...options,
    args: SERVER_ARGS,
    env: { ...options.env, TRACELAKE_FRONT_END: name },
  });
  const listening = server.logs.find((l) => l.msg === 'listening');
  if (listening?.front_end !== name)
    throw new Error(`asked for the ${name} front end, the server listens with ${String(listening?.front_end)}`);
  return { name, server, credentials: rootCredentials(server), ackedSpans: 0 };
}

const mainThreadCpu = (pid: number) => threadTimes(pid).get(pid)?.cpu ?? 0;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Waits until every server is nearly idle (or SETTLE_LIMIT_MS); the milliseconds waited. */
async function settle(all: Served[]): Promise<number> {
  const t0 = performance.now();
  const cpu = () => all.reduce((n, s) => n + processCpu(s.server.child.pid!), 0);
  for (;;) {
    const before = cpu();
    await sleep(SETTLE_SAMPLE_MS);
    if (cpu() - before < (QUIET_CORES * SETTLE_SAMPLE_MS) / 1000 || performance.now() - t0 > SETTLE_LIMIT_MS)
      return performance.now() - t0;
  }
}

async function totalSpans(s: Served): Promise<number> {
  const r = await fetch(`${s.server.url}/v1/spans?limit=1`, { headers: bearer(s) });
  return ((await r.json()) as { pagination: { total: number } }).pagination.total;
}

async function measure(s: Served, scenario: Scenario, seconds: number): Promise<Window> {
  const pid = s.server.child.pid!;
  const next = scenario.requests(s);
  const latencies: number[] = [];
  let backPressured = 0;
  const [cpu0, main0, client0] = [processCpu(pid), mainThreadCpu(pid), process.cpuUsage()];
  const t0 = performance.now();
  const end = t0 + seconds * 1000;
  await closedLoop(
    HOST,
    s.server.port,
    scenario.connections,
    () => (performance.now() < end ? next() : null),
    (a) => {
      // Back-pressure at the log's bound: sent again after Retry-After, as exporters do.
      if (scenario.unit === 'span' && a.status === 503 && a.headers['retry-after'] !== undefined) {
        backPressured++;
        return 1000 * Number(a.headers['retry-after']);
      }
      if (a.status !== 200) throw new Error(`${scenario.name} on ${s.name} answered ${a.status}`);
      latencies.push(a.ms);
    },
  );
  const elapsed = (performance.now() - t0) / 1000;
  const [cpu, main, client] = [processCpu(pid) - cpu0, mainThreadCpu(pid) - main0, process.cpuUsage(client0)];
  const units = latencies.length * (scenario.unit === 'span' ? SPANS : 1);
  let readableCpuUs = 0;
  const drainStart = performance.now();
  if (scenario.unit === 'span') {
    s.ackedSpans += units;
    while ((await totalSpans(s)) < s.ackedSpans) await sleep(DRAIN_POLL_MS);
    readableCpuUs = ((processCpu(pid) - cpu0) * 1e6) / units;
  }
  const drainMs = performance.now() - drainStart;
  latencies.sort((a, b) => a - b);
  return {
    perSec: units / elapsed,
    p50: percentile(latencies, 0.5),
    p99: percentile(latencies, 0.99),
    cpuUs: (cpu * 1e6) / units,
    mainUs: (main * 1e6) / units,
    clientCores: (client.user + client.system) / 1e6 / elapsed,
    backPressured,
    drainMs,
    readableCpuUs,
  };
}

const fmt = (n: number, digits = 0) =>
  n.toLocaleString('en-US', { minimumFractionDigits: digits, maximumFractionDigits: digits });

/** A column's cell: the rounds' median and, in brackets, their range. */
function cell(xs: number[], digits: number): string {
  return `${fmt(median(xs), digits)} [${fmt(Math.min(...xs), digits)}–${fmt(Math.max(...xs), digits)}]`;
}

function table(scenario: Scenario, seen: Map<string, Window[]>): string {
  const perUnit = scenario.unit === 'span' ? 'span' : 'request';
  const columns: [string, (w: Window) => number, number][] = [
    [scenario.unit === 'span' ? 'spans/s acknowledged' : 'requests/s', (w) => w.perSec, 0],
    ['p50 ms', (w) => w.p50, 2],
    ['p99 ms', (w) => w.p99, 2],
    [
      `server CPU µs/${perUnit}${scenario.unit === 'span' ? ' in the window' : ''}`,
      (w) => w.cpuUs,
      scenario.unit === 'span' ? 2 : 0,
    ],
    [`main thread µs/${perUnit}`, (w) => w.mainUs, scenario.unit === 'span' ? 2 : 0],
    ...(scenario.unit === 'span'
      ? ([
          ['server CPU µs/span until readable', (w: Window) => w.readableCpuUs, 2],
          ['503s', (w: Window) => w.backPressured, 0],
        ] as [string, (w: Window) => number, number][])
      : []),
    ['client cores', (w) => w.clientCores, 2],
  ];
  const rows = ['node', 'uws'].map(
    (name) => `| ${name} | ${columns.map(([, pick, digits]) => cell(seen.get(name)!.map(pick), digits)).join(' | ')} |`,
  );
  // A count of refusals has no meaningful ratio (and is mostly zero).
  const ratio = columns.map(([title, pick]) => {
    const [n, u] = ['node', 'uws'].map((name) => median(seen.get(name)!.map(pick)));
    return n && title !== '503s' ? `${(u! / n!).toFixed(2)}×` : '—';
  });
  const title = `${scenario.name}: ${scenario.connections} connections, ${SECONDS} s a window, medians of ${ROUNDS} rounds [min–max]`;
  return [
    title,
    '',
    `| front end | ${columns.map(([c]) => c).join(' | ')} |`,
    `|---|${columns.map(() => '---|').join('')}`,
    ...rows,
    `| uws / node | ${ratio.join(' | ')} |`,
  ].join('\n');
}

const uws = uwsServerOptions();
if ('why' in uws) throw new Error(`no uWebSockets.js here: ${uws.why}`);
const load = () =>
  loadavg()
    .map((l) => l.toFixed(2))
    .join(' ');
console.log(
  `${new Date().toISOString()}, Node ${process.version}, commit ${execFileSync('git', ['rev-parse', '--short', 'HEAD'], { encoding: 'utf8' }).trim()}, load average ${load()}`,
);
const nodeOptions: ServerOptions = SAME_LIBC && uws.options.wrap ? { wrap: uws.options.wrap } : {};
const libc = (o: ServerOptions) => (o.wrap ? "Debian 13's C library (its dynamic loader)" : "the system's C library");
console.log(
  `uws under ${libc(uws.options)}, node under ${libc(nodeOptions)}; the load client runs in this process and shares the cores with both servers`,
);
const started = performance.now();
const servers = [await start('node', nodeOptions), await start('uws', uws.options)];
try {
  for (const scenario of SCENARIOS) for (const s of servers) await measure(s, scenario, WARMUP);
  const seen = new Map(SCENARIOS.map((sc) => [sc.name, new Map<string, Window[]>(servers.map((s) => [s.name, []]))]));
  for (let round = 0; round < ROUNDS; round++) {
    for (const scenario of SCENARIOS) {
      for (const s of round % 2 ? [...servers].reverse() : servers) {
        const settled = await settle(servers);
        const w = await measure(s, scenario, SECONDS);
        seen.get(scenario.name)!.get(s.name)!.push(w);
        console.log(
          `  round ${round + 1} ${scenario.name.padEnd(8)} ${s.name.padEnd(4)} ${fmt(w.perSec)} ${scenario.unit}s/s, p50 ${fmt(w.p50, 2)} ms, p99 ${fmt(w.p99, 2)} ms, server ${fmt(w.cpuUs, 1)} µs CPU a ${scenario.unit}, client ${fmt(w.clientCores, 2)} cores (settled ${fmt(settled)} ms before${scenario.unit === 'span' ? `; all readable ${fmt(w.drainMs)} ms after, ${fmt(w.readableCpuUs, 1)} µs CPU a span until then` : ''})`,
        );
      }
    }
  }
  console.log(`load average at the end ${load()}, ${fmt((performance.now() - started) / 1000)} s in all\n`);
  for (const scenario of SCENARIOS) console.log(`${table(scenario, seen.get(scenario.name)!)}\n`);
} finally {
  for (const s of servers) {
    await s.server.stop('SIGTERM');
    rmSync(s.server.dataDir, { recursive: true, force: true });
  }
}
