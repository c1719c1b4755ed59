/**
 * PostgreSQL baseline: spans stored the way Arize Phoenix (in production) and Langfuse v2 store
 * them, one row per span with the attributes as JSONB, in a throw-away server started here.
 *
 * The server: Debian's PostgreSQL (`apt-get install -y postgresql` when no initdb/postgres binaries
 * are found under /usr/lib/postgresql/<version>/bin), initdb'd into a temporary directory, run as the
 * `postgres` user on 127.0.0.1 and a free port, with its unix socket in the same directory; stopped
 * and removed by `close()`, and also when the process exits or is interrupted. Settings: durable
 * (fsync, synchronous_commit, full_page_writes all on — a commit returns once its WAL is flushed,
 * like Tracelake's ack), sized for this 24 GiB machine like a production install would be
 * (shared_buffers 2GB, effective_cache_size 12GB, work_mem 64MB, maintenance_work_mem 1GB,
 * max_wal_size 4GB, random_page_cost 1.1 for SSDs); everything else is PostgreSQL's default
 * (parallel query with 2 workers, JIT on).
 *
 * The schema (PG_SCHEMA):
 * - `spans`: Phoenix's `spans` and Langfuse v2's `observations` merged (see SPAN_COLUMNS): times as
 *   timestamptz, model/tokens/cost as columns, attributes/events/metadata as JSONB. B-tree indexes
 *   on trace_id and start_time, GIN (default jsonb_ops) on attributes and on metadata, and the
 *   primary key on span_id (Phoenix: unique span_id; Langfuse v2: observation id primary key).
 * - `traces`: Phoenix's approach — a row per trace with start_time/end_time, upserted with
 *   LEAST/GREATEST as spans arrive (Langfuse v2 also keeps a trace row with a timestamp to list and
 *   sort by), and its session (Langfuse v2's indexed `traces.session_id`; Phoenix points the trace
 *   at an indexed session row): a session's traces are found through that index; the other rollups (root name, status, cost, tokens, span count) are computed at query
 *   time from the trace's spans through the trace_id index, as Phoenix (root span + aggregates) and
 *   Langfuse v2 (its trace/observation views) both do. Keeping full rollups in the table would need
 *   a read-modify-write per trace on every ingest, which neither does.
 * - `scores`: Langfuse v2's `scores` (name, value float8, source, data_type, timestamp, trace_id),
 *   with its B-tree indexes on timestamp, trace_id and name.
 *
 * Loading: every 512-span export batch is one transaction on one of 4 connections —
 * `COPY spans FROM STDIN` (pg-copy-streams) and the traces upsert, then COMMIT (durable). The rows are
 * rendered to a file first (untimed); the timed part streams that file through the 4 connections
 * without pauses, so that the server's background work (WAL writer, checkpoints, autovacuum) runs
 * inside the measured time. Then (untimed) the scores in one COPY, VACUUM ANALYZE, and the sizes.
 *
 * Queries (PG_SQL) run on a fifth connection as unnamed statements, so each is planned with its
 * actual parameters (see `preparedStatements` for why not prepared ones). The export of a day is
 * `COPY (SELECT …) TO STDOUT (FORMAT binary)` streamed to the client and discarded (COPY takes no
 * parameters: the window's bounds are written into the statement as literals).
 */
import { spawnSync } from 'node:child_process';
import {
  chownSync,
  closeSync,
  createReadStream,
  existsSync,
  mkdirSync,
  mkdtempSync,
  openSync,
  readdirSync,
  rmSync,
  writeSync,
  appendFileSync,
  readFileSync,
} from 'node:fs';
import { open } from 'node:fs/promises';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { finished, pipeline } from 'node:stream/promises';
import type { Client, CustomTypesConfig } from 'pg';
import { benchDependency } from './benchDependency.js';
import type { DatasetBatch } from './dataset.js';
import {
  dayIso,
  EXPORT_COLUMNS,
  exportWindow,
  FULL_COLUMNS,
  metricsByDay,
  METADATA_FILTER,
  PAGE_SIZE,
  SPAN_COLUMNS,
  SPAN_SEARCH,
  SUMMARY_COLUMNS,
  spanValues,
  toFullSpan,
  toScoreAggregate,
  toSpanSummary,
  toTraceSummary,
  traceRollups,
  windows,
  type Answers,
  type Conv,
  type LoadResult,
  type PeerStore,
  type QueryFns,
  type QueryParams,
} from './common.js';

