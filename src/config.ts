/**
 * Configuration: one table of options, each an environment variable with a CLI flag twin and a
 * documented default. A flag wins over the variable. docs/guide/configuration.md lists the same
 * rows, and a test keeps the two in step.
 */
import { availableParallelism, totalmem } from 'node:os';
import { KEY_PREFIX } from './auth/keys.js';
import { parseFlags, UsageError } from './core/cliArgs.js';
import type { Mode } from './core/mode.js';
import type { FrontEndChoice } from './http/frontEnds.js';
import { DEFAULT_TRACE_HINT_SLOTS } from './store/spans/traceHintTable.js';

export type { Mode };

/** Origins browsers may call from (http/cors.ts): `*` for any, or exact origins (`https://app.example.com`). */
export type CorsOrigins = '*' | readonly string[];

/**
 * Where `GET /metrics` (Prometheus text) is served: nowhere, on an address of its own (never
 * behind the API's auth, so never on the API's address unless `api` says so), or on the API port.
 */
export type MetricsListen = { kind: 'off' } | { kind: 'api' } | { kind: 'listen'; host: string; port: number };

export interface Config {
  host: string;
  port: number;
  /** The OTLP/gRPC port (http/grpcFrontEnd.ts); null: off. */
  grpcPort: number | null;
  frontEnd: FrontEndChoice;
  dataDir: string;
  mode: Mode;
  bootstrapKey: string | undefined;
  /** The operator API's credential (http/operatorAuth.ts); undefined turns the operator API off. */
  operatorToken: string | undefined;
  workers: number;
  backgroundNice: number;
  duckdbThreads: number;
  duckdbMemory: string;
  maxBodyBytes: number;
  maxRequests: number;
  maxInflightBytes: number;
  maxOtlpBodyBytes: number;
  maxOtlpDecompressedBytes: number;
  maxAgentsBodyBytes: number;
  maxSpansPerTrace: number;
  maxQueue: number;
  maxQueueWaitMs: number;
  ingestBacklogBytes: number;
  flushIntervalMs: number;
  segmentRows: number;
  dedupeSpans: number;
  compactionIntervalMs: number;
  compactionRows: number;
  compactionAgeMs: number;
  retentionDays: number;
  traceHints: number;
  queryTimeoutMs: number;
  shutdownTimeoutMs: number;
  logLevel: string;
  plansFile: string | undefined;
  rateLimit: number;
  rateBurst: number;
  corsOrigins: CorsOrigins;
  gitRoot: string | undefined;
  githubApiUrl: string;
  publicUrl: string | undefined;
  workerLeaseSeconds: number;
  workerMaxAttempts: number;
  metricsListen: MetricsListen;
  faultInjection: boolean;
  allowNewStore: boolean;
}

interface Option<K extends keyof Config> {
  key: K;
  env: string;
  flag: string;
  /** The default as documented; `parse` turns it (or the user's text) into the value. */
  fallback: string | undefined;
  parse: (text: string) => Config[K];
  doc: string;
}

const cores = Math.max(1, availableParallelism());
/** Request bodies held at once: a sixteenth of the machine's memory, between 64 MiB and 1 GiB. */
const inflightBytes = Math.min(1024, Math.max(64, Math.floor(totalmem() / 16 / 1024 ** 2)));

function integer(min: number, max = Number.MAX_SAFE_INTEGER) {
  return (text: string): number => {
    const n = Number(text);
    if (!Number.isInteger(n) || n < min || n > max)
      throw new Error(`expected an integer in ${min}..${max}, got "${text}"`);
    return n;
  };
}

const UNITS: Record<string, number> = {
  '': 1,
  b: 1,
  kb: 1024,
  kib: 1024,
  mb: 1024 ** 2,
  mib: 1024 ** 2,
  gb: 1024 ** 3,
  gib: 1024 ** 3,
};

