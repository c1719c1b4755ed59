/**
 * Reads of spans, traces and sessions. Every query starts from the caller's scope (tenant, app, and
 * the pinned environment when there is one) before anything the caller asked for.
 *
 * Trace summaries come from the summary tables (O(traces)); spans come from the segment files the
 * manifest names. A trace's spans are found through its summary: its time range selects the few
 * segments that can hold them (the manifest keeps each file's range of start times), and Parquet
 * statistics on `start_ns` prune the row groups inside them. A trace hint (traceHintTable.ts) lets
 * both be read at once, the summary checking the hint. There is no index on span ids.
 */
import type { DuckDBValue } from '@duckdb/node-api';
import type { Database } from '../db.js';
import { scopeSql, type ReadScope } from '../scope.js';
import { mediaReferences, restoreMedia } from '../../core/media.js';
import { restoredAttributes } from './attributeColumns.js';
import { MS_SQL, PREVIEW_SQL } from './columns.js';
import { segmentsFor, segmentsMayHold, spansFrom } from './manifest.js';
import type { SegmentStore } from './segmentStore.js';
import {
  SUMMARY_COLUMNS,
  sessionKeySql,
  traceRangesByIdSql,
  traceSummariesSql,
  unmergedPartsByIdSql,
} from './traceParts.js';
import type { TraceHints } from './traceHintTable.js';

/**
 * Whether no summary part waits to be merged in `scope`: then the merged rows alone are the
 * summaries (`traceSummariesSql(…, 'merged')`), and a list skips the merge of parts
 * (native-bench/RESULTS.md, "Figures behind the code"). A part committed after this
 * answer is one the read would not have seen had it started a moment earlier; one merged
 * meanwhile is in `traces`.
 */
export async function settledScope(db: Database, scope: ReadScope): Promise<boolean> {
  const s = scopeSql(scope);
  const [row] = await db.query<{ waiting: boolean }>(
    `SELECT EXISTS (SELECT 1 FROM trace_parts WHERE ${s.sql}) AS waiting`,
    s.params,
  );
  return row?.waiting === false;
}

export interface SpanView {
  id: string;
  trace_id: string;
  parent_id: string | null;
  name: string;
  type: string;
  span_kind: string;
  status: string;
  status_message: string | null;
  timestamp: string;
  end_time: string;
  duration_ms: number;
  model: string | null;
  prompt_name: string | null;
  service_name: string | null;
  input_tokens: number | null;
  output_tokens: number | null;
  cached_input_tokens: number | null;
  tokens: number | null;
  cost: number | null;
  session_id: string | null;
  user_id: string | null;
  tags: string[];
  input_preview: string | null;
  output_preview: string | null;
  metadata: Record<string, unknown>;
}

/** A span opened on its own: everything, input and output in full. */
export interface SpanDetail extends SpanView {
  input: string | null;
  output: string | null;
  run_id: string | null;
  environment_id: string;
  attributes: Record<string, unknown>;
  resource: Record<string, unknown>;
  scope: { name: string | null; version: string | null };
  graph: Record<string, unknown>;
}

export interface TraceSummary {
  id: string;
  name: string;
  status: string;
  start: string;
  end: string;
  latency_ms: number;
  cost: number;
  tokens: number;
  span_count: number;
  input_preview: string | null;
  output_preview: string | null;
  tags: string[];
  session_id: string | null;
  user_id: string | null;
  environment_id: string;
  /** The environment's name. */
  environment: string | null;
}

/** The fields of a span view, over the span row `x`. */
const SPAN_FIELDS = `
  x.span_id AS id, x.trace_id, x.parent_id, x.name, x.type, x.span_kind, x.status, x.status_message,
  ${MS_SQL('x.start_ns')} AS start_ms, ${MS_SQL('x.end_ns')} AS end_ms, ((x.end_ns - x.start_ns) / 1e6)::DOUBLE AS duration_ms,
  x.model, x.prompt_name, x.service_name, x.input_tokens, x.output_tokens, x.cached_input_tokens, x.tokens, x.cost, x.session_id, x.user_id,
  coalesce(x.tags, []) AS tags, ${PREVIEW_SQL('x')}, x.metadata`;

