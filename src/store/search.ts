/**
 * Trace and span searches: the caller's scope first, then the window, then the compiled user
 * filter (SQL with bound parameters only, from core/filter), then sorting with a stable tiebreak and
 * the page. The filter's SQL expects its parameters to start right after the ones built here.
 */
import type { DuckDBValue } from '@duckdb/node-api';
import { toCsv } from '../core/csv.js';
import type { Database } from './db.js';
import { scopeSql, type ReadScope, type TraceSummary } from './spanReads.js';

/** A user filter compiled against its parameter numbering (see `firstParam`). */
export interface CompiledFilter {
  sql: string;
  params: unknown[];
}

export interface SearchQuery {
  scope: ReadScope;
  fromMs: number;
  toMs: number;
  limit: number;
  offset: number;
  sortBy: string;
  sortOrder: 'asc' | 'desc';
  format: 'json' | 'csv';
}

/** Placeholders the search uses before the user filter's: scope, window from, window to. */
export function firstFilterParam(scope: ReadScope): number {
  return scopeSql(scope).params.length + 3;
}

export const TRACE_SORTS: Record<string, string> = {
  start: 't.start_ns',
  end: 't.end_ns',
  latency_ms: 't.latency_ms',
  cost: 't.cost',
  tokens: 't.tokens',
  span_count: 't.span_count',
  name: 't.name',
  status: 't.status',
};

export const SPAN_SORTS: Record<string, string> = {
  start: 'x.start_ns',
  duration_ms: '(x.end_ns - x.start_ns)',
  cost: 'x.cost',
  tokens: 'x.tokens',
  name: 'x.name',
  model: 'x.model',
};

export const TRACE_CSV_COLUMNS = ['id', 'name', 'status', 'start', 'end', 'latency_ms', 'cost', 'tokens', 'span_count', 'input_preview', 'output_preview', 'tags', 'session_id', 'user_id', 'environment'];
export const SPAN_CSV_COLUMNS = ['id', 'trace_id', 'parent_id', 'name', 'type', 'span_kind', 'status', 'status_message', 'timestamp', 'duration_ms', 'model', 'prompt_name', 'service_name', 'input_tokens', 'output_tokens', 'tokens', 'cost', 'session_id', 'user_id', 'metadata'];

export type SearchAnswer<T> = { kind: 'json'; data: T[]; total: number } | { kind: 'csv'; csv: string; total: number };

/**
 * The trace-summary relation `t` of the filter contract, for traces that start in the window:
 * one row per trace, merged from its summary parts (see traceParts.ts), with its environment name.
 */
function traceRelation(scopeWhere: string, n: number): string {
  const best = `{'r': x.best_r, 's': x.best_s}`;
  return `
    SELECT x.tenant_id, x.app_id, x.trace_id AS id,
      arg_min(x.best_name, ${best}) AS name,
      CASE WHEN max(x.has_error) = 1 THEN 'ERROR' WHEN max(x.has_ok) = 1 THEN 'OK' ELSE 'UNSET' END AS status,
      min(x.start_ns) AS start_ns, max(x.end_ns) AS end_ns,
      ((max(x.end_ns) - min(x.start_ns)) / 1e6)::DOUBLE AS latency_ms,
      sum(x.cost)::DOUBLE AS cost,
      sum(x.tokens)::DOUBLE AS tokens,
      sum(x.span_count)::INTEGER AS span_count,
      arg_min(x.best_input_preview, ${best}) AS input_preview,
      arg_min(x.best_output_preview, ${best}) AS output_preview,
      list_sort(list_distinct(flatten(list(x.tags)))) AS tags,
      any_value(x.session_id) FILTER (WHERE x.session_id IS NOT NULL) AS session_id,
      any_value(x.user_id) FILTER (WHERE x.user_id IS NOT NULL) AS user_id,
      any_value(e.name) AS environment
    FROM trace_parts x LEFT JOIN environments e ON e.id = x.environment_id
    WHERE ${scopeWhere}
    GROUP BY x.tenant_id, x.app_id, x.trace_id
    HAVING min(x.start_ns) >= $${n + 1} AND min(x.start_ns) < $${n + 2}`;
}

function windowParams(q: SearchQuery): DuckDBValue[] {
  return [BigInt(Math.trunc(q.fromMs)) * 1_000_000n, BigInt(Math.trunc(q.toMs)) * 1_000_000n];
}