const pg = benchDependency<typeof import('pg')>('pg');
const { from: copyFrom, to: copyTo } = benchDependency<typeof import('pg-copy-streams')>('pg-copy-streams');

export const PG_SCHEMA = `
CREATE TABLE spans (
  span_id        text PRIMARY KEY,
  trace_id       text NOT NULL,
  parent_id      text,
  name           text NOT NULL,
  span_type      text NOT NULL,          -- SPAN | GENERATION | EVENT (Langfuse v2 observation type)
  span_kind      text NOT NULL,          -- llm, tool, agent, retrieval, ... (Phoenix span_kind)
  status_code    text NOT NULL,          -- OK | ERROR | UNSET (Phoenix status_code)
  status_message text,
  start_time     timestamptz NOT NULL,
  end_time       timestamptz NOT NULL,
  model          text,
  input_tokens   integer,
  output_tokens  integer,
  total_tokens   integer,
  cost           double precision,
  input          text,
  output         text,
  attributes     jsonb NOT NULL,
  events         jsonb NOT NULL DEFAULT '[]',
  metadata       jsonb NOT NULL,
  session_id     text,
  user_id        text
);
CREATE INDEX spans_trace_id ON spans (trace_id);
CREATE INDEX spans_start_time ON spans (start_time);
CREATE INDEX spans_attributes ON spans USING gin (attributes);
CREATE INDEX spans_metadata ON spans USING gin (metadata);

CREATE TABLE traces (
  trace_id   text PRIMARY KEY,
  start_time timestamptz NOT NULL,
  end_time   timestamptz NOT NULL,
  session_id text
);
CREATE INDEX traces_start_time ON traces (start_time);
CREATE INDEX traces_session_id ON traces (session_id);

CREATE TABLE scores (
  id          uuid PRIMARY KEY,
  trace_id    text NOT NULL,
  name        text NOT NULL,
  value       double precision NOT NULL,
  source      text NOT NULL,
  data_type   text NOT NULL,
  "timestamp" timestamptz NOT NULL
);
CREATE INDEX scores_timestamp ON scores ("timestamp");
CREATE INDEX scores_trace_id ON scores (trace_id);
CREATE INDEX scores_name ON scores (name);
`;

