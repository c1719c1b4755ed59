/**
 * Trace summaries (docs/decisions.md, "Trace summaries"). Every committed segment adds one summary part per trace it
 * holds (`trace_parts`); a background merge folds parts into `traces`, one row per trace. A merged
 * row has the columns of a part, because parts merge associatively — min start, max end, sums,
 * any-error, the root-most earliest span's name and previews — so a trace whose spans arrive late
 * just gets another part, and merging it later gives the same row as merging everything at once.
 *
 * Reads see a trace as its merged row when it has no newer parts (no grouping at all: lists of
 * traces cost O(traces in the window)), and as the merge of its row and its parts otherwise.
 */
import { MS_SQL, PREVIEW_CHARS, type ColumnKind } from './columns.js';

/** One part, in the column order of `PART_COLUMNS` (traceParts.ts). */
export type PartRow = [
  tenantId: string,
  appId: string,
  environmentId: string,
  traceId: string,
  startNs: bigint,
  endNs: bigint,
  bestR: number,
  bestS: bigint,
  bestName: string,
  bestInputPreview: string | null,
  bestOutputPreview: string | null,
  cost: number,
  tokens: number,
  spanCount: number,
  hasError: number,
  hasOk: number,
  tags: string[],
  sessionId: string | null,
  userId: string | null,
  runId: string | null,
  bestMetadata: string | null,
  genS: bigint | null,
  genInputPreview: string | null,
  genOutputPreview: string | null,
];

/*
 * The best candidate's texts are taken with `arg_min_null`: a root without an input preview or
 * metadata gives the trace none, not a child's (plain `arg_min` skips NULL values), as the workers do.
 */

/** The columns of a part and of a merged row, in table order (`trace_parts` adds `seq`). */
export const PART_COLUMNS = [
  'tenant_id',
  'app_id',
  'environment_id',
  'trace_id',
  'start_ns',
  'end_ns',
  /** The part's best candidate for the trace's root: 0 when it has no parent, then earliest. */
  'best_r',
  'best_s',
  'best_name',
  'best_input_preview',
  'best_output_preview',
  'cost',
  'tokens',
  'span_count',
  'has_error',
  'has_ok',
  'tags',
  'session_id',
  'user_id',
  'run_id',
  /** The best candidate's metadata: the trace's metadata (the spec's "root span's metadata"). Last, so the
   *  column order of a store migrated to it (migration 203) is the order of a new one. */
  'best_metadata',
  /**
   * The part's earliest generation (a model call) and its previews: the trace's preview when the
   * best candidate has none (an app span around an SDK call), so a list's INPUT is not empty.
   */
  'gen_s',
  'gen_input_preview',
  'gen_output_preview',
] as const;

const COLS = PART_COLUMNS.join(', ');

/**
 * A merged row keeps `best_s` only when its best candidate did not start with the trace: NULL means
 * "at `start_ns`", the common case (the root is the earliest span), and a NULL column costs a row
 * next to nothing where the start time cost 8 bytes (native-bench/RESULTS.md, "Figures behind the
 * code"). The merge reads it back with `BEST_START`; parts always carry it.
 */
const STORED_COLS = PART_COLUMNS.map((c) => (c === 'best_s' ? 'nullif(best_s, start_ns)' : c)).join(', ');
const BEST_START = 'coalesce(x.best_s, x.start_ns)';

/** How the appender writes a part row (PART_COLUMNS, then `seq`). */
export const PART_KINDS: readonly ColumnKind[] = [
  'uuid',
  'uuid',
  'uuid',
  'text',
  'bigint',
  'bigint',
  'int',
  'bigint',
  'text',
  'text',
  'text',
  'double',
  'double',
  'int',
  'int',
  'int',
  'text_list',
  'text',
  'text',
  'text',
  'text',
  'bigint',
  'text',
  'text',
  /** `seq` */
  'bigint',
];

