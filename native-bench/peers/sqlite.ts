/**
 * SQLite baseline: the PostgreSQL baseline's design (see postgres.ts) in SQLite, as Arize Phoenix
 * runs by default: one file, WAL mode, JSON kept as text and read with json_extract.
 *
 * Which SQLite: `better-sqlite3` 12.9.0 (SQLite 3.53.0), in this process on Node 20, a dependency of
 * native-bench/package.json only. Its prebuilt binary cannot be downloaded here, so its install (the
 * first `npm run bench:peers` of a checkout) compiles it from the bundled SQLite source with the
 * machine's g++/python (about a minute of one core; the node machine kind ships that toolchain for
 * node-gyp). The other candidate, the registry's `node@22`
 * package (22.23.3, SQLite 3.51.3) running `node:sqlite` in a child process, was tried and measured
 * with the same micro-benchmark (300k rows, WAL, FULL, 5000-row transactions): the same speed within
 * noise — inserts 59k–75k rows/s for node:sqlite against 61k–64k for better-sqlite3, a json_extract
 * scan 82–135 ms against 82–96 ms, a 50-row page ~0.1 ms for both. But it is a 185 MB runtime whose
 * `bin/node` would shadow Node 20 in every npm script of the project (node_modules/.bin comes first
 * on their PATH), `node:sqlite` is still experimental in 22, and every query would cross a process
 * boundary. better-sqlite3 is also what Node applications on SQLite use.
 *
 * Durability: `journal_mode=WAL`, `synchronous=FULL`. FULL syncs the WAL at every commit, so a
 * committed batch survives a power cut — the same promise as Tracelake's ack and the Postgres
 * baseline's synchronous_commit. NORMAL (the usual WAL pairing) syncs only at checkpoints: still
 * consistent, but the last commits can be lost, so it would measure a weaker promise
 * (`--sqlite-synchronous NORMAL` in run-peers measures it anyway).
 *
 * Schema: as postgres.ts, with SQLite's types: times as INTEGER Unix microseconds (Phoenix on SQLite
 * stores 26-character timestamp text; integers are smaller and compare faster, so this favours the
 * peer), JSON columns as TEXT, the same B-tree indexes. SQLite has no GIN: the metadata filter runs
 * json_extract row by row (for the page, on the rows the start_time index leads to; for the total,
 * on every row of the window), as Phoenix's SQLite does.
 *
 * Loading: one writer (SQLite allows one). Each 512-span batch is one transaction (prepared INSERTs
 * of the spans and the traces upsert, then COMMIT); only those transactions are timed, the batches
 * being generated and turned into values beforehand, a chunk at a time. SQLite has no background
 * writer: checkpoints run inside the committing call, so they are timed too.
 *
 * SQLite has no percentile aggregate (better-sqlite3 builds it without SQLITE_ENABLE_PERCENTILE):
 * the latency quantiles by day are DuckDB's `quantile_cont` written with window functions (each
 * generation's rank within its day, then the two ranks around q·(n−1) interpolated). The export of
 * a day is its SELECT iterated row by row and discarded.
 */
import type BetterSqlite3 from 'better-sqlite3';
import { benchDependency } from './benchDependency.js';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
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
  type SpanValues,
} from './common.js';

const Database = benchDependency<typeof BetterSqlite3>('better-sqlite3');

/** The latency quantiles of `metricsByDay`: the column's name and q. */
const QUANTILES = [
  ['p50', 0.5],
  ['p95', 0.95],
] as const;

export const SQLITE_PRAGMAS = [
  'PRAGMA journal_mode = WAL',
  'PRAGMA synchronous = FULL',
  'PRAGMA cache_size = -1048576', // 1 GiB of page cache (Postgres gets shared_buffers = 2GB)
  'PRAGMA temp_store = MEMORY',
];