/** Every statement of the baseline, in one place. Times are bound as ISO 8601 text. */
export const PG_SQL = {
  copySpans: `COPY spans (${SPAN_COLUMNS.join(', ')}) FROM STDIN`,
  upsertTraces: `INSERT INTO traces (trace_id, start_time, end_time, session_id)
     SELECT * FROM unnest($1::text[], $2::timestamptz[], $3::timestamptz[], $4::text[])
     ON CONFLICT (trace_id) DO UPDATE
       SET start_time = LEAST(traces.start_time, EXCLUDED.start_time), end_time = GREATEST(traces.end_time, EXCLUDED.end_time),
           session_id = coalesce(traces.session_id, EXCLUDED.session_id)`,
  copyScores: `COPY scores (id, trace_id, name, value, source, data_type, "timestamp") FROM STDIN`,

  /** The 50 newest traces started in [$1, $2), their rollups from their spans. */
  latestTraces: withRollups(
    `SELECT trace_id, start_time, end_time FROM traces
      WHERE start_time >= $1 AND start_time < $2
      ORDER BY start_time DESC, trace_id DESC
      LIMIT ${PAGE_SIZE}`,
    't.start_time DESC, t.trace_id DESC',
  ),
  latestTracesTotal: `SELECT count(*) AS total FROM traces WHERE start_time >= $1 AND start_time < $2`,

  /** The 50 newest traces of session $1 (through the traces' session index), their rollups. */
  sessionById: withRollups(
    `SELECT trace_id, start_time, end_time FROM traces
      WHERE session_id = $1
      ORDER BY start_time DESC, trace_id
      LIMIT ${PAGE_SIZE}`,
    't.start_time DESC, t.trace_id',
  ),
  sessionByIdTotal: `SELECT count(*) AS total FROM traces WHERE session_id = $1`,

  /** Cost and tokens of the spans in [$1, $2) by UTC day (index since the epoch) and model. */
  metricsUsage: `
    SELECT floor(extract(epoch FROM start_time) / 86400)::int8 AS day, model,
           coalesce(sum(cost), 0) AS cost, coalesce(sum(total_tokens), 0)::int8 AS tokens
      FROM spans
     WHERE start_time >= $1 AND start_time < $2
     GROUP BY 1, 2`,
  /** Latency (ms) p50 and p95 of the generations in [$1, $2) by UTC day, interpolated as DuckDB's quantile_cont. */
  metricsLatency: `
    SELECT floor(extract(epoch FROM start_time) / 86400)::int8 AS day,
           percentile_cont(ARRAY[0.5, 0.95]) WITHIN GROUP (ORDER BY (extract(epoch FROM end_time - start_time) * 1000)::float8) AS p
      FROM spans
     WHERE start_time >= $1 AND start_time < $2 AND span_type = 'GENERATION'
     GROUP BY 1`,

  /** Spans in [$1, $2) with model = $3, total_tokens > $4, status = $5. */
  spanSearch: `
    SELECT ${SUMMARY_COLUMNS} FROM spans
     WHERE start_time >= $1 AND start_time < $2 AND model = $3 AND total_tokens > $4 AND status_code = $5
     ORDER BY start_time DESC, trace_id, span_id
     LIMIT ${PAGE_SIZE}`,
  spanSearchTotal: `
    SELECT count(*) AS total FROM spans
     WHERE start_time >= $1 AND start_time < $2 AND model = $3 AND total_tokens > $4 AND status_code = $5`,

  traceById: `SELECT ${FULL_COLUMNS} FROM spans WHERE trace_id = $1 ORDER BY start_time, span_id`,

  /** Spans in [$1, $2) whose metadata contains $3 (a one-key object: the GIN index answers it). */
  metadataFilter: `
    SELECT ${SUMMARY_COLUMNS} FROM spans
     WHERE start_time >= $1 AND start_time < $2 AND metadata @> $3::jsonb
     ORDER BY start_time DESC, trace_id, span_id
     LIMIT ${PAGE_SIZE}`,
  metadataFilterTotal: `SELECT count(*) AS total FROM spans WHERE start_time >= $1 AND start_time < $2 AND metadata @> $3::jsonb`,

  scoreAggregation: `
    SELECT name, count(*) AS count, avg(value) AS avg, min(value) AS min, max(value) AS max
      FROM scores
     WHERE "timestamp" >= $1 AND "timestamp" < $2 AND data_type = 'NUMERIC'
     GROUP BY name ORDER BY name`,
} as const;

/**
 * A page of traces (`traces` rows picked by `page`) with the rollups both peers compute per query:
 * root span name, status, cost, tokens and span count from the trace's spans.
 */
function withRollups(page: string, order: string): string {
  return `
    SELECT t.trace_id, t.start_time, t.end_time, root.name,
           agg.any_error, agg.any_ok, agg.cost, agg.tokens, agg.span_count
      FROM (${page}) t
     CROSS JOIN LATERAL (
           SELECT bool_or(s.status_code = 'ERROR') AS any_error, bool_or(s.status_code = 'OK') AS any_ok,
                  sum(s.cost) AS cost, sum(s.total_tokens) AS tokens,
                  count(*) FILTER (WHERE s.span_type <> 'EVENT') AS span_count
             FROM spans s WHERE s.trace_id = t.trace_id) agg
      LEFT JOIN LATERAL (
           SELECT s.name FROM spans s WHERE s.trace_id = t.trace_id
            ORDER BY s.parent_id IS NOT NULL, s.start_time, s.span_id LIMIT 1) root ON true
     ORDER BY ${order}`;
}

/** The day's spans in the export's columns and order, as a binary COPY (literal bounds: COPY takes no parameters). */
export const exportDaySql = (fromUs: number, toUs: number): string =>
  `COPY (SELECT ${EXPORT_COLUMNS} FROM spans
          WHERE start_time >= '${usToIso(fromUs)}' AND start_time < '${usToIso(toUs)}'
          ORDER BY start_time DESC, trace_id, span_id) TO STDOUT (FORMAT binary)`;