/** The fields of an opened span, over `x` joined to its resource `r`. */
const DETAIL_FIELDS = `${SPAN_FIELDS}, x.input, x.output, x.input_ref, x.output_ref, x.run_id, x.environment_id, x.attributes, x.attributes_in_columns, x.graph,
  r.resource, r.scope_name, r.scope_version`;

type RawSpan = Omit<SpanView, 'timestamp' | 'end_time' | 'metadata'> & {
  start_ms: number;
  end_ms: number;
  metadata: string | null;
};

function toView(r: RawSpan): SpanView {
  const { start_ms, end_ms, metadata, ...rest } = r;
  return { ...rest, timestamp: iso(start_ms), end_time: iso(end_ms), metadata: parseObject(metadata) };
}

/** Where the spans of the store are: its database and its segment files. */
export interface SpanSource {
  db: Database;
  segments: SegmentStore;
  /** Where traces probably are (traceHints.ts), so a trace by id reads summary and spans at once. */
  hints?: TraceHints | null;
}

type RawSummary = Omit<TraceSummary, 'start' | 'end'> & { start_ms: number; end_ms: number };

function toSummary({ start_ms, end_ms, ...rest }: RawSummary): TraceSummary {
  return { ...rest, start: iso(start_ms), end: iso(end_ms) };
}

/** Where a trace's spans are: its time range and environment. */
interface TraceRange {
  startNs: bigint;
  endNs: bigint;
  environmentId: string;
}

interface FoundTrace extends TraceRange {
  summary: TraceSummary;
}

/**
 * One trace id in two environments is two traces: an unpinned reader gets the production one, so
 * that a lower environment reusing a production trace id cannot stand in for it; among the rest
 * (or several production ones) the one that started last, then the first environment id.
 */
async function pickTrace<T extends { start_text: string; environment_id: string }>(
  db: Database,
  scope: ReadScope,
  rows: readonly T[],
): Promise<T | undefined> {
  if (new Set(rows.map((r) => r.environment_id)).size > 1) {
    const production = await db.query<{ id: string }>(
      "SELECT id::VARCHAR AS id FROM environments WHERE tenant_id = $1 AND app_id = $2 AND kind = 'production'",
      [scope.tenantId, scope.appId],
    );
    const ids = new Set(production.map((e) => e.id));
    const preferred = rows.filter((r) => ids.has(r.environment_id));
    if (preferred.length > 0) return latestFirst(preferred);
  }
  return latestFirst(rows);
}

/**
 * The row that started last (then the first environment id). Picked here from the row of each
 * environment rather than by DuckDB's top-N, a large share of a lookup (native-bench/RESULTS.md,
 * "Figures behind the code").
 */
function latestFirst<T extends { start_text: string; environment_id: string }>(rows: readonly T[]): T | undefined {
  let best: T | undefined;
  for (const row of rows) {
    const later = best === undefined || BigInt(row.start_text) > BigInt(best.start_text);
    const tie = best !== undefined && row.start_text === best.start_text && row.environment_id < best.environment_id;
    if (later || tie) best = row;
  }
  return best;
}

/**
 * The summary of one trace in scope, with its time range; null when there is none. Its merged row
 * alone when it has no unmerged parts (the common case: a trace read after its spans arrived),
 * else the merge of its row and parts. The first statement also tells whether the trace has parts,
 * so a trace that does not exist costs one statement, not two (a client polling for a trace that
 * has not arrived yet takes that path again and again).
 */