export async function searchTraces(db: Database, q: SearchQuery, filter: CompiledFilter): Promise<SearchAnswer<TraceSummary & { environment: string | null }>> {
  const s = scopeSql(q.scope, 'x');
  const n = s.params.length;
  const base = [...s.params, ...windowParams(q), ...(filter.params as DuckDBValue[])];
  const sort = `${TRACE_SORTS[q.sortBy] ?? TRACE_SORTS.start} ${q.sortOrder === 'asc' ? 'ASC' : 'DESC'} NULLS LAST, t.id ${q.sortOrder === 'asc' ? 'ASC' : 'DESC'}`;
  const page = `LIMIT $${base.length + 1} OFFSET $${base.length + 2}`;
  const relation = `WITH t AS (${traceRelation(s.sql, n)})`;
  // One pass: the page and the total of all matches (a window count, computed before LIMIT). Only a
  // page past the end needs a second statement to know the total.
  const rows = await db.query<Record<string, unknown>>(
    `${relation}
     SELECT id, name, status, (start_ns / 1e6)::DOUBLE AS start_ms, (end_ns / 1e6)::DOUBLE AS end_ms, latency_ms, cost, tokens,
            span_count, input_preview, output_preview, tags, session_id, user_id, environment, (count(*) OVER ())::INTEGER AS total
       FROM t WHERE ${filter.sql} ORDER BY ${sort} ${page}`,
    [...base, q.limit, q.offset],
  );
  const count = rows.length > 0 || q.offset === 0
    ? { n: (rows[0]?.total as number | undefined) ?? 0 }
    : (await db.query<{ n: number }>(`${relation} SELECT count(*)::INTEGER AS n FROM t WHERE ${filter.sql}`, base))[0];
  for (const r of rows) delete r.total;
  const data = rows.map(({ start_ms, end_ms, ...r }) => ({ ...r, start: iso(start_ms as number), end: iso(end_ms as number) })) as unknown as (TraceSummary & { environment: string | null })[];
  const total = count?.n ?? 0;
  return q.format === 'csv' ? { kind: 'csv', csv: toCsv(TRACE_CSV_COLUMNS, data as unknown as Record<string, unknown>[]), total } : { kind: 'json', data, total };
}

export async function searchSpans(db: Database, q: SearchQuery, filter: CompiledFilter): Promise<SearchAnswer<Record<string, unknown>>> {
  const s = scopeSql(q.scope, 'x');
  const n = s.params.length;
  const base = [...s.params, ...windowParams(q), ...(filter.params as DuckDBValue[])];
  const where = `${s.sql} AND x.start_ns >= $${n + 1} AND x.start_ns < $${n + 2} AND (${filter.sql})`;
  const sort = `${SPAN_SORTS[q.sortBy] ?? SPAN_SORTS.start} ${q.sortOrder === 'asc' ? 'ASC' : 'DESC'} NULLS LAST, x.trace_id, x.span_id`;
  const rows = await db.query<Record<string, unknown>>(
    `SELECT x.span_id AS id, x.trace_id, x.parent_id, x.name, x.type, x.span_kind, x.status, x.status_message,
            (x.start_ns / 1e6)::DOUBLE AS start_ms, (x.end_ns / 1e6)::DOUBLE AS end_ms, ((x.end_ns - x.start_ns) / 1e6)::DOUBLE AS duration_ms,
            x.model, x.prompt_name, x.service_name, x.input_tokens, x.output_tokens, x.tokens, x.cost, x.session_id, x.user_id,
            coalesce(x.tags, []) AS tags, x.input_preview, x.output_preview, x.metadata, (count(*) OVER ())::INTEGER AS total
       FROM spans x WHERE ${where} ORDER BY ${sort} LIMIT $${base.length + 1} OFFSET $${base.length + 2}`,
    [...base, q.limit, q.offset],
  );
  const count = rows.length > 0 || q.offset === 0
    ? { n: (rows[0]?.total as number | undefined) ?? 0 }
    : (await db.query<{ n: number }>(`SELECT count(*)::INTEGER AS n FROM spans x WHERE ${where}`, base))[0];
  const data = rows.map(({ start_ms, end_ms, metadata, total: _total, ...r }) => ({
    ...r,
    timestamp: iso(start_ms as number),
    end_time: iso(end_ms as number),
    metadata: metadata ? (JSON.parse(metadata as string) as unknown) : {},
  }));
  const total = count?.n ?? 0;
  return q.format === 'csv' ? { kind: 'csv', csv: toCsv(SPAN_CSV_COLUMNS, data), total } : { kind: 'json', data, total };
}

function iso(ms: number): string {
  return new Date(ms).toISOString();
}