export const PG_SETTINGS: Record<string, string> = {
  fsync: 'on',
  synchronous_commit: 'on',
  full_page_writes: 'on',
  shared_buffers: '2GB',
  effective_cache_size: '12GB',
  work_mem: '64MB',
  maintenance_work_mem: '1GB',
  max_wal_size: '4GB',
  random_page_cost: '1.1',
  timezone: "'UTC'",
  listen_addresses: "'127.0.0.1'",
  logging_collector: 'off',
};

export interface PostgresOptions {
  /** Connections that load in parallel (default 4). */
  connections?: number;
  /** Run the queries as named prepared statements (generic plans after 5 runs); default false. */
  preparedStatements?: boolean;
  /** Settings over PG_SETTINGS (values as in postgresql.conf). */
  settings?: Record<string, string>;
  log?: (line: string) => void;
}

// ---------------------------------------------------------------------------------------------
// The server
// ---------------------------------------------------------------------------------------------

function findBinDir(): string | undefined {
  const root = '/usr/lib/postgresql';
  if (!existsSync(root)) return undefined;
  const versions = readdirSync(root)
    .filter((v) => /^\d+$/.test(v))
    .sort((a, b) => Number(b) - Number(a));
  for (const v of versions) {
    const bin = join(root, v, 'bin');
    if (['initdb', 'postgres', 'pg_ctl'].every((f) => existsSync(join(bin, f)))) return bin;
  }
  return undefined;
}

/** The binaries' directory, installing Debian's `postgresql` package first when there is none. */
export function ensurePostgresInstalled(log: (line: string) => void = console.log): string {
  const found = findBinDir();
  if (found) return found;
  log('postgres: no initdb/postgres under /usr/lib/postgresql/*/bin; apt-get install -y postgresql');
  const env = { ...process.env, DEBIAN_FRONTEND: 'noninteractive' };
  let r = spawnSync('apt-get', ['install', '-y', 'postgresql'], { stdio: 'inherit', env });
  if (r.status !== 0) {
    spawnSync('apt-get', ['update'], { stdio: 'inherit', env });
    r = spawnSync('apt-get', ['install', '-y', 'postgresql'], { stdio: 'inherit', env });
  }
  const bin = findBinDir();
  if (r.status !== 0 || !bin) throw new Error('postgres: apt-get install -y postgresql failed');
  return bin;
}

const asRoot = typeof process.getuid === 'function' && process.getuid() === 0;

/** Runs a PostgreSQL binary as the `postgres` user (as ourselves when we are not root). */
function runPg(bin: string, tool: string, args: string[], timeoutMs = 300_000) {
  const [cmd, argv] = asRoot
    ? ['runuser', ['-u', 'postgres', '--', join(bin, tool), ...args]]
    : [join(bin, tool), args];
  const r = spawnSync(cmd, argv, { encoding: 'utf8', timeout: timeoutMs });
  if (r.status !== 0)
    throw new Error(
      `${tool} ${args.join(' ')} failed (${r.status ?? r.signal}): ${r.stderr || r.stdout || r.error?.message}`,
    );
  return r.stdout;
}

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = createServer();
    srv.once('error', reject);
    srv.listen(0, '127.0.0.1', () => {
      const port = (srv.address() as { port: number }).port;
      srv.close(() => resolve(port));
    });
  });
}

interface Server {
  bin: string;
  dir: string;
  data: string;
  port: number;
  running: boolean;
}

const live = new Set<Server>();
let hooksInstalled = false;

/** Stops and removes a server synchronously (process exit, signals, failures). */
function stopSync(s: Server, mode: 'fast' | 'immediate'): void {
  if (s.running) {
    try {
      runPg(s.bin, 'pg_ctl', ['-D', s.data, '-m', mode, '-w', '-t', '120', 'stop'], 150_000);
    } catch (err) {
      process.stderr.write(`postgres: stop failed: ${(err as Error).message}\n`);
    }
    s.running = false;
  }
  rmSync(s.dir, { recursive: true, force: true });
  live.delete(s);
}