export const PART_TABLE_SQL = `
  tenant_id UUID, app_id UUID, environment_id UUID, trace_id VARCHAR, start_ns BIGINT, end_ns BIGINT,
  best_r INTEGER, best_s BIGINT, best_name VARCHAR, best_input_preview VARCHAR, best_output_preview VARCHAR,
  cost DECIMAL(38, 12), tokens DOUBLE, span_count INTEGER, has_error INTEGER, has_ok INTEGER, tags VARCHAR[],
  session_id VARCHAR, user_id VARCHAR, run_id VARCHAR, best_metadata VARCHAR,
  gen_s BIGINT, gen_input_preview VARCHAR, gen_output_preview VARCHAR`;

/**
 * The parts of the span rows of `source` (a relation with the span columns) in SQL: what the
 * workers compute in JS (ingest/summaryParts.ts), for spans stored before parts existed and for
 * the benchmarks' synthetic stores. A test holds the two to the same answers.
 */
export function partsOfSpans(source: string): string {
  const best = `{'r': parent_id IS NOT NULL, 's': start_ns}`;
  return `
    SELECT tenant_id, app_id, environment_id, trace_id, min(start_ns), max(end_ns),
           min(CASE WHEN parent_id IS NULL THEN 0 ELSE 1 END), arg_min(start_ns, ${best}),
           arg_min(name, ${best}),
           arg_min_null(coalesce(input_preview, left(input, ${PREVIEW_CHARS})), ${best}),
           arg_min_null(coalesce(output_preview, left(output, ${PREVIEW_CHARS})), ${best}),
           coalesce(sum(cost::DECIMAL(38, 12)), 0), coalesce(sum(tokens), 0)::DOUBLE,
           (count(*) FILTER (WHERE type <> 'EVENT'))::INTEGER,
           bool_or(status = 'ERROR')::INTEGER, bool_or(status = 'OK')::INTEGER,
           list_distinct(flatten(list(coalesce(tags, [])))),
           min(session_id), min(user_id), min(run_id), arg_min_null(metadata, ${best}),
           min(start_ns) FILTER (WHERE type = 'GENERATION'),
           arg_min_null(coalesce(input_preview, left(input, ${PREVIEW_CHARS})), start_ns) FILTER (WHERE type = 'GENERATION'),
           arg_min_null(coalesce(output_preview, left(output, ${PREVIEW_CHARS})), start_ns) FILTER (WHERE type = 'GENERATION')
      FROM ${source} GROUP BY tenant_id, app_id, environment_id, trace_id`;
}

/** `INSERT INTO trace_parts` of the parts of `source`. */
export function insertPartsSql(source: string): string {
  return `INSERT INTO trace_parts (${COLS}) ${partsOfSpans(source)}`;
}

/** Merges the parts of relation `x` into one part-shaped row per trace. */
function mergePartsSql(from: string): string {
  const best = `{'r': x.best_r, 's': ${BEST_START}}`;
  return `
    SELECT x.tenant_id, x.app_id, x.environment_id, x.trace_id,
           min(x.start_ns) AS start_ns, max(x.end_ns) AS end_ns,
           min(x.best_r) AS best_r, arg_min(${BEST_START}, ${best}) AS best_s,
           arg_min(x.best_name, ${best}) AS best_name,
           arg_min_null(x.best_input_preview, ${best}) AS best_input_preview,
           arg_min_null(x.best_output_preview, ${best}) AS best_output_preview,
           sum(x.cost) AS cost, sum(x.tokens) AS tokens, sum(x.span_count)::INTEGER AS span_count,
           max(x.has_error) AS has_error, max(x.has_ok) AS has_ok,
           list_distinct(flatten(list(x.tags))) AS tags,
           min(x.session_id) AS session_id, min(x.user_id) AS user_id, min(x.run_id) AS run_id,
           arg_min_null(x.best_metadata, ${best}) AS best_metadata,
           min(x.gen_s) AS gen_s,
           arg_min_null(x.gen_input_preview, x.gen_s) FILTER (WHERE x.gen_s IS NOT NULL) AS gen_input_preview,
           arg_min_null(x.gen_output_preview, x.gen_s) FILTER (WHERE x.gen_s IS NOT NULL) AS gen_output_preview
      FROM (${from}) x
     GROUP BY x.tenant_id, x.app_id, x.environment_id, x.trace_id`;
}