export const SQLITE_SCHEMA = `
CREATE TABLE spans (
  span_id        TEXT PRIMARY KEY,
  trace_id       TEXT NOT NULL,
  parent_id      TEXT,
  name           TEXT NOT NULL,
  span_type      TEXT NOT NULL,
  span_kind      TEXT NOT NULL,
  status_code    TEXT NOT NULL,
  status_message TEXT,
  start_time     INTEGER NOT NULL,   -- Unix microseconds
  end_time       INTEGER NOT NULL,
  model          TEXT,
  input_tokens   INTEGER,
  output_tokens  INTEGER,
  total_tokens   INTEGER,
  cost           REAL,
  input          TEXT,
  output         TEXT,
  attributes     TEXT NOT NULL,      -- JSON
  events         TEXT NOT NULL DEFAULT '[]',
  metadata       TEXT NOT NULL,      -- JSON
  session_id     TEXT,
  user_id        TEXT
);
CREATE INDEX spans_trace_id ON spans (trace_id);
CREATE INDEX spans_start_time ON spans (start_time);

CREATE TABLE traces (
  trace_id   TEXT PRIMARY KEY,
  start_time INTEGER NOT NULL,
  end_time   INTEGER NOT NULL,
  session_id TEXT
);
CREATE INDEX traces_start_time ON traces (start_time);
CREATE INDEX traces_session_id ON traces (session_id);

CREATE TABLE scores (
  id          TEXT PRIMARY KEY,
  trace_id    TEXT NOT NULL,
  name        TEXT NOT NULL,
  value       REAL NOT NULL,
  source      TEXT NOT NULL,
  data_type   TEXT NOT NULL,
  "timestamp" INTEGER NOT NULL
);
CREATE INDEX scores_timestamp ON scores ("timestamp");
CREATE INDEX scores_trace_id ON scores (trace_id);
CREATE INDEX scores_name ON scores (name);
`;

/** Every statement of the baseline, in one place. Times are bound as integer microseconds. */
export const SQLITE_SQL = {
  insertSpan: `INSERT INTO spans (${SPAN_COLUMNS.join(', ')}) VALUES (${SPAN_COLUMNS.map(() => '?').join(', ')})`,
  upsertTrace: `INSERT INTO traces (trace_id, start_time, end_time, session_id) VALUES (?, ?, ?, ?)
     ON CONFLICT (trace_id) DO UPDATE
       SET start_time = min(start_time, excluded.start_time), end_time = max(end_time, excluded.end_time),
           session_id = coalesce(session_id, excluded.session_id)`,
  insertScore: `INSERT INTO scores (id, trace_id, name, value, source, data_type, "timestamp") VALUES (?, ?, ?, ?, ?, ?, ?)`,

  latestTraces: withRollups(
    `SELECT trace_id, start_time, end_time FROM traces
      WHERE start_time >= ? AND start_time < ?
      ORDER BY start_time DESC, trace_id DESC
      LIMIT ${PAGE_SIZE}`,
    't.start_time DESC, t.trace_id DESC',
  ),
  latestTracesTotal: `SELECT count(*) AS total FROM traces WHERE start_time >= ? AND start_time < ?`,

  sessionById: withRollups(
    `SELECT trace_id, start_time, end_time FROM traces
      WHERE session_id = ?
      ORDER BY start_time DESC, trace_id
      LIMIT ${PAGE_SIZE}`,
    't.start_time DESC, t.trace_id',
  ),
  sessionByIdTotal: `SELECT count(*) AS total FROM traces WHERE session_id = ?`,

  /** Cost and tokens of the spans in [?, ?) by UTC day (index since the epoch) and model. */
  metricsUsage: `
    SELECT start_time / 86400000000 AS day, model, coalesce(sum(cost), 0) AS cost, coalesce(sum(total_tokens), 0) AS tokens
      FROM spans
     WHERE start_time >= ? AND start_time < ?
     GROUP BY 1, 2`,
  /** Latency (ms) p50 and p95 of the generations in [?, ?) by UTC day: quantile_cont with window functions. */
  metricsLatency: `
    WITH ranked AS (
      SELECT start_time / 86400000000 AS day, (end_time - start_time) / 1000.0 AS ms,
             row_number() OVER (PARTITION BY start_time / 86400000000 ORDER BY end_time - start_time) - 1 AS i,
             count(*) OVER (PARTITION BY start_time / 86400000000) AS n
        FROM spans
       WHERE start_time >= ? AND start_time < ? AND span_type = 'GENERATION')
    SELECT day, ${QUANTILES.map(([name, q]) => `${interpolated(q)} AS ${name}`).join(', ')}
      FROM ranked GROUP BY day`,

  exportDay: `SELECT ${EXPORT_COLUMNS} FROM spans WHERE start_time >= ? AND start_time < ? ORDER BY start_time DESC, trace_id, span_id`,

  /**
   * The page queries name their index: SQLite's planner, knowing from ANALYZE that the 7-day window
   * holds every row, otherwise scans the whole table and sorts it (1M spans: 320 ms for this page,
   * 460 ms for the metadata page) instead of walking start_time backwards to the first 50 matches
   * (0.3–0.4 ms), which is what PostgreSQL does unprompted and what SQLite does without statistics.
   */
  spanSearch: `
    SELECT ${SUMMARY_COLUMNS} FROM spans INDEXED BY spans_start_time
     WHERE start_time >= ? AND start_time < ? AND model = ? AND total_tokens > ? AND status_code = ?
     ORDER BY start_time DESC, trace_id, span_id
     LIMIT ${PAGE_SIZE}`,
  spanSearchTotal: `
    SELECT count(*) AS total FROM spans
     WHERE start_time >= ? AND start_time < ? AND model = ? AND total_tokens > ? AND status_code = ?`,

  traceById: `SELECT ${FULL_COLUMNS} FROM spans WHERE trace_id = ? ORDER BY start_time, span_id`,

  /** The third parameter is the JSON path (`$.customer`), the fourth the value. */
  metadataFilter: `
    SELECT ${SUMMARY_COLUMNS} FROM spans INDEXED BY spans_start_time
     WHERE start_time >= ? AND start_time < ? AND json_extract(metadata, ?) = ?
     ORDER BY start_time DESC, trace_id, span_id
     LIMIT ${PAGE_SIZE}`,
  metadataFilterTotal: `SELECT count(*) AS total FROM spans WHERE start_time >= ? AND start_time < ? AND json_extract(metadata, ?) = ?`,

  scoreAggregation: `
    SELECT name, count(*) AS count, avg(value) AS avg, min(value) AS min, max(value) AS max
      FROM scores
     WHERE "timestamp" >= ? AND "timestamp" < ? AND data_type = 'NUMERIC'
     GROUP BY name ORDER BY name`,
} as const;