function installHooks(): void {
  if (hooksInstalled) return;
  hooksInstalled = true;
  process.on('exit', () => {
    for (const s of [...live]) stopSync(s, 'immediate');
  });
  for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP'] as const) {
    const onSignal = () => {
      for (const s of [...live]) stopSync(s, 'immediate');
      process.removeListener(signal, onSignal);
      if (process.listenerCount(signal) === 0) process.kill(process.pid, signal);
    };
    process.on(signal, onSignal);
  }
}

async function startServer(settings: Record<string, string>, log: (line: string) => void): Promise<Server> {
  const bin = ensurePostgresInstalled(log);
  const dir = mkdtempSync(join(tmpdir(), 'tracelake-peer-pg-'));
  const server: Server = { bin, dir, data: join(dir, 'data'), port: await freePort(), running: false };
  live.add(server);
  installHooks();
  try {
    const sock = join(dir, 'sock');
    mkdirSync(sock);
    if (asRoot) {
      const uid = Number(spawnSync('id', ['-u', 'postgres'], { encoding: 'utf8' }).stdout.trim());
      const gid = Number(spawnSync('id', ['-g', 'postgres'], { encoding: 'utf8' }).stdout.trim());
      if (!Number.isInteger(uid) || !Number.isInteger(gid)) throw new Error('postgres: no `postgres` user');
      chownSync(dir, uid, gid);
      chownSync(sock, uid, gid);
    }
    runPg(bin, 'initdb', ['-D', server.data, '-U', 'postgres', '-A', 'trust', '-E', 'UTF8', '--locale=C']);
    const conf = { ...settings, port: String(server.port), unix_socket_directories: `'${sock}'` };
    appendFileSync(
      join(server.data, 'postgresql.conf'),
      `\n# tracelake native-bench peer baseline\n${Object.entries(conf)
        .map(([k, v]) => `${k} = ${v}`)
        .join('\n')}\n`,
    );
    server.running = true; // from here on, stopping is attempted even if the start fails half-way
    runPg(bin, 'pg_ctl', ['-D', server.data, '-l', join(dir, 'server.log'), '-w', '-t', '120', 'start']);
    log(
      `postgres: ${runPg(bin, 'postgres', ['--version']).trim()} on 127.0.0.1:${server.port}, data in ${server.data}`,
    );
    return server;
  } catch (err) {
    const logFile = join(dir, 'server.log');
    if (existsSync(logFile)) process.stderr.write(readFileSync(logFile, 'utf8').slice(-4000));
    stopSync(server, 'immediate');
    throw err;
  }
}

// ---------------------------------------------------------------------------------------------
// Values
// ---------------------------------------------------------------------------------------------

/** Microseconds → ISO 8601 with 6 fractional digits (`2026-11-21T10:00:00.123456Z`). */
export function usToIso(us: number): string {
  const ms = Math.floor(us / 1000);
  return `${new Date(ms).toISOString().slice(0, 23)}${String(us - ms * 1000).padStart(3, '0')}Z`;
}

/** timestamptz text as PostgreSQL prints it with TimeZone UTC (`2026-11-21 10:00:00.1234+00`) → microseconds. */
export function pgTimeToUs(text: string): number {
  const m = /^(\d{4}-\d\d-\d\d) (\d\d:\d\d:\d\d)(?:\.(\d{1,6}))?\+00$/.exec(text);
  if (!m) throw new Error(`unexpected timestamptz text: ${text}`);
  return Date.parse(`${m[1]}T${m[2]}Z`) * 1000 + Number((m[3] ?? '').padEnd(6, '0'));
}

const conv: Conv = { time: (v) => pgTimeToUs(v as string), json: (v) => v };

/** timestamptz stays text (microseconds survive; a Date keeps milliseconds only); int8 becomes a number. */
const types = {
  getTypeParser: ((oid: number, format?: 'text' | 'binary') => {
    if (oid === 1184) return (v: string) => v;
    if (oid === 20) return (v: string) => Number(v);
    return pg.types.getTypeParser(oid, format as 'text');
  }) as CustomTypesConfig['getTypeParser'],
};

/** COPY text format: backslash, newline, carriage return and tab escaped; \N for NULL. */
function copyField(v: string | number | null): string {
  if (v === null) return '\\N';
  if (typeof v === 'number') return String(v);
  return /[\\\n\r\t]/.test(v)
    ? v.replace(/[\\\n\r\t]/g, (c) => (c === '\\' ? '\\\\' : c === '\n' ? '\\n' : c === '\r' ? '\\r' : '\\t'))
    : v;
}