/** Byte sizes: `1048576`, `16MiB`, `64mb`. */
function bytes(text: string): number {
  const m = /^\s*(\d+(?:\.\d+)?)\s*([a-z]*)\s*$/i.exec(text);
  const unit = m ? UNITS[m[2]!.toLowerCase()] : undefined;
  if (!m || unit === undefined) throw new Error(`expected a size such as 16MiB, got "${text}"`);
  return Math.floor(Number(m[1]) * unit);
}

/** The smallest DuckDB memory limit we start with: below it DuckDB fails its first large query. */
const MIN_DUCKDB_MEMORY = 64 * 1024 ** 2;

/**
 * DuckDB's memory_limit, checked here so a bad value is a config error (exit 2) and not a stack
 * trace from inside the store thread: a size as `bytes` reads it, handed to DuckDB in bytes.
 */
function memoryLimit(t: string): string {
  const n = bytes(t);
  if (n < MIN_DUCKDB_MEMORY) throw new Error(`expected at least 64MiB, got "${t}"`);
  return `${n}B`;
}

/** CORS origins: empty for none, `*`, or a comma-separated list of `scheme://host[:port]`. */
function corsOrigins(text: string): CorsOrigins {
  const t = text.trim();
  if (t === '*') return '*';
  if (t === '') return [];
  const origins = t.split(',').map((s) => s.trim());
  for (const o of origins) {
    if (!/^https?:\/\/[^/\s]+$/.test(o))
      throw new Error(`expected origins such as https://app.example.com, or *, got "${o}"`);
  }
  return origins;
}

/**
 * The operator token: long enough not to be guessed, and never shaped like an API key, so neither
 * can pass for the other. Its value is never echoed (it would land in a log or a terminal).
 */
function operatorToken(t: string): string {
  if (!/^[\x21-\x7e]{32,512}$/.test(t))
    throw new Error(
      'expected 32 to 512 printable characters without spaces, e.g. the output of `openssl rand -hex 32` (the value given is not shown)',
    );
  if (t.startsWith(KEY_PREFIX))
    throw new Error(`must not be an API key (${KEY_PREFIX}…): the operator token is a credential of its own`);
  return t;
}

/** `off`, `api`, a port (on 127.0.0.1), or `host:port` (`[::1]:9464` for IPv6). */
function metricsListen(text: string): MetricsListen {
  const t = text.trim().toLowerCase();
  if (t === 'off') return { kind: 'off' };
  if (t === 'api') return { kind: 'api' };
  const m = /^(?:(\[[0-9a-f:.]+\]|[a-z0-9.-]+):)?(\d{1,5})$/.exec(t);
  const port = m ? Number(m[2]) : NaN;
  if (!m || port > 65535)
    throw new Error(`expected off, api, a port or host:port (such as 127.0.0.1:9464), got "${text}"`);
  return { kind: 'listen', host: m[1]?.replace(/^\[|\]$/g, '') ?? '127.0.0.1', port };
}

/** A port, or `off` (null). */
function portOrOff(text: string): number | null {
  return text.trim().toLowerCase() === 'off' ? null : integer(0, 65535)(text);
}

function oneOf<T extends string>(...values: T[]) {
  return (text: string): T => {
    if (!(values as string[]).includes(text)) throw new Error(`expected one of ${values.join(', ')}, got "${text}"`);
    return text as T;
  };
}

const text = (t: string): string => t;