async function findTrace(db: Database, scope: ReadScope, traceId: string): Promise<FoundTrace | null> {
  const s = scopeSql(scope);
  const where = (a: string) => scopeSql(scope, a).sql;
  const byId = { value: `$${s.params.length + 1}` };
  // Times as text (JSON-safe) under names of their own: `latestFirst` compares them as numbers.
  const summary = (mergedOnly: boolean) =>
    `SELECT ${SUMMARY_COLUMNS}, start_ns::VARCHAR AS start_text, end_ns::VARCHAR AS end_text
       FROM (${traceSummariesSql(where, { byId, mergedOnly })})`;
  type Row = RawSummary & { start_text: string; end_text: string };
  // At least one row whatever is found: whether the trace has unmerged parts, and when it has none,
  // its merged rows' columns, one row per environment (all null without one; with parts the merged
  // rows are not its summaries).
  const first = await db.query<Omit<Row, 'id'> & { id: string | null; has_parts: boolean }>(
    `SELECT p.has_parts, m.* FROM (SELECT EXISTS (${unmergedPartsByIdSql(where, byId)}) AS has_parts) p LEFT JOIN (${summary(true)}) m ON NOT p.has_parts`,
    [...s.params, traceId],
  );
  const merged = first
    .filter((r): r is typeof r & { id: string } => r.id !== null)
    .map(({ has_parts: _, ...r }) => r as Row);
  const row =
    merged.length > 0
      ? await pickTrace(db, scope, merged)
      : first[0]!.has_parts
        ? await pickTrace(db, scope, await db.query<Row>(summary(false), [...s.params, traceId]))
        : undefined;
  if (!row) return null;
  const { start_text, end_text, ...found } = row;
  return {
    summary: toSummary(found),
    startNs: BigInt(start_text),
    endNs: BigInt(end_text),
    environmentId: found.environment_id,
  };
}

/**
 * The range of the trace `findTrace` would find, without its summary: for reads of its spans
 * alone (`traceSpans`, `spanDetail`). One statement over the times of its merged row and parts.
 */
async function traceRange(db: Database, scope: ReadScope, traceId: string): Promise<TraceRange | null> {
  const s = scopeSql(scope);
  const row = await pickTrace(
    db,
    scope,
    await db.query<{ environment_id: string; start_text: string; end_text: string }>(
      `SELECT environment_id::VARCHAR AS environment_id, start_ns::VARCHAR AS start_text, end_ns::VARCHAR AS end_text
         FROM (${traceRangesByIdSql((a) => scopeSql(scope, a).sql, { value: `$${s.params.length + 1}` })})`,
      [...s.params, traceId],
    ),
  );
  return row
    ? { startNs: BigInt(row.start_text), endNs: BigInt(row.end_text), environmentId: row.environment_id }
    : null;
}

type TraceSpan = SpanView & { graph: Record<string, unknown> };

/** What tells whether a row read by trace id and time belongs to the trace found. */
type PlacedRow = { start_text: string; environment_id: string };

/** A span of a read by trace id. */
type CandidateSpan = RawSpan & PlacedRow & { graph: string | null };

/**
 * The spans with this trace id that start in [fromNs, toNs], in every environment of the scope,
 * ordered by start.
 */
async function spansStartingIn(
  src: SpanSource,
  scope: ReadScope,
  traceId: string,
  fromNs: bigint,
  toNs: bigint,
): Promise<CandidateSpan[]> {
  // Every span of a trace starts within [trace start, trace end]: the segments whose start times
  // overlap that range are the only ones that can hold it.
  const files = await segmentsFor(src.db, src.segments, scope, fromNs, toNs + 1n);
  const s = scopeSql(scope, 'x');
  const n = s.params.length;
  const rows = await src.db.query<CandidateSpan>(
    `SELECT ${SPAN_FIELDS}, x.graph, x.start_ns::VARCHAR AS start_text, x.environment_id::VARCHAR AS environment_id
       FROM ${spansFrom(files)} x
      WHERE ${s.sql} AND x.trace_id = $${n + 1} AND x.start_ns BETWEEN $${n + 2} AND $${n + 3}`,
    [...s.params, traceId, fromNs, toNs],
  );
  return byStartThenId(rows);
}