function spansCopyText(batch: DatasetBatch): string {
  let out = '';
  for (const s of batch.spans) {
    const v: (string | number | null)[] = spanValues(s);
    v[8] = usToIso(v[8] as number);
    v[9] = usToIso(v[9] as number);
    out += v.map(copyField).join('\t') + '\n';
  }
  return out;
}

function scoresCopyText(batch: DatasetBatch): string {
  let out = '';
  for (const s of batch.scores)
    out += `${s.id}\t${copyField(s.traceId)}\t${copyField(s.name)}\t${s.value}\t${copyField(s.source)}\t${s.dataType}\t${usToIso(s.timestampUs)}\n`;
  return out;
}

/** A PostgreSQL array literal of values that need no quoting (hex ids, ISO times, the dataset's session ids); null as NULL. */
const arrayLiteral = (xs: (string | null)[]) => `{${xs.map((x) => x ?? 'NULL').join(',')}}`;

// ---------------------------------------------------------------------------------------------
// The store
// ---------------------------------------------------------------------------------------------

interface Frame {
  offset: number;
  spans: number;
  lengths: [spans: number, ids: number, starts: number, ends: number, sessions: number];
}

export class PostgresPeer implements PeerStore {
  readonly name = 'PostgreSQL';
  readonly queries: QueryFns;
  private closed = false;

  private constructor(
    private readonly server: Server,
    private readonly query: Client,
    private readonly options: Required<Pick<PostgresOptions, 'connections' | 'preparedStatements'>> & {
      log: (line: string) => void;
    },
  ) {
    const q = query;
    // Unnamed statements by default: planned with the actual parameters at every execution. Named
    // (prepared) ones switch to a generic plan after 5 executions, which for these time windows
    // guesses a narrow range and picks index scans that read the whole table in index order.
    const named = (name: string) => (options.preparedStatements ? { name } : {});
    this.queries = {
      latestTraces: async (p) => {
        const { day } = windows(p);
        const args = [usToIso(day.fromUs), usToIso(day.toUs)];
        const page = await q.query({ ...named('latestTraces'), text: PG_SQL.latestTraces, values: args });
        const total = await q.query({ ...named('latestTracesTotal'), text: PG_SQL.latestTracesTotal, values: args });
        return { total: Number(total.rows[0].total), traces: page.rows.map((r) => toTraceSummary(r, conv)) };
      },
      spanSearch: async (p) => {
        const { week } = windows(p);
        const args = [
          usToIso(week.fromUs),
          usToIso(week.toUs),
          SPAN_SEARCH.model,
          SPAN_SEARCH.minTokens,
          SPAN_SEARCH.status,
        ];
        const page = await q.query({ ...named('spanSearch'), text: PG_SQL.spanSearch, values: args });
        const total = await q.query({ ...named('spanSearchTotal'), text: PG_SQL.spanSearchTotal, values: args });
        return { total: Number(total.rows[0].total), spans: page.rows.map((r) => toSpanSummary(r, conv)) };
      },
      traceById: async (p) => {
        const r = await q.query({ ...named('traceById'), text: PG_SQL.traceById, values: [p.traceId] });
        return { trace_id: p.traceId, spans: r.rows.map((row) => toFullSpan(row, conv)) };
      },
      metadataFilter: async (p) => {
        const { week } = windows(p);
        const args = [
          usToIso(week.fromUs),
          usToIso(week.toUs),
          JSON.stringify({ [METADATA_FILTER.key]: METADATA_FILTER.value }),
        ];
        const page = await q.query({ ...named('metadataFilter'), text: PG_SQL.metadataFilter, values: args });
        const total = await q.query({
          ...named('metadataFilterTotal'),
          text: PG_SQL.metadataFilterTotal,
          values: args,
        });
        return { total: Number(total.rows[0].total), spans: page.rows.map((r) => toSpanSummary(r, conv)) };
      },
      scoreAggregation: async (p) => {
        const { month } = windows(p);
        const r = await q.query({
          ...named('scoreAggregation'),
          text: PG_SQL.scoreAggregation,
          values: [usToIso(month.fromUs), usToIso(month.toUs)],
        });
        return r.rows.map(toScoreAggregate);
      },
      sessionById: async (p) => {
        const page = await q.query({ ...named('sessionById'), text: PG_SQL.sessionById, values: [p.sessionId] });
        const total = await q.query({
          ...named('sessionByIdTotal'),
          text: PG_SQL.sessionByIdTotal,
          values: [p.sessionId],
        });
        return {
          session_id: p.sessionId,
          total: Number(total.rows[0].total),
          traces: page.rows.map((r) => toTraceSummary(r, conv)),
        };
      },
      metricsByDay: async (p) => {
        const { month } = windows(p);
        const args = [usToIso(month.fromUs), usToIso(month.toUs)];
        const usage = await q.query({ ...named('metricsUsage'), text: PG_SQL.metricsUsage, values: args });
        const latency = await q.query({ ...named('metricsLatency'), text: PG_SQL.metricsLatency, values: args });
        return metricsByDay(
          usage.rows.map((r) => ({
            day: dayIso(Number(r.day)),
            model: r.model ?? null,
            cost: Number(r.cost),
            tokens: Number(r.tokens),
          })),
          latency.rows.map((r) => ({ day: dayIso(Number(r.day)), p50: Number(r.p[0]), p95: Number(r.p[1]) })),
        );
      },
      exportDay: async (p) => {
        const w = exportWindow(p);
        const stream = q.query(copyTo(exportDaySql(w.fromUs, w.toUs)));
        stream.resume(); // streamed and discarded, as a client writing it elsewhere would
        await finished(stream);
        return { rows: stream.rowCount };
      },
    } satisfies { [K in keyof Answers]: (p: QueryParams) => Promise<Answers[K]> };
  }