/** A page of traces (`traces` rows picked by `page`) with their rollups from their spans, as postgres.ts. */
function withRollups(page: string, order: string): string {
  return `
    SELECT t.trace_id, t.start_time, t.end_time,
           (SELECT r.name FROM spans r WHERE r.trace_id = t.trace_id
             ORDER BY r.parent_id IS NOT NULL, r.start_time, r.span_id LIMIT 1) AS name,
           max(s.status_code = 'ERROR') AS any_error, max(s.status_code = 'OK') AS any_ok,
           sum(s.cost) AS cost, sum(s.total_tokens) AS tokens, sum(s.span_type <> 'EVENT') AS span_count
      FROM (${page}) t
      JOIN spans s ON s.trace_id = t.trace_id
     GROUP BY t.trace_id, t.start_time, t.end_time
     ORDER BY ${order}`;
}

/**
 * quantile_cont(ms, q) over `ranked` (rank `i` from 0, `n` per group): the value at rank
 * floor(q·(n−1)) weighted 1 − f and the next weighted f, f the fraction of q·(n−1).
 */
function interpolated(q: number): string {
  const pos = `(${q} * (n - 1))`;
  const lo = `CAST(${pos} AS INTEGER)`;
  return `sum(CASE WHEN i = ${lo} THEN ms * (1 - (${pos} - ${lo})) WHEN i = ${lo} + 1 THEN ms * (${pos} - ${lo}) ELSE 0 END)`;
}

const conv: Conv = { time: (v) => Number(v), json: (v) => (typeof v === 'string' ? JSON.parse(v) : v) };

export interface SqliteOptions {
  /** Batches generated and prepared ahead of each timed stretch (default 32). */
  chunkBatches?: number;
  /** Overrides `PRAGMA synchronous` (default FULL), e.g. to measure NORMAL. */
  synchronous?: 'FULL' | 'NORMAL';
  log?: (line: string) => void;
}

const live = new Set<string>();
let hooksInstalled = false;
function installHooks(): void {
  if (hooksInstalled) return;
  hooksInstalled = true;
  process.on('exit', () => {
    for (const dir of live) rmSync(dir, { recursive: true, force: true });
  });
}

export class SqlitePeer implements PeerStore {
  readonly name = 'SQLite';
  readonly queries: QueryFns;
  private closed = false;