/**
 * Rows ordered by start, then span id: sorted here rather than by DuckDB, whose sort operator costs
 * about as much for one row as for thousands, when a trace's spans are mostly a few hundred (at
 * most `--max-spans-per-trace`; native-bench/RESULTS.md, "Figures behind the code").
 */
function byStartThenId(rows: CandidateSpan[]): CandidateSpan[] {
  const keyed = rows.map((row) => ({ row, start: BigInt(row.start_text) }));
  keyed.sort((a, b) =>
    a.start < b.start ? -1 : a.start > b.start ? 1 : a.row.id < b.row.id ? -1 : a.row.id > b.row.id ? 1 : 0,
  );
  return keyed.map((k) => k.row);
}

/**
 * Reads a trace's range (`lookup`) and rows of it (`read`, over a range of start times). With a
 * hint of the range (traceHintTable.ts) both are read at once, the rows in the hinted range; when
 * the range found is not inside the hint (a stale one), the rows are read again in the range found,
 * and the hint is corrected. Either way the rows kept are the trace found's: its environment, its
 * range.
 */
async function readTrace<T extends TraceRange, R extends PlacedRow>(
  src: SpanSource,
  scope: ReadScope,
  traceId: string,
  lookup: () => Promise<T | null>,
  read: (fromNs: bigint, toNs: bigint) => Promise<R[]>,
): Promise<{ found: T; rows: R[] } | null> {
  const hint = src.hints?.rangeOf(scope.tenantId, scope.appId, traceId) ?? null;
  const guessed = hint ? read(hint.fromNs, hint.toNs) : null;
  // The guess is awaited below, or its failure would go unhandled when the lookup fails first.
  guessed?.catch(() => undefined);
  const found = await lookup();
  if (!found) return null;
  const covered = hint !== null && hint.fromNs <= found.startNs && found.endNs <= hint.toNs;
  if (!covered) src.hints?.note(scope.tenantId, scope.appId, traceId, found.startNs, found.endNs);
  const rows = covered ? await guessed! : await read(found.startNs, found.endNs);
  const inTrace = (r: R) => {
    const start = BigInt(r.start_text);
    return r.environment_id === found.environmentId && start >= found.startNs && start <= found.endNs;
  };
  return { found, rows: rows.filter(inTrace) };
}

/** A trace's range and spans (`readTrace`). */
async function withSpans<T extends TraceRange>(
  src: SpanSource,
  scope: ReadScope,
  traceId: string,
  lookup: () => Promise<T | null>,
): Promise<{ found: T; spans: TraceSpan[] } | null> {
  const read = await readTrace(src, scope, traceId, lookup, (fromNs, toNs) =>
    spansStartingIn(src, scope, traceId, fromNs, toNs),
  );
  if (!read) return null;
  return {
    found: read.found,
    spans: read.rows.map(({ start_text: _s, environment_id: _e, ...r }) => ({
      ...toView(r),
      graph: parseObject(r.graph),
    })),
  };
}

/** The spans of one trace, ordered by start; empty when the trace does not exist in scope. */
export async function traceSpans(src: SpanSource, scope: ReadScope, traceId: string): Promise<TraceSpan[]> {
  return (await withSpans(src, scope, traceId, () => traceRange(src.db, scope, traceId)))?.spans ?? [];
}

/**
 * A trace with its spans: the summary, the root span's metadata (the trace's metadata), and the
 * spans. Null when the trace does not exist in scope.
 */
export async function traceWithSpans(
  src: SpanSource,
  scope: ReadScope,
  traceId: string,
): Promise<{ trace: TraceSummary & { metadata: Record<string, unknown> }; spans: TraceSpan[] } | null> {
  const read = await withSpans(src, scope, traceId, () => findTrace(src.db, scope, traceId));
  if (!read) return null;
  return { trace: { ...read.found.summary, metadata: rootOf(read.spans)?.metadata ?? {} }, spans: read.spans };
}