  /** Starts a fresh server, creates the schema and opens the query connection. */
  static async start(options: PostgresOptions = {}): Promise<PostgresPeer> {
    const log = options.log ?? console.log;
    const server = await startServer({ ...PG_SETTINGS, ...options.settings }, log);
    try {
      const client = await PostgresPeer.connect(server);
      await client.query(PG_SCHEMA);
      return new PostgresPeer(server, client, {
        connections: options.connections ?? 4,
        preparedStatements: options.preparedStatements ?? false,
        log,
      });
    } catch (err) {
      stopSync(server, 'immediate');
      throw err;
    }
  }

  private static async connect(server: Server): Promise<Client> {
    const client = new pg.Client({
      host: '127.0.0.1',
      port: server.port,
      user: 'postgres',
      database: 'postgres',
      types,
    });
    await client.connect();
    return client;
  }

  async load(batches: Iterable<DatasetBatch>, log: (line: string) => void = this.options.log): Promise<LoadResult> {
    const settings = await this.query.query(
      `SELECT name, setting FROM pg_settings WHERE name IN ('fsync', 'synchronous_commit', 'full_page_writes', 'shared_buffers', 'wal_level') ORDER BY name`,
    );
    log(`postgres: ${settings.rows.map((r: { name: string; setting: string }) => `${r.name}=${r.setting}`).join(' ')}`);

    // 1. Render the rows (untimed): span COPY text and trace upserts per batch, scores to their own file.
    const rendered = join(this.server.dir, 'load.bin');
    const scoresFile = join(this.server.dir, 'scores.copy');
    const frames: Frame[] = [];
    let spans = 0;
    let scores = 0;
    const renderStarted = performance.now();
    {
      const fd = openSync(rendered, 'w');
      const sfd = openSync(scoresFile, 'w');
      try {
        let offset = 0;
        for (const batch of batches) {
          const roll = traceRollups(batch);
          const parts = [
            spansCopyText(batch),
            arrayLiteral(roll.ids),
            arrayLiteral(roll.startUs.map(usToIso)),
            arrayLiteral(roll.endUs.map(usToIso)),
            arrayLiteral(roll.sessionIds),
          ].map((t) => Buffer.from(t));
          for (const b of parts) writeSync(fd, b);
          const lengths = parts.map((b) => b.length) as Frame['lengths'];
          frames.push({ offset, spans: batch.spans.length, lengths });
          offset += lengths.reduce((a, b) => a + b, 0);
          writeSync(sfd, scoresCopyText(batch));
          spans += batch.spans.length;
          scores += batch.scores.length;
        }
      } finally {
        closeSync(fd);
        closeSync(sfd);
      }
    }
    log(
      `postgres: rendered ${spans.toLocaleString('en-US')} spans in ${frames.length} batches in ${((performance.now() - renderStarted) / 1000).toFixed(1)} s (untimed)`,
    );

    // 2. Timed: each batch one durable transaction, on `connections` connections in parallel.
    const clients = await Promise.all(
      Array.from({ length: this.options.connections }, () => PostgresPeer.connect(this.server)),
    );
    const fh = await open(rendered, 'r');
    let next = 0;
    let failed: unknown;
    let done = 0;
    const tick = Math.max(1, Math.floor(frames.length / 10));
    const started = performance.now();
    try {
      await Promise.all(
        clients.map(async (c) => {
          while (failed === undefined && next < frames.length) {
            const f = frames[next++]!;
            const buf = Buffer.allocUnsafe(f.lengths.reduce((a, b) => a + b, 0));
            await fh.read(buf, 0, buf.length, f.offset);
            let at = 0;
            const [spanText, ids, starts, ends, sessions] = f.lengths.map((n) => buf.subarray(at, (at += n)));
            try {
              await c.query('BEGIN');
              await pipeline(Readable.from([spanText!]), c.query(copyFrom(PG_SQL.copySpans)));
              await c.query({
                name: 'upsertTraces',
                text: PG_SQL.upsertTraces,
                values: [ids!.toString(), starts!.toString(), ends!.toString(), sessions!.toString()],
              });
              await c.query('COMMIT');
            } catch (err) {
              failed ??= err;
              throw err;
            }
            if (++done % tick === 0)
              log(`postgres: ${done}/${frames.length} batches, ${((performance.now() - started) / 1000).toFixed(1)} s`);
          }
        }),
      );
    } finally {
      await fh.close();
      await Promise.all(clients.map((c) => c.end().catch(() => {})));
    }
    const ingestSeconds = (performance.now() - started) / 1000;
    rmSync(rendered, { force: true });

    // 3. Untimed: the scores, then settle (VACUUM ANALYZE, as autovacuum would eventually) and measure.
    await pipeline(createReadStream(scoresFile), this.query.query(copyFrom(PG_SQL.copyScores)));
    rmSync(scoresFile, { force: true });
    const settleStarted = performance.now();
    await this.query.query('VACUUM ANALYZE');
    await this.query.query('CHECKPOINT');
    const settleSeconds = (performance.now() - settleStarted) / 1000;
    const size = await this.query.query(
      `SELECT pg_total_relation_size('spans') + pg_total_relation_size('traces') AS span_bytes, pg_total_relation_size('scores') AS score_bytes,
              (SELECT count(*) FROM spans) AS spans, (SELECT count(*) FROM scores) AS scores`,
    );
    const row = size.rows[0] as { span_bytes: number; score_bytes: number; spans: number; scores: number };
    if (Number(row.spans) !== spans || Number(row.scores) !== scores)
      throw new Error(`postgres: stored ${row.spans} spans and ${row.scores} scores, sent ${spans} and ${scores}`);
    const spanBytes = Number(row.span_bytes);
    return {
      spans,
      scores,
      ingestSeconds,
      spansPerSecond: spans / ingestSeconds,
      settleSeconds,
      spanBytes,
      bytesPerSpan: spanBytes / spans,
      scoreBytes: Number(row.score_bytes),
    };
  }

  /** Runs EXPLAIN (ANALYZE, BUFFERS) of one of PG_SQL's statements (for looking into a figure). */
  async explain(statement: keyof typeof PG_SQL, values: unknown[]): Promise<string> {
    const r = await this.query.query(`EXPLAIN (ANALYZE, BUFFERS) ${PG_SQL[statement]}`, values);
    return r.rows.map((x: Record<string, string>) => x['QUERY PLAN']).join('\n');
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    await this.query.end().catch(() => {});
    stopSync(this.server, 'fast');
  }
}

/** Starts a PostgreSQL baseline (a fresh temporary server with the schema). */
export const startPostgres = (options?: PostgresOptions): Promise<PostgresPeer> => PostgresPeer.start(options);