  private constructor(
    private readonly db: BetterSqlite3.Database,
    private readonly dir: string,
    private readonly options: { chunkBatches: number; log: (line: string) => void },
  ) {
    const st = Object.fromEntries(
      (
        [
          'latestTraces',
          'latestTracesTotal',
          'spanSearch',
          'spanSearchTotal',
          'traceById',
          'metadataFilter',
          'metadataFilterTotal',
          'scoreAggregation',
          'sessionById',
          'sessionByIdTotal',
          'metricsUsage',
          'metricsLatency',
          'exportDay',
        ] as const
      ).map((k) => [k, db.prepare(SQLITE_SQL[k])]),
    ) as Record<keyof typeof SQLITE_SQL, BetterSqlite3.Statement>;
    type Row = Record<string, unknown>;
    this.queries = {
      latestTraces: async (p) => {
        const { day } = windows(p);
        const rows = st.latestTraces.all(day.fromUs, day.toUs) as Row[];
        const total = st.latestTracesTotal.get(day.fromUs, day.toUs) as { total: number };
        return { total: total.total, traces: rows.map((r) => toTraceSummary(r, conv)) };
      },
      spanSearch: async (p) => {
        const { week } = windows(p);
        const args = [week.fromUs, week.toUs, SPAN_SEARCH.model, SPAN_SEARCH.minTokens, SPAN_SEARCH.status];
        const rows = st.spanSearch.all(...args) as Row[];
        const total = st.spanSearchTotal.get(...args) as { total: number };
        return { total: total.total, spans: rows.map((r) => toSpanSummary(r, conv)) };
      },
      traceById: async (p) => ({
        trace_id: p.traceId,
        spans: (st.traceById.all(p.traceId) as Row[]).map((r) => toFullSpan(r, conv)),
      }),
      metadataFilter: async (p) => {
        const { week } = windows(p);
        const args = [week.fromUs, week.toUs, `$.${METADATA_FILTER.key}`, METADATA_FILTER.value];
        const rows = st.metadataFilter.all(...args) as Row[];
        const total = st.metadataFilterTotal.get(...args) as { total: number };
        return { total: total.total, spans: rows.map((r) => toSpanSummary(r, conv)) };
      },
      scoreAggregation: async (p) => {
        const { month } = windows(p);
        return (st.scoreAggregation.all(month.fromUs, month.toUs) as Row[]).map(toScoreAggregate);
      },
      sessionById: async (p) => ({
        session_id: p.sessionId,
        total: (st.sessionByIdTotal.get(p.sessionId) as { total: number }).total,
        traces: (st.sessionById.all(p.sessionId) as Row[]).map((r) => toTraceSummary(r, conv)),
      }),
      metricsByDay: async (p) => {
        const { month } = windows(p);
        const usage = st.metricsUsage.all(month.fromUs, month.toUs) as Row[];
        const latency = st.metricsLatency.all(month.fromUs, month.toUs) as Row[];
        return metricsByDay(
          usage.map((r) => ({
            day: dayIso(Number(r.day)),
            model: (r.model as string | null) ?? null,
            cost: Number(r.cost),
            tokens: Number(r.tokens),
          })),
          latency.map((r) => ({ day: dayIso(Number(r.day)), p50: Number(r.p50), p95: Number(r.p95) })),
        );
      },
      exportDay: async (p) => {
        const w = exportWindow(p);
        let rows = 0;
        for (const _row of st.exportDay.raw(true).iterate(w.fromUs, w.toUs)) rows++;
        return { rows };
      },
    } satisfies { [K in keyof Answers]: (p: QueryParams) => Promise<Answers[K]> };
  }

  /** Creates a fresh database file in a temporary directory, with the schema. */
  static async open(options: SqliteOptions = {}): Promise<SqlitePeer> {
    const log = options.log ?? console.log;
    const dir = mkdtempSync(join(tmpdir(), 'tracelake-peer-sqlite-'));
    live.add(dir);
    installHooks();
    try {
      const db = new Database(join(dir, 'peer.db'));
      for (const p of SQLITE_PRAGMAS)
        db.exec(
          options.synchronous && p.startsWith('PRAGMA synchronous') ? `PRAGMA synchronous = ${options.synchronous}` : p,
        );
      db.exec(SQLITE_SCHEMA);
      const pragma = (name: string) => String(db.pragma(name, { simple: true }));
      log(
        `sqlite: SQLite ${(db.prepare('SELECT sqlite_version() AS v').get() as { v: string }).v} (better-sqlite3), journal_mode=${pragma('journal_mode')} synchronous=${pragma('synchronous')} (2 = FULL, 1 = NORMAL), file ${join(dir, 'peer.db')}`,
      );
      return new SqlitePeer(db, dir, { chunkBatches: options.chunkBatches ?? 32, log });
    } catch (err) {
      rmSync(dir, { recursive: true, force: true });
      live.delete(dir);
      throw err;
    }
  }