/** The root span: the earliest without a parent, else the earliest (spans come ordered by start). */
function rootOf<T extends { parent_id: string | null }>(spans: readonly T[]): T | undefined {
  return spans.find((s) => s.parent_id === null) ?? spans[0];
}

/**
 * One span with its input and output in full (out-of-line fields fetched from the blob table).
 * With a trace id the span is found through the trace; without one the segments of the scope are
 * searched newest first (`GET /v1/spans/{id}`, which names no trace; see `detailRows`).
 */
export async function spanDetail(
  src: SpanSource,
  scope: ReadScope,
  spanId: string,
  traceId?: string,
): Promise<SpanDetail | null> {
  let r: RawDetail | undefined;
  if (traceId === undefined) [r] = await detailRows(src, scope, spanId, null);
  else {
    const read = await readTrace(
      src,
      scope,
      traceId,
      () => traceRange(src.db, scope, traceId),
      (fromNs, toNs) => detailRows(src, scope, spanId, { traceId, fromNs, toNs }),
    );
    r = read?.rows[0];
  }
  if (!r) return null;
  const {
    input_ref,
    output_ref,
    attributes,
    attributes_in_columns,
    resource,
    scope_name,
    scope_version,
    graph,
    start_text: _s,
    ...rest
  } = r;
  return {
    ...toView(rest),
    input: await withMedia(src.db, scope, input_ref ? await blobText(src.db, scope, input_ref) : r.input),
    output: await withMedia(src.db, scope, output_ref ? await blobText(src.db, scope, output_ref) : r.output),
    run_id: r.run_id,
    environment_id: r.environment_id,
    attributes: restoredAttributes(parseObject(attributes), attributes_in_columns, r),
    resource: parseObject(resource),
    scope: { name: scope_name, version: scope_version },
    graph: parseObject(graph),
  };
}

type RawDetail = RawSpan &
  PlacedRow & {
    input: string | null;
    output: string | null;
    input_ref: string | null;
    output_ref: string | null;
    run_id: string | null;
    attributes: string | null;
    attributes_in_columns: number | null;
    resource: string | null;
    scope_name: string | null;
    scope_version: string | null;
    graph: string | null;
  };

/**
 * The rows of span `spanId` in scope: of trace `traceId` starting in [fromNs, toNs], earliest
 * first (one a trace and environment; `readTrace` keeps the trace's), or without a trace the
 * latest of the scope. That search reads only the files whose span id filter does not rule the id
 * out (compacted files have one, spanIdFilter.ts), listed newest first, and asks for the latest
 * start: once DuckDB finds the span in a file, its top-N bound on the start rules out every older
 * file by its row groups' statistics, so a recent span — the one usually opened — costs a file or
 * two, and an old or missing one the small files of the last minute and the compacted files its
 * filters let through (native-bench/RESULTS.md, "spanById").
 */
async function detailRows(
  src: SpanSource,
  scope: ReadScope,
  spanId: string,
  within: { traceId: string; fromNs: bigint; toNs: bigint } | null,
): Promise<RawDetail[]> {
  const files = within
    ? await segmentsFor(src.db, src.segments, scope, within.fromNs, within.toNs + 1n)
    : (await segmentsMayHold(src.db, src.segments, scope, spanId)).reverse();
  const s = scopeSql(scope, 'x');
  const params: DuckDBValue[] = [...s.params, spanId];
  let where = `${s.sql} AND x.span_id = $${params.length}`;
  if (within) {
    params.push(within.traceId, within.fromNs, within.toNs);
    where += ` AND x.trace_id = $${params.length - 2} AND x.start_ns BETWEEN $${params.length - 1} AND $${params.length}`;
  }
  return src.db.query<RawDetail>(
    `SELECT ${DETAIL_FIELDS}, x.start_ns::VARCHAR AS start_text FROM ${spansFrom(files)} x
       LEFT JOIN resources r ON r.tenant_id = x.tenant_id AND r.app_id = x.app_id AND r.resource_id = x.resource_id
      WHERE ${where} ORDER BY x.start_ns${within ? '' : ' DESC LIMIT 1'}`,
    params,
  );
}

