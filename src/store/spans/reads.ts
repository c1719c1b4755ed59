/**
 * Reads of spans, traces and sessions. Every query starts from the caller's scope (tenant, app, and
 * the pinned environment when there is one) before anything the caller asked for.
 */
import type { DuckDBValue } from '@duckdb/node-api';
import type { Database } from '../db.js';
import { mergedTracesSql, SUMMARY_COLUMNS } from './traceParts.js';

export interface ReadScope {
  tenantId: string;
  appId: string;
  /** Pinned keys see their environment only; null sees the whole app. */
  environmentId: string | null;
}

/** `WHERE` conditions for a scope, with parameters numbered from `$1`. */
export function scopeSql(scope: ReadScope, alias = ''): { sql: string; params: DuckDBValue[] } {
  const p = alias ? `${alias}.` : '';
  return scope.environmentId === null
    ? { sql: `${p}tenant_id = $1 AND ${p}app_id = $2`, params: [scope.tenantId, scope.appId] }
    : { sql: `${p}tenant_id = $1 AND ${p}app_id = $2 AND ${p}environment_id = $3`, params: [scope.tenantId, scope.appId, scope.environmentId] };
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

const SPAN_FIELDS = `
  span_id AS id, trace_id, parent_id, name, type, span_kind, status, status_message,
  (start_ns / 1e6)::DOUBLE AS start_ms, (end_ns / 1e6)::DOUBLE AS end_ms, ((end_ns - start_ns) / 1e6)::DOUBLE AS duration_ms,
  model, prompt_name, service_name, input_tokens, output_tokens, cached_input_tokens, tokens, cost, session_id, user_id,
  coalesce(tags, []) AS tags, input_preview, output_preview, metadata`;

const DETAIL_FIELDS = `${SPAN_FIELDS}, input, output, input_ref, output_ref, run_id, environment_id, attributes, resource, scope_name, scope_version, graph`;

type RawSpan = Omit<SpanView, 'timestamp' | 'end_time' | 'metadata'> & { start_ms: number; end_ms: number; metadata: string | null };

function toView(r: RawSpan): SpanView {
  const { start_ms, end_ms, metadata, ...rest } = r;
  return { ...rest, timestamp: iso(start_ms), end_time: iso(end_ms), metadata: parseObject(metadata) };
}

/** The spans of one trace, ordered by start; null when the trace does not exist in scope. */
export async function traceSpans(db: Database, scope: ReadScope, traceId: string): Promise<(SpanView & { graph: Record<string, unknown> })[]> {
  const s = scopeSql(scope);
  const rows = await db.query<RawSpan & { graph: string | null }>(
    `SELECT ${SPAN_FIELDS}, graph FROM spans WHERE ${s.sql} AND trace_id = $${s.params.length + 1} ORDER BY start_ns, span_id`,
    [...s.params, traceId],
  );
  return rows.map((r) => ({ ...toView(r), graph: parseObject(r.graph) }));
}

/** One span with its input and output in full (out-of-line fields fetched from the blob table). */
export async function spanDetail(db: Database, scope: ReadScope, spanId: string, traceId?: string): Promise<SpanDetail | null> {
  const s = scopeSql(scope);
  const params: DuckDBValue[] = [...s.params, spanId];
  let where = `${s.sql} AND span_id = $${params.length}`;
  if (traceId !== undefined) {
    params.push(traceId);
    where += ` AND trace_id = $${params.length}`;
  }
  const [r] = await db.query<
    RawSpan & { input: string | null; output: string | null; input_ref: string | null; output_ref: string | null; run_id: string | null; environment_id: string; attributes: string | null; resource: string | null; scope_name: string | null; scope_version: string | null; graph: string | null }
  >(`SELECT ${DETAIL_FIELDS} FROM spans WHERE ${where} ORDER BY start_ns LIMIT 1`, params);
  if (!r) return null;
  const { input_ref, output_ref, attributes, resource, scope_name, scope_version, graph, ...rest } = r;
  return {
    ...toView(rest),
    input: input_ref ? await blobText(db, scope, input_ref) : r.input,
    output: output_ref ? await blobText(db, scope, output_ref) : r.output,
    run_id: r.run_id,
    environment_id: r.environment_id,
    attributes: parseObject(attributes),
    resource: parseObject(resource),
    scope: { name: scope_name, version: scope_version },
    graph: parseObject(graph),
  };
}

async function blobText(db: Database, scope: ReadScope, sha256: string): Promise<string | null> {
  const blob = await readBlob(db, scope, sha256);
  return blob ? Buffer.from(blob.data).toString('utf8') : null;
}

export async function readBlob(db: Database, scope: Pick<ReadScope, 'tenantId' | 'appId'>, sha256: string): Promise<{ mediaType: string; data: Uint8Array } | null> {
  const [row] = await db.query<{ media_type: string; data: string }>(
    `SELECT media_type, to_base64(data) AS data FROM blobs WHERE tenant_id = $1 AND app_id = $2 AND sha256 = $3`,
    [scope.tenantId, scope.appId, sha256],
  );
  return row ? { mediaType: row.media_type, data: Buffer.from(row.data, 'base64') } : null;
}

type RawSummary = Omit<TraceSummary, 'start' | 'end'> & { start_ms: number; end_ms: number };

function toSummary({ start_ms, end_ms, ...rest }: RawSummary): TraceSummary {
  return { ...rest, start: iso(start_ms), end: iso(end_ms) };
}

/** The summary of one trace, with the root span's metadata; null when it does not exist in scope. */
export async function traceSummary(db: Database, scope: ReadScope, traceId: string): Promise<(TraceSummary & { metadata: Record<string, unknown> }) | null> {
  const s = scopeSql(scope, 'x');
  const where = `${s.sql} AND x.trace_id = $${s.params.length + 1}`;
  const [[row], [root]] = await Promise.all([
    db.query<RawSummary>(`SELECT ${SUMMARY_COLUMNS} FROM (${mergedTracesSql(where)})`, [...s.params, traceId]),
    // The trace's metadata is its root span's (parts do not carry metadata).
    db.query<{ metadata: string | null }>(
      `SELECT arg_min(x.metadata, {'r': x.parent_id IS NOT NULL, 's': x.start_ns}) AS metadata FROM spans x WHERE ${where}`,
      [...s.params, traceId],
    ),
  ]);
  if (!row) return null;
  return { ...toSummary(row), metadata: parseObject(root?.metadata ?? null) };
}

export interface Page<T> {
  data: T[];
  total: number;
}

/**
 * Summaries of the traces that have a span matching `column = value` (a session or a run), newest
 * first. `column` is one of a fixed set, never caller text.
 */
export async function tracesWhere(
  db: Database,
  scope: ReadScope,
  column: 'session_id' | 'run_id',
  value: string,
  limit: number,
  offset: number,
): Promise<Page<TraceSummary>> {
  const s = scopeSql(scope, 'x');
  const n = s.params.length;
  const where = `${s.sql} AND x.trace_id IN (SELECT y.trace_id FROM spans y WHERE ${scopeSql(scope, 'y').sql} AND y.${column} = $${n + 1})`;
  const rows = await db.query<RawSummary & { total: number }>(
    `SELECT ${SUMMARY_COLUMNS}, (count(*) OVER ())::INTEGER AS total FROM (${mergedTracesSql(where)})
      ORDER BY start_ms DESC, id LIMIT $${n + 2} OFFSET $${n + 3}`,
    [...s.params, value, limit, offset],
  );
  return { data: rows.map(({ total: _t, ...r }) => toSummary(r)), total: rows[0]?.total ?? (offset > 0 ? await countTraces(db, scope, column, value) : 0) };
}

async function countTraces(db: Database, scope: ReadScope, column: 'session_id' | 'run_id', value: string): Promise<number> {
  const s = scopeSql(scope);
  const [row] = await db.query<{ n: number }>(
    `SELECT count(DISTINCT trace_id)::INTEGER AS n FROM spans WHERE ${s.sql} AND ${column} = $${s.params.length + 1}`,
    [...s.params, value],
  );
  return row?.n ?? 0;
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

/** Sessions with activity in [fromMs, toMs), aggregated over all their spans; latest activity first. */
export async function listSessions(
  db: Database,
  scope: ReadScope,
  q: { fromMs: number; toMs: number; limit: number; offset: number; userId?: string },
): Promise<Page<SessionView>> {
  const s = scopeSql(scope);
  const n = s.params.length;
  // Parameters: scope, window from, window to, optional user, then limit and offset.
  const filters: DuckDBValue[] = [...s.params, BigInt(Math.trunc(q.fromMs)) * 1_000_000n, BigInt(Math.trunc(q.toMs)) * 1_000_000n];
  let userFilter = '';
  if (q.userId !== undefined) {
    filters.push(q.userId);
    userFilter = ` AND user_id = $${filters.length}`;
  }
  const params = [...filters, q.limit, q.offset];
  const page = `LIMIT $${filters.length + 1} OFFSET $${filters.length + 2}`;
  const [countRow] = await db.query<{ n: number }>(
    `SELECT count(DISTINCT session_id)::INTEGER AS n FROM spans
      WHERE ${s.sql} AND session_id IS NOT NULL AND start_ns >= $${n + 1} AND start_ns < $${n + 2}${userFilter}`,
    filters,
  );
  // A session's traces are those with a span naming it; its figures cover every span of them.
  const joined = scopeSql(scope, 's');
  const rows = await db.query<Omit<SessionView, 'start' | 'end'> & { start_ms: number; end_ms: number }>(
    `WITH active AS (
       SELECT DISTINCT session_id FROM spans
        WHERE ${s.sql} AND session_id IS NOT NULL AND start_ns >= $${n + 1} AND start_ns < $${n + 2}${userFilter}),
     members AS (
       SELECT DISTINCT session_id, trace_id FROM spans WHERE ${s.sql} AND session_id IN (SELECT session_id FROM active))
     SELECT m.session_id AS id, count(DISTINCT s.trace_id)::INTEGER AS trace_count,
            (count(*) FILTER (WHERE s.type <> 'EVENT'))::INTEGER AS span_count,
            (min(s.start_ns) / 1e6)::DOUBLE AS start_ms, (max(s.end_ns) / 1e6)::DOUBLE AS end_ms,
            coalesce(sum(s.cost), 0)::DOUBLE AS cost, coalesce(sum(s.tokens), 0)::DOUBLE AS tokens,
            any_value(s.user_id) FILTER (WHERE s.user_id IS NOT NULL) AS user_id
       FROM members m JOIN spans s ON s.trace_id = m.trace_id AND ${joined.sql}
      GROUP BY m.session_id ORDER BY end_ms DESC, id ${page}`,
    params,
  );
  return { data: rows.map(({ start_ms, end_ms, ...r }) => ({ ...r, start: iso(start_ms), end: iso(end_ms) })), total: countRow?.n ?? 0 };
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