/** A condition over a relation alias (scope first, then anything else). */
export type Where = (alias: string) => string;

/**
 * The key `traces` finds a trace by instead of an index: the first 64 bits of its hex id, 0 for an
 * id that does not start with hex digits (never NULL: a lookup compares keys alone first, and an
 * `OR key IS NULL` would have DuckDB compare every row's id; native-bench/RESULTS.md, "Figures behind
 * the code").
 * Written by the merge, computed by the same SQL for a lookup, so the two always agree. An ART
 * index on `trace_id` found a row faster than a scan of this column, but every checkpoint writes
 * it anew, leaving as much again in free blocks (docs/decisions.md, "Finding a trace and a span by
 * id").
 */
export const traceKeySql = (id: string): string => `coalesce(TRY_CAST('0x' || substr(${id}, 1, 16) AS UBIGINT), 0)`;

/**
 * A summary's session as 64 bits of its id's MD5 (0 without a session): a session's merged rows are
 * found by comparing this key, a scan far cheaper than comparing the ids, then the ids.
 */
export const sessionKeySql = (id: string): string =>
  `coalesce(TRY_CAST('0x' || substr(md5(${id}), 1, 16) AS UBIGINT), 0)`;

/** The trace id(s) a by-id read names, as SQL: one value (`$3`), or a relation of them. */
export type TraceIds = { value: string; list?: undefined } | { list: string; value?: undefined };

/** Rows of `alias` with the trace id(s) `ids` names. */
function idMatches(alias: string, ids: TraceIds): string {
  return ids.list ? `${alias}.trace_id IN (${ids.list})` : `${alias}.trace_id = ${ids.value!}`;
}

/** `traces` rows with the trace id(s) `ids` names: their keys compared first, then the ids. */
function keyAndIdMatch(alias: string, ids: TraceIds): string {
  const key = ids.list
    ? `${alias}.trace_key IN (SELECT ${traceKeySql('k.id')} FROM (${ids.list}) k(id))`
    : `${alias}.trace_key = ${traceKeySql(ids.value!)}`;
  return `${key} AND ${idMatches(alias, ids)}`;
}

/** The keys (`traceKeySql`) of the traces of `where` with parts waiting. */
function freshKeysSql(where: Where): string {
  return `SELECT DISTINCT ${traceKeySql('y.trace_id')} FROM trace_parts y WHERE ${where('y')}`;
}

/** The keys of the traces of `where` with parts waiting, as `halves` of a key column `k` shows them. */
export function waitingKeysSql(where: Where, halves: (key: string) => string): string {
  return `SELECT ${halves('k')} FROM (${freshKeysSql(where)}) x(k)`;
}

/**
 * How the merged rows of waiting traces are looked for among the summaries: every row's key read
 * (null), or the keys of the rows that start at or after `cutoffNs`, and every row's only for the
 * keys in `settled` (those the settled-keys filter may hold: settledKeys.ts).
 */
export type KeyScan = { cutoffNs: bigint; settled: readonly bigint[] } | null;

/** Past this many keys that may be settled, one read of every key is cheaper than naming them. */
const MOST_NAMED_KEYS = 2_000;

/** The scan for `keys`' settled ones: a read of every key when there are too many to name. */
export function keyScan(cutoffNs: bigint, settled: readonly bigint[]): KeyScan {
  return settled.length > MOST_NAMED_KEYS ? null : { cutoffNs, settled };
}

/**
 * Row ids (`r`) of the merged rows of `where` whose key is among `keys` (a relation of keys), found
 * as `scan` says.
 */