/** The text with the media its references name put back inline (core/media.ts). */
async function withMedia(db: Database, scope: ReadScope, text: string | null): Promise<string | null> {
  if (text === null) return null;
  const refs = mediaReferences(text);
  if (refs.length === 0) return text;
  const found = await Promise.all(
    refs.map(async (sha256) => [sha256, (await readBlob(db, scope, sha256))?.data] as const),
  );
  return restoreMedia(text, new Map(found.filter((f): f is readonly [string, Uint8Array] => f[1] !== undefined)));
}

async function blobText(db: Database, scope: ReadScope, sha256: string): Promise<string | null> {
  const blob = await readBlob(db, scope, sha256);
  return blob ? Buffer.from(blob.data).toString('utf8') : null;
}

/** A blob of the scope: one that spans of the scope's environment (or app, unpinned) refer to. */
export async function readBlob(
  db: Database,
  scope: ReadScope,
  sha256: string,
): Promise<{ mediaType: string; data: Uint8Array } | null> {
  const pinned = scope.environmentId !== null;
  const [row] = await db.query<{ media_type: string; data: string }>(
    `SELECT b.media_type, to_base64(b.data) AS data FROM blobs b
      WHERE b.tenant_id = $1 AND b.app_id = $2 AND b.sha256 = $3
        ${pinned ? 'AND EXISTS (SELECT 1 FROM blob_refs r WHERE r.tenant_id = $1 AND r.app_id = $2 AND r.environment_id = $4 AND r.sha256 = $3)' : ''}`,
    pinned ? [scope.tenantId, scope.appId, sha256, scope.environmentId] : [scope.tenantId, scope.appId, sha256],
  );
  return row ? { mediaType: row.media_type, data: Buffer.from(row.data, 'base64') } : null;
}

export interface Page<T> {
  data: T[];
  total: number;
}

/**
 * Summaries of the traces of a session or a run (the summary's `session_id` / `run_id`: the first
 * one its spans name; for a run, also the traces its eval trials name), newest first. `column` is
 * one of a fixed set, never caller text.
 */
export async function tracesWhere(
  db: Database,
  scope: ReadScope,
  column: 'session_id' | 'run_id',
  value: string,
  limit: number,
  offset: number,
): Promise<Page<TraceSummary>> {
  const s = scopeSql(scope);
  const n = s.params.length;
  // A run's traces are also those its eval trials name (store/evals), whatever their spans say.
  const relation =
    column === 'run_id'
      ? `(${traceSummariesSql((a) => scopeSql(scope, a).sql)}) WHERE (run_id = $${n + 1} OR id IN (SELECT t.trace_id FROM eval_trials t WHERE ${scopeSql(scope, 't').sql} AND t.run_id::VARCHAR = lower($${n + 1})))`
      : await sessionRelation(db, scope, value);
  const rows = await db.query<RawSummary & { total: number }>(
    `SELECT ${SUMMARY_COLUMNS}, (count(*) OVER ())::INTEGER AS total FROM ${relation}
      ORDER BY start_ns DESC, id LIMIT $${n + 2} OFFSET $${n + 3}`,
    [...s.params, value, limit, offset],
  );
  const total =
    rows[0]?.total ??
    (offset > 0
      ? ((await db.query<{ n: number }>(`SELECT count(*)::INTEGER AS n FROM ${relation}`, [...s.params, value]))[0]
          ?.n ?? 0)
      : 0);
  return { data: rows.map(({ total: _t, ...r }) => toSummary(r)), total };
}

/**
 * The summaries of `session` (the parameter after the scope's in the caller's statement). When none
 * of its traces has unmerged parts (parts merge every 2 s), its merged rows found by their session
 * key: DuckDB filters `key = constant` in the scan itself (an IN list or subquery of keys it does
 * not). Otherwise every summary of the scope, merged, then their session compared.
 */