/** An http(s) base address, kept without a trailing slash. */
function httpUrl(t: string): string {
  let url: URL;
  try {
    url = new URL(t);
  } catch {
    throw new Error(`expected an http(s) URL, got "${t}"`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') throw new Error(`expected an http(s) URL, got "${t}"`);
  return t.replace(/\/+$/, '');
}

function number(min: number) {
  return (t: string): number => {
    const n = Number(t);
    if (t.trim() === '' || !Number.isFinite(n) || n < min) throw new Error(`expected a number ≥ ${min}, got "${t}"`);
    return n;
  };
}

function onOff(t: string): boolean {
  if (/^(1|on|true|yes)$/i.test(t)) return true;
  if (/^(0|off|false|no)$/i.test(t)) return false;
  throw new Error(`expected on or off, got "${t}"`);
}

/** Every option, in the order docs/guide/configuration.md documents them. */
export const OPTIONS = [
  {
    key: 'host',
    env: 'TRACELAKE_HOST',
    flag: '--host',
    fallback: '127.0.0.1',
    parse: text,
    doc: 'Address to listen on.',
  },
  {
    key: 'port',
    env: 'TRACELAKE_PORT',
    flag: '--port',
    fallback: '4318',
    parse: integer(0, 65535),
    doc: 'Port (the OTLP/HTTP default); 0 picks a free port.',
  },
  {
    key: 'grpcPort',
    env: 'TRACELAKE_GRPC_PORT',
    flag: '--grpc-port',
    fallback: '4317',
    parse: portOrOff,
    doc: 'OTLP/gRPC port (the OTLP/gRPC default), on the same host; 0 picks a free port, `off` opens none.',
  },
  {
    key: 'frontEnd',
    env: 'TRACELAKE_FRONT_END',
    flag: '--front-end',
    fallback: 'auto',
    parse: oneOf<FrontEndChoice>('auto', 'uws', 'node'),
    doc: 'HTTP front end: `auto` (uWebSockets.js where its build loads, else node:http), `uws` (refuse the start when it does not load), or `node`.',
  },
  {
    key: 'dataDir',
    env: 'TRACELAKE_DATA_DIR',
    flag: '--data-dir',
    fallback: 'data/store',
    parse: text,
    doc: 'Directory of the store (DuckDB file, segments, blobs, secret).',
  },
  {
    key: 'mode',
    env: 'TRACELAKE_MODE',
    flag: '--mode',
    fallback: 'cloud',
    parse: oneOf<Mode>('cloud', 'local'),
    doc: '`cloud` (full API) or `local` (development server surface).',
  },
  {
    key: 'bootstrapKey',
    env: 'TRACELAKE_BOOTSTRAP_KEY',
    flag: '--bootstrap-key',
    fallback: undefined,
    parse: text,
    doc: 'First Full Access key on an empty store; generated and logged once when unset.',
  },
  {
    key: 'operatorToken',
    env: 'TRACELAKE_OPERATOR_TOKEN',
    flag: '--operator-token',
    fallback: undefined,
    parse: operatorToken,
    doc: 'Token of the operator API (/v1/operator/*: tenants, plans, keys, session tokens on the running server; the `tracelake` commands use it); at least 32 characters; unset turns the operator API off.',
  },
  {
    key: 'workers',
    env: 'TRACELAKE_WORKERS',
    flag: '--workers',
    fallback: String(cores),
    parse: integer(1, 256),
    doc: 'Worker threads for decoding, mapping and serialising (default: cores).',
  },
  {
    key: 'backgroundNice',
    env: 'TRACELAKE_BACKGROUND_NICE',
    flag: '--background-nice',
    fallback: '5',
    parse: integer(0, 19),
    doc: "Linux: the nice value of every thread but the one that answers exports and the log's sync thread (decoding, segments, the store, DuckDB), so acknowledgements come first when the cores are busy; 0 leaves all threads at the server's own priority.",
  },
  {
    key: 'duckdbThreads',
    env: 'TRACELAKE_DUCKDB_THREADS',
    flag: '--duckdb-threads',
    fallback: String(cores),
    parse: integer(1, 256),
    doc: 'DuckDB threads (default: cores).',
  },
  {
    key: 'duckdbMemory',
    env: 'TRACELAKE_DUCKDB_MEMORY',
    flag: '--duckdb-memory',
    fallback: '4GiB',
    parse: memoryLimit,
    doc: 'DuckDB memory_limit (at least 64MiB).',
  },
  {
    key: 'maxBodyBytes',
    env: 'TRACELAKE_MAX_BODY',
    flag: '--max-body',
    fallback: '8MiB',
    parse: bytes,
    doc: 'Largest JSON request body.',
  },
  {
    key: 'maxRequests',
    env: 'TRACELAKE_MAX_REQUESTS',
    flag: '--max-requests',
    fallback: '2048',
    parse: integer(1),
    doc: 'Requests in flight at once; more are answered 503 `overloaded` with Retry-After at once.',
  },
  {
    key: 'maxInflightBytes',
    env: 'TRACELAKE_MAX_INFLIGHT_BYTES',
    flag: '--max-inflight-bytes',
    fallback: `${inflightBytes}MiB`,
    parse: bytes,
    doc: 'Request body bytes held in memory at once, an OTLP body counted 4 times and an agents sync 8 times (default: a sixteenth of memory, 64 MiB to 1 GiB); a body that does not fit is answered 503 `overloaded` before it is read.',
  },
  {
    key: 'maxOtlpBodyBytes',
    env: 'TRACELAKE_MAX_OTLP_BODY',
    flag: '--max-otlp-body',
    fallback: '16MiB',
    parse: bytes,
    doc: 'Largest OTLP body as sent (compressed).',
  },
  {
    key: 'maxOtlpDecompressedBytes',
    env: 'TRACELAKE_MAX_OTLP_DECOMPRESSED',
    flag: '--max-otlp-decompressed',
    fallback: '64MiB',
    parse: bytes,
    doc: 'Largest OTLP body after decompression.',
  },
  {
    key: 'maxAgentsBodyBytes',
    env: 'TRACELAKE_MAX_AGENTS_BODY',
    flag: '--max-agents-body',
    fallback: '32MiB',
    parse: bytes,
    doc: 'Largest coding-agent sync body (sessions and base64 blobs).',
  },
  {
    key: 'maxSpansPerTrace',
    env: 'TRACELAKE_MAX_SPANS_PER_TRACE',
    flag: '--max-spans-per-trace',
    fallback: '10000',
    parse: integer(1),
    doc: 'Spans one trace may hold; more are refused through OTLP partialSuccess.',
  },
  {
    key: 'maxQueue',
    env: 'TRACELAKE_MAX_QUEUE',
    flag: '--max-queue',
    fallback: '512',
    parse: integer(1),
    doc: 'Tasks waiting for a worker before new requests get 503 `overloaded`.',
  },
  {
    key: 'maxQueueWaitMs',
    env: 'TRACELAKE_MAX_QUEUE_WAIT_MS',
    flag: '--max-queue-wait-ms',
    fallback: '10000',
    parse: integer(1),
    doc: "How long a request may wait for the store before it gets 503 `overloaded` (the server's own work waits on).",
  },
  {
    key: 'ingestBacklogBytes',
    env: 'TRACELAKE_INGEST_BACKLOG',
    flag: '--ingest-backlog',
    fallback: '256MiB',
    parse: bytes,
    doc: 'OTLP request bytes accepted but not yet in committed segments (or still being decoded) before new requests get 503 `overloaded`.',
  },
  {
    key: 'flushIntervalMs',
    env: 'TRACELAKE_FLUSH_INTERVAL_MS',
    flag: '--flush-interval-ms',
    fallback: '200',
    parse: integer(5, 60_000),
    doc: 'How long a compute worker keeps accepted spans before writing them as a segment (they are readable after).',
  },
  {
    key: 'segmentRows',
    env: 'TRACELAKE_SEGMENT_ROWS',
    flag: '--segment-rows',
    fallback: '32768',
    parse: integer(1, 10_000_000),
    doc: 'Rows a compute worker keeps at most before writing them as a segment.',
  },
  {
    key: 'dedupeSpans',
    env: 'TRACELAKE_DEDUPE_SPANS',
    flag: '--dedupe-spans',
    fallback: '1000000',
    parse: integer(1000),
    doc: 'Span ids remembered (most recently active traces first) to drop re-sent spans and hold the per-trace bound.',
  },
  {
    key: 'compactionIntervalMs',
    env: 'TRACELAKE_COMPACTION_INTERVAL_MS',
    flag: '--compaction-interval-ms',
    fallback: '5000',
    parse: integer(0),
    doc: 'How often the store looks for small segments to compact; 0 turns compaction off.',
  },
  {
    key: 'compactionRows',
    env: 'TRACELAKE_COMPACTION_ROWS',
    flag: '--compaction-rows',
    fallback: '131072',
    parse: integer(2),
    doc: 'Rows a compacted segment aims for.',
  },
  {
    key: 'traceHints',
    env: 'TRACELAKE_TRACE_HINTS',
    flag: '--trace-hints',
    fallback: String(DEFAULT_TRACE_HINT_SLOTS),
    parse: integer(0, 2 ** 28),
    doc: 'Traces whose time range the store keeps in memory (12 bytes each, rounded down to a power of two), so a trace by id reads its summary and its spans at once; 0 turns this off.',
  },
  {
    key: 'compactionAgeMs',
    env: 'TRACELAKE_COMPACTION_AGE_MS',
    flag: '--compaction-age-ms',
    fallback: '60000',
    parse: integer(0),
    doc: 'Small segments older than this are compacted even when there are few of them.',
  },
  {
    key: 'retentionDays',
    env: 'TRACELAKE_RETENTION_DAYS',
    flag: '--retention-days',
    fallback: '0',
    parse: integer(0, 36500),
    doc: 'Days spans are kept when an app sets no retention of its own; 0 keeps them forever.',
  },
  {
    key: 'queryTimeoutMs',
    env: 'TRACELAKE_QUERY_TIMEOUT_MS',
    flag: '--query-timeout-ms',
    fallback: '30000',
    parse: integer(1),
    doc: 'A query running longer is interrupted; its request answers 503 with Retry-After.',
  },
  {
    key: 'shutdownTimeoutMs',
    env: 'TRACELAKE_SHUTDOWN_TIMEOUT_MS',
    flag: '--shutdown-timeout-ms',
    fallback: '10000',
    parse: integer(0),
    doc: 'How long SIGTERM/SIGINT waits for in-flight requests.',
  },
  {
    key: 'plansFile',
    env: 'TRACELAKE_PLANS_FILE',
    flag: '--plans-file',
    fallback: undefined,
    parse: text,
    doc: 'Plans and quotas (JSON); default: data/plans.json of the installation.',
  },
  {
    key: 'rateLimit',
    env: 'TRACELAKE_RATE_LIMIT',
    flag: '--rate-limit',
    fallback: '0',
    parse: number(0),
    doc: 'Requests per second per tenant (token bucket); 0 turns rate limiting off.',
  },
  {
    key: 'rateBurst',
    env: 'TRACELAKE_RATE_BURST',
    flag: '--rate-burst',
    fallback: '100',
    parse: integer(1),
    doc: 'Requests a tenant may make at once before the rate applies.',
  },
  {
    key: 'corsOrigins',
    env: 'TRACELAKE_CORS_ORIGINS',
    flag: '--cors-origins',
    fallback: '',
    parse: corsOrigins,
    doc: 'Origins browsers may call the API and OTLP from (comma-separated, or *); empty turns CORS off.',
  },
  {
    key: 'gitRoot',
    env: 'TRACELAKE_GIT_ROOT',
    flag: '--git-root',
    fallback: undefined,
    parse: text,
    doc: "Directory of the `local` git provider: each tenant's repositories at <root>/<tenant id>/<owner>/<repo>[.git] (the first tenant's at <root>/<owner>/<repo> until <root>/<its id> exists); unset: no local repositories.",
  },
  {
    key: 'githubApiUrl',
    env: 'TRACELAKE_GITHUB_API_URL',
    flag: '--github-api-url',
    fallback: 'https://api.github.com',
    parse: httpUrl,
    doc: 'REST API of the `github` git provider (GitHub Enterprise: https://<host>/api/v3).',
  },
  {
    key: 'publicUrl',
    env: 'TRACELAKE_PUBLIC_URL',
    flag: '--public-url',
    fallback: undefined,
    parse: httpUrl,
    doc: 'Address humans reach this server at, for the links of git handshakes; unset: http://<Host header of the request>.',
  },
  {
    key: 'workerLeaseSeconds',
    env: 'TRACELAKE_WORKER_LEASE_SECONDS',
    flag: '--worker-lease-seconds',
    fallback: '30',
    parse: integer(1, 3600),
    doc: 'How long a worker holds a turn without a heartbeat; an expired lease puts the turn back in the queue (or fails it, below).',
  },
  {
    key: 'workerMaxAttempts',
    env: 'TRACELAKE_WORKER_MAX_ATTEMPTS',
    flag: '--worker-max-attempts',
    fallback: '3',
    parse: integer(1, 100),
    doc: 'Leases a worker turn may lose (a worker killed or cut off) before it fails instead of being queued again.',
  },
  {
    key: 'metricsListen',
    env: 'TRACELAKE_METRICS_LISTEN',
    flag: '--metrics-listen',
    fallback: 'off',
    parse: metricsListen,
    doc: 'Where GET /metrics (Prometheus text, unauthenticated) is served: off, a port or host:port of its own (a bare port is on 127.0.0.1; 0 picks one), or api (on the API port).',
  },
  {
    key: 'logLevel',
    env: 'TRACELAKE_LOG_LEVEL',
    flag: '--log-level',
    fallback: 'info',
    parse: oneOf('trace', 'debug', 'info', 'warn', 'error', 'fatal', 'silent'),
    doc: 'Log level (JSON lines on stdout).',
  },
  {
    key: 'allowNewStore',
    env: 'TRACELAKE_ALLOW_NEW_STORE',
    flag: '--allow-new-store',
    fallback: 'off',
    parse: onOff,
    doc: 'Start a new, empty store in a data directory whose secret survives but whose database file is gone (otherwise the start is refused: the database was most likely lost).',
  },
  {
    key: 'faultInjection',
    env: 'TRACELAKE_FAULT_INJECTION',
    flag: '--fault-injection',
    fallback: 'off',
    parse: onOff,
    doc: 'Test only: adds `/v1/_faults/*` routes that fail or stall on purpose. Never enable in production.',
  },
] as const satisfies readonly Option<keyof Config>[];

/** The flags `loadConfig` reads; a later one wins, so settings may be appended to a command line. */
const FLAGS = { strings: OPTIONS.map((o) => o.flag.slice(2)), repeats: 'last wins' } as const;

/**
 * Reads the configuration from environment variables and `--flag value` / `--flag=value` arguments.
 * Throws a UsageError naming the option on an unknown flag or a bad value.
 */
export function loadConfig(env: Record<string, string | undefined>, argv: readonly string[]): Config {
  const fromFlags = parseFlags(argv, FLAGS).values;
  const config: Partial<Record<keyof Config, unknown>> = {};
  for (const o of OPTIONS as readonly Option<keyof Config>[]) {
    const raw = fromFlags.get(o.flag.slice(2)) ?? nonEmpty(env[o.env]) ?? o.fallback;
    try {
      config[o.key] = raw === undefined ? undefined : o.parse(raw);
    } catch (e) {
      throw new UsageError(`${o.env} / ${o.flag}: ${(e as Error).message}`, o.flag.slice(2));
    }
  }
  return config as Config;
}

function nonEmpty(v: string | undefined): string | undefined {
  return v === undefined || v === '' ? undefined : v;
}

/** The settings table `tracelake --help` prints: every option, its variable, flag, default and meaning. */
export function settingsHelp(): string {
  const lines = OPTIONS.map(
    (o) =>
      `  ${o.flag.padEnd(28)} ${o.env.padEnd(34)} ${(o.fallback === undefined ? '(unset)' : o.fallback === '' ? '(empty)' : o.fallback).padEnd(12)} ${o.doc}`,
  );
  return [
    'Usage: tracelake serve [--flag value ...]   (or npm start -- [--flag value ...])',
    '',
    'Settings (a flag wins over its environment variable):',
    `  ${'flag'.padEnd(28)} ${'environment variable'.padEnd(34)} ${'default'.padEnd(12)} meaning`,
    ...lines,
    '',
    'Operator commands (tenants, apps, keys, tokens): tracelake help',
    '',
  ].join('\n');
}