function rowsWithKeysSql(where: Where, keys: string, scan: KeyScan): string {
  const all = `SELECT z.rowid AS r FROM traces z WHERE ${where('z')} AND z.trace_key IN (${keys})`;
  if (scan === null) return all;
  const recent = `${all} AND z.start_ns >= ${scan.cutoffNs}`;
  if (scan.settled.length === 0) return recent;
  // Keys computed by the store from its own rows, never a client's text.
  const named = scan.settled.map((k) => `${BigInt(k)}::UBIGINT`).join(', ');
  return `${recent}
          UNION ALL
          SELECT z.rowid AS r FROM traces z WHERE ${where('z')} AND z.start_ns < ${scan.cutoffNs} AND z.trace_key IN (${named})`;
}

/**
 * Part-shaped rows, one per trace, of the traces that pass `where` (which scopes by tenant and app
 * first): merged rows without newer parts as they are, and the others merged with their parts.
 * Filters on the result (a time window) are pushed by DuckDB into the plain scan of `traces`.
 *
 * Merged rows are told apart by their keys, never their ids: a join on the ids reads every merged
 * row's id, one on the keys an 8-byte column (native-bench/RESULTS.md, "Figures behind the code").
 * A merged row whose key a waiting trace shares without being that trace is merged alone, which
 * gives the row back as it was. The merged rows of waiting traces are then fetched by row id: the
 * merge appends, so they lie near the table's end and DuckDB's row id range skips the rest.
 */
export function tracePartsSql(where: Where): string {
  const fresh = freshKeysSql(where);
  return `
    SELECT ${COLS} FROM traces x WHERE ${where('x')} AND x.trace_key NOT IN (${fresh})
    UNION ALL
    ${mergePartsSql(`SELECT ${COLS} FROM trace_parts x WHERE ${where('x')}
                     UNION ALL
                     SELECT ${COLS} FROM traces x
                      WHERE x.rowid IN (SELECT z.rowid FROM traces z WHERE ${where('z')} AND z.trace_key IN (${fresh}))`)}`;
}

/**
 * What a read of several statements in one snapshot (a list: its page and its total) fills
 * first, in temporary tables, so that its statements share them: the row ids of the merged rows
 * that share a key with a waiting trace of `where` (`waiting_rows`, found as `scan` says: without
 * one, every merged row's key read), and the waiting traces merged with those rows
 * (`waiting_merged`). Run with `where`'s parameters, in a `Database.snapshot` (its rollback drops them).
 */
export function waitingTablesSql(where: Where, scan: KeyScan = null): string[] {
  return [
    `CREATE TEMP TABLE waiting_rows AS ${rowsWithKeysSql(where, freshKeysSql(where), scan)}`,
    `CREATE TEMP TABLE waiting_merged AS ${mergePartsSql(`SELECT ${COLS} FROM trace_parts x WHERE ${where('x')}
                                                          UNION ALL
                                                          SELECT ${COLS} FROM traces x WHERE x.rowid IN (SELECT r FROM temp.waiting_rows)`)}`,
  ];
}

/** `tracePartsSql` from the tables of `waitingTablesSql`: no merged row's key read again. */
function tracePartsOfWaitingSql(where: Where): string {
  return `
    SELECT ${COLS} FROM traces x WHERE ${where('x')} AND x.rowid NOT IN (SELECT r FROM temp.waiting_rows)
    UNION ALL
    SELECT ${COLS} FROM temp.waiting_merged`;
}

/**
 * How many rows of `tracePartsOfWaitingSql(where)` pass `test` (a condition on a part-shaped row,
 * such as a window), by arithmetic: the merged rows that pass, less the waiting traces' merged rows
 * that pass, plus the waiting traces merged that pass — no merged row looked for among the waiting.
 */
export function traceCountOfWaitingSql(where: Where, test: Where): string {
  return `
    SELECT ((SELECT count(*) FROM traces x WHERE ${where('x')} AND ${test('x')})
            - (SELECT count(*) FROM traces x WHERE x.rowid IN (SELECT r FROM temp.waiting_rows) AND ${test('x')})
            + (SELECT count(*) FROM temp.waiting_merged x WHERE ${test('x')}))::INTEGER AS n`;
}