  async load(batches: Iterable<DatasetBatch>, log: (line: string) => void = this.options.log): Promise<LoadResult> {
    const db = this.db;
    const insertSpan = db.prepare(SQLITE_SQL.insertSpan);
    const upsertTrace = db.prepare(SQLITE_SQL.upsertTrace);
    const insertScore = db.prepare(SQLITE_SQL.insertScore);
    const writeBatch = db.transaction((rows: SpanValues[], roll: ReturnType<typeof traceRollups>) => {
      for (const v of rows) insertSpan.run(v);
      for (let i = 0; i < roll.ids.length; i++)
        upsertTrace.run(roll.ids[i], roll.startUs[i], roll.endUs[i], roll.sessionIds[i]);
    });
    const writeScores = db.transaction((list: DatasetBatch['scores']) => {
      for (const s of list) insertScore.run(s.id, s.traceId, s.name, s.value, s.source, s.dataType, s.timestampUs);
    });

    let spans = 0;
    let scores = 0;
    let timedMs = 0;
    let chunks = 0;
    const iterator = batches[Symbol.iterator]();
    for (;;) {
      // Untimed: generate the next chunk and turn it into values.
      const chunk: { rows: SpanValues[]; roll: ReturnType<typeof traceRollups>; scores: DatasetBatch['scores'] }[] = [];
      for (let i = 0; i < this.options.chunkBatches; i++) {
        const next = iterator.next();
        if (next.done) break;
        chunk.push({
          rows: next.value.spans.map(spanValues),
          roll: traceRollups(next.value),
          scores: next.value.scores,
        });
      }
      if (chunk.length === 0) break;
      // Timed: one durable transaction per batch.
      const t0 = performance.now();
      for (const b of chunk) writeBatch(b.rows, b.roll);
      timedMs += performance.now() - t0;
      for (const b of chunk) {
        spans += b.rows.length;
        scores += b.scores.length;
        writeScores(b.scores); // untimed
      }
      if (++chunks % 25 === 0)
        log(`sqlite: ${spans.toLocaleString('en-US')} spans, ${(timedMs / 1000).toFixed(1)} s timed`);
    }
    const ingestSeconds = timedMs / 1000;

    const settleStarted = performance.now();
    db.exec('ANALYZE');
    db.pragma('wal_checkpoint(TRUNCATE)');
    const settleSeconds = (performance.now() - settleStarted) / 1000;
    const bytesOf = (tables: string[]) =>
      (
        db
          .prepare(
            `SELECT coalesce(sum(pgsize), 0) AS b FROM dbstat WHERE name IN (SELECT name FROM sqlite_schema WHERE tbl_name IN (${tables.map(() => '?').join(', ')}))`,
          )
          .get(...tables) as { b: number }
      ).b;
    const counted = db
      .prepare('SELECT (SELECT count(*) FROM spans) AS spans, (SELECT count(*) FROM scores) AS scores')
      .get() as { spans: number; scores: number };
    if (counted.spans !== spans || counted.scores !== scores)
      throw new Error(
        `sqlite: stored ${counted.spans} spans and ${counted.scores} scores, sent ${spans} and ${scores}`,
      );
    const spanBytes = bytesOf(['spans', 'traces']);
    return {
      spans,
      scores,
      ingestSeconds,
      spansPerSecond: spans / ingestSeconds,
      settleSeconds,
      spanBytes,
      bytesPerSpan: spanBytes / spans,
      scoreBytes: bytesOf(['scores']),
    };
  }

  /** EXPLAIN QUERY PLAN of one of SQLITE_SQL's statements. */
  explain(statement: keyof typeof SQLITE_SQL, values: unknown[]): string {
    return (this.db.prepare(`EXPLAIN QUERY PLAN ${SQLITE_SQL[statement]}`).all(...values) as { detail: string }[])
      .map((r) => r.detail)
      .join('\n');
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    this.db.close();
    rmSync(this.dir, { recursive: true, force: true });
    live.delete(this.dir);
  }
}

/** Opens a SQLite baseline (a fresh temporary database file with the schema). */
export const openSqlite = (options?: SqliteOptions): Promise<SqlitePeer> => SqlitePeer.open(options);