async function sessionRelation(db: Database, scope: ReadScope, session: string): Promise<string> {
  const s = scopeSql(scope);
  const at = s.params.length + 1;
  const byKey = (a: string) =>
    `${scopeSql(scope, a).sql} AND ${a}.session_key = ${sessionKeySql(`$${at}`)} AND ${a}.session_id = $${at}`;
  const [waiting] = await db.query<{ parts: boolean }>(
    `SELECT EXISTS (SELECT 1 FROM trace_parts y WHERE ${scopeSql(scope, 'y').sql}
                       AND (y.session_id = $${at} OR y.trace_id IN (SELECT x.trace_id FROM traces x WHERE ${byKey('x')}))) AS parts`,
    [...s.params, session],
  );
  return waiting?.parts
    ? `(${traceSummariesSql((a) => scopeSql(scope, a).sql)}) WHERE session_id = $${at}`
    : `(${traceSummariesSql(byKey, 'merged')})`;
}

export interface SessionView {
  id: string;
  trace_count: number;
  span_count: number;
  start: string;
  end: string;
  cost: number;
  tokens: number;
  user_id: string | null;
}

/**
 * Sessions with a trace starting in [fromMs, toMs), aggregated over all their traces; latest
 * activity first.
 */
export async function listSessions(
  db: Database,
  scope: ReadScope,
  q: { fromMs: number; toMs: number; limit: number; offset: number; userId?: string },
): Promise<Page<SessionView>> {
  const s = scopeSql(scope);
  const n = s.params.length;
  const filters: DuckDBValue[] = [
    ...s.params,
    BigInt(Math.trunc(q.fromMs)) * 1_000_000n,
    BigInt(Math.trunc(q.toMs)) * 1_000_000n,
  ];
  let userFilter = '';
  if (q.userId !== undefined) {
    filters.push(q.userId);
    userFilter = ` AND user_id = $${filters.length}`;
  }
  const summaries = `WITH t AS (SELECT * FROM (${traceSummariesSql((a) => scopeSql(scope, a).sql)}) WHERE session_id IS NOT NULL),
    active AS (SELECT DISTINCT session_id FROM t WHERE start_ns >= $${n + 1} AND start_ns < $${n + 2}${userFilter})`;
  const rows = await db.query<Omit<SessionView, 'start' | 'end'> & { start_ms: number; end_ms: number; total: number }>(
    `${summaries}
     SELECT t.session_id AS id, count(*)::INTEGER AS trace_count, sum(t.span_count)::INTEGER AS span_count,
            ${MS_SQL('min(t.start_ns)')} AS start_ms, ${MS_SQL('max(t.end_ns)')} AS end_ms,
            coalesce(sum(t.cost), 0)::DOUBLE AS cost, coalesce(sum(t.tokens), 0)::DOUBLE AS tokens,
            min(t.user_id) AS user_id,
            (count(*) OVER ())::INTEGER AS total
       FROM t SEMI JOIN active USING (session_id)
      GROUP BY t.session_id ORDER BY max(t.end_ns) DESC, id LIMIT $${filters.length + 1} OFFSET $${filters.length + 2}`,
    [...filters, q.limit, q.offset],
  );
  const total =
    rows[0]?.total ??
    (q.offset > 0
      ? ((await db.query<{ n: number }>(`${summaries} SELECT count(*)::INTEGER AS n FROM active`, filters))[0]?.n ?? 0)
      : 0);
  return {
    data: rows.map(({ start_ms, end_ms, total: _t, ...r }) => ({ ...r, start: iso(start_ms), end: iso(end_ms) })),
    total,
  };
}

function iso(ms: number): string {
  return new Date(ms).toISOString();
}

function parseObject(text: string | null): Record<string, unknown> {
  if (text === null) return {};
  try {
    const v: unknown = JSON.parse(text);
    return typeof v === 'object' && v !== null && !Array.isArray(v) ? (v as Record<string, unknown>) : {};
  } catch {
    return {};
  }
}