/**
 * Part-shaped rows of the traces of `where` that `ids` names (a trace id, or a handful): every
 * part and merged row of them, merged. Cheaper than `tracePartsSql` for a few traces — `traces`
 * is scanned for their keys (`traceKeySql`) — and the same rows.
 */
export function tracePartsByIdSql(where: Where, ids: TraceIds): string {
  return mergePartsSql(`SELECT ${COLS} FROM traces x WHERE ${where('x')} AND ${keyAndIdMatch('x', ids)}
                        UNION ALL SELECT ${COLS} FROM trace_parts x WHERE ${where('x')} AND ${idMatches('x', ids)}`);
}

/**
 * Part-shaped rows of the traces of `where` that `ids` names, from `traces` alone: their summaries
 * only when none of them has unmerged parts (`unmergedPartsByIdSql`; else `tracePartsByIdSql`
 * has the answer), which the caller checks in the same statement. A trace read long after its
 * spans arrived finds its merged row by its key and skips the merge's grouping
 * (native-bench/RESULTS.md, "Figures behind the code").
 */
export function mergedRowsByIdSql(where: Where, ids: TraceIds): string {
  return `SELECT ${COLS} FROM traces x WHERE ${where('x')} AND ${keyAndIdMatch('x', ids)}`;
}

/** The unmerged parts of the traces of `where` that `ids` names (for an `EXISTS`). */
export function unmergedPartsByIdSql(where: Where, ids: TraceIds): string {
  return `SELECT 1 FROM trace_parts y WHERE ${where('y')} AND ${idMatches('y', ids)}`;
}

/**
 * Where the traces of `where` that `ids` names lie, without their summaries: one row per
 * environment (`environment_id`, `start_ns`, `end_ns`), from the times of their merged rows and
 * unmerged parts alone — the same range their merged summaries have, for a read of their spans.
 */
export function traceRangesByIdSql(where: Where, ids: TraceIds): string {
  return `
    SELECT x.environment_id, min(x.start_ns) AS start_ns, max(x.end_ns) AS end_ns
      FROM (SELECT x.environment_id, x.start_ns, x.end_ns FROM traces x WHERE ${where('x')} AND ${keyAndIdMatch('x', ids)}
            UNION ALL
            SELECT x.environment_id, x.start_ns, x.end_ns FROM trace_parts x WHERE ${where('x')} AND ${idMatches('x', ids)}) x
     GROUP BY x.environment_id`;
}

/**
 * Which rows a summary read starts from (see the functions above; `merged`: see `settledScope`;
 * `waitingTables`: see `waitingTablesSql`); a read by id names its trace id(s), and may read the
 * merged rows alone.
 */
export type SummarySource = 'window' | 'merged' | 'waitingTables' | { byId: TraceIds; mergedOnly: boolean };

/** Part-shaped rows, one per trace, that `traceSummariesSql` makes its summaries of. */
export function summaryRowsSql(where: Where, source: SummarySource = 'window'): string {
  return typeof source === 'object'
    ? source.mergedOnly
      ? mergedRowsByIdSql(where, source.byId)
      : tracePartsByIdSql(where, source.byId)
    : source === 'merged'
      ? `SELECT ${COLS} FROM traces x WHERE ${where('x')}`
      : source === 'waitingTables'
        ? tracePartsOfWaitingSql(where)
        : tracePartsSql(where);
}

/**
 * Trace summaries: one row per trace that passes `where`. Columns: the trace-summary relation of
 * the filter contract (`tenant_id, app_id, id, name, status, start_ns, end_ns, latency_ms, cost,
 * tokens, span_count, input_preview, output_preview, tags, session_id, user_id, run_id,
 * environment_id, environment, metadata`). Every trace summary the API answers comes from here.
 * With `byId`, the traces of `where` with those ids (see `tracePartsByIdSql`); with
 * `mergedOnly` too, the merged rows alone are read (see `mergedRowsByIdSql`: the caller checks
 * that no part waits). With `merged`, the merged rows alone, whatever `where` selects: right only
 * when no part waits in its scope (see `settledScope`).
 */
export function traceSummariesSql(where: Where, source: SummarySource = 'window'): string {
  const rows = summaryRowsSql(where, source);
  return `
    SELECT x.tenant_id, x.app_id, x.trace_id AS id, x.best_name AS name,
           CASE WHEN x.has_error = 1 THEN 'ERROR' WHEN x.has_ok = 1 THEN 'OK' ELSE 'UNSET' END AS status,
           x.start_ns, x.end_ns, ((x.end_ns - x.start_ns) / 1e6)::DOUBLE AS latency_ms,
           x.cost, x.tokens::DOUBLE AS tokens, x.span_count,
           coalesce(x.best_input_preview, x.gen_input_preview) AS input_preview,
           coalesce(x.best_output_preview, x.gen_output_preview) AS output_preview,
           list_sort(coalesce(x.tags, [])) AS tags, x.session_id, x.user_id, x.run_id,
           x.environment_id, e.name AS environment, x.best_metadata AS metadata
      FROM (${rows}) x LEFT JOIN environments e ON e.id = x.environment_id`;
}

/** The columns of a summary as the API answers them (times as epoch ms, converted by the caller). */
export const SUMMARY_COLUMNS = `id, name, status, ${MS_SQL('start_ns')} AS start_ms, ${MS_SQL('end_ns')} AS end_ms, latency_ms, cost::DOUBLE AS cost, tokens,
       span_count, input_preview, output_preview, tags, session_id, user_id, environment_id, environment`;

/**
 * Folds every part up to now into `traces`, in one transaction (run by the store thread in the
 * background; summaryMerge.ts): the traces being folded (`MERGING_SQL`), then their merged rows
 * found by key, as `scan` says, then by id among those few, merged with the parts
 * (`MERGE_STATEMENTS`), then the temporary tables dropped (`MERGE_CLEANUP`).
 */
export const MERGING_SQL = (upTo: bigint) =>
  `CREATE TEMP TABLE merging AS SELECT DISTINCT tenant_id, app_id, environment_id, trace_id FROM trace_parts WHERE seq <= ${upTo}`;

/** The keys of the traces being folded, as `halves` of a key column `k` shows them. */
export const mergingKeysSql = (halves: (key: string) => string) =>
  `SELECT ${halves('k')} FROM (SELECT DISTINCT ${traceKeySql('trace_id')} FROM merging) x(k)`;

export const MERGE_STATEMENTS = (upTo: bigint, scan: KeyScan = null) => [
  `CREATE TEMP TABLE replaced AS
     SELECT t.rowid AS r FROM traces t
      WHERE t.rowid IN (${rowsWithKeysSql(() => 'TRUE', `SELECT DISTINCT ${traceKeySql('trace_id')} FROM merging`, scan)})
        AND (t.tenant_id, t.app_id, t.environment_id, t.trace_id) IN (SELECT * FROM merging)`,
  `CREATE TEMP TABLE merged_now AS ${mergePartsSql(`
     SELECT ${COLS} FROM trace_parts WHERE seq <= ${upTo}
     UNION ALL
     SELECT ${COLS} FROM traces WHERE rowid IN (SELECT r FROM replaced)`)}`,
  'DELETE FROM traces WHERE rowid IN (SELECT r FROM replaced)',
  `INSERT INTO traces (${COLS}, trace_key, session_key) SELECT ${STORED_COLS}, ${traceKeySql('trace_id')}, ${sessionKeySql('session_id')} FROM merged_now`,
  `DELETE FROM trace_parts WHERE seq <= ${upTo}`,
];

/** The keys of the rows the merge wrote that start before `cutoffNs`, as `halves` shows them (settledKeys.ts). */
export const mergedBeforeSql = (cutoffNs: bigint, halves: (key: string) => string) =>
  `SELECT ${halves('k')} FROM (SELECT ${traceKeySql('trace_id')} FROM merged_now WHERE start_ns < ${cutoffNs}) x(k)`;

export const MERGE_CLEANUP = ['DROP TABLE merged_now', 'DROP TABLE replaced', 'DROP TABLE merging'];
