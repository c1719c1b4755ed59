/**
 * Trace and span searches: the caller's scope first, then the window, then the user filter
 * (compiled here to SQL with bound parameters only, numbered after the scope's and window's), then
 * sorting with a stable tiebreak and the page.
 */
import type { DuckDBValue } from '@duckdb/node-api';
import { toCsv } from '../../core/csv.js';
import type { Filter } from '../../core/filter/index.js';
import { filterSql } from '../filterSql.js';
import { MS_SQL, PREVIEW_SQL } from './columns.js';
import { segmentsFor, spansFrom } from './manifest.js';
import { settledScope, type SpanSource, type TraceSummary } from './reads.js';
import { scopeSql, type ReadScope } from '../scope.js';
import { keyHalvesSql, mayBeSettled, settledKeys } from './settledKeys.js';
import {
  type KeyScan,
  keyScan,
  type SummarySource,
  summaryRowsSql,
  traceCountOfWaitingSql,
  traceSummariesSql,
  waitingKeysSql,
  waitingTablesSql,
  type Where,
} from './traceParts.js';

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

export const TRACE_CSV_COLUMNS = [
  'id',
  'name',
  'status',
  'start',
  'end',
  'latency_ms',
  'cost',
  'tokens',
  'span_count',
  'input_preview',
  'output_preview',
  'tags',
  'session_id',
  'user_id',
  'environment',
];
export const SPAN_CSV_COLUMNS = [
  'id',
  'trace_id',
  'parent_id',
  'name',
  'type',
  'span_kind',
  'status',
  'status_message',
  'timestamp',
  'duration_ms',
  'model',
  'prompt_name',
  'service_name',
  'input_tokens',
  'output_tokens',
  'tokens',
  'cost',
  'session_id',
  'user_id',
  'metadata',
];

/** How far from the window's edge a page of traces sorted by start is looked for first. */
const NARROW_NS = 3_600_000_000_000n;

export type SearchAnswer<T> = { kind: 'json'; data: T[]; total: number } | { kind: 'csv'; csv: string; total: number };

function windowParams(q: SearchQuery): DuckDBValue[] {
  return [BigInt(Math.trunc(q.fromMs)) * 1_000_000n, BigInt(Math.trunc(q.toMs)) * 1_000_000n];
}

/** A trace as lists and searches return it: the environment by name only. */
export type TraceListItem = Omit<TraceSummary, 'environment_id'>;

/**
 * Trace search over the summaries. A filter on span-level fields (`EXISTS (SELECT 1 FROM spans x
 * …)`) reads the segments of spans that start in or after the window: a trace started in the
 * window can have later spans, never earlier ones.
 */
export async function searchTraces(
  src: SpanSource,
  q: SearchQuery,
  filter: Filter,
): Promise<SearchAnswer<TraceListItem>> {
  const s = scopeSql(q.scope);
  const n = s.params.length;
  const window = windowParams(q);
  const base = [...s.params, ...window];
  const matches = filterSql(filter, 'traces', base);
  const spans = matches.includes('FROM spans ')
    ? `spans AS (SELECT * FROM ${spansFrom(await segmentsFor(src.db, src.segments, q.scope, window[0] as bigint, null))}), `
    : '';
  const where = (a: string) => scopeSql(q.scope, a).sql;
  const list = (run: Run, source: SummarySource, together: boolean) =>
    listTraces(run, q, { source, where, spans, matches, base, n }, together);
  if (await settledScope(src.db, q.scope)) return list((sql, params) => src.db.query(sql, params), 'merged', true);
  // Parts wait: their traces' merged rows are found once (by key, past the settled keys' cutoff and,
  // for the keys its filter may hold, among all) and merged with them once, in temporary tables the
  // page and the total then read — in one snapshot, so that a merge between two statements cannot
  // change which rows those are. The settled keys are taken before it opens (settledKeys.ts).
  const settled = settledKeys(src.db);
  return src.db.snapshot(async (read) => {
    let scan: KeyScan = null;
    if (settled) {
      const waiting = await read.columns(waitingKeysSql(where, keyHalvesSql), s.params);
      scan = keyScan(settled.cutoffNs, mayBeSettled(settled, waiting));
    }
    for (const sql of waitingTablesSql(where, scan)) await read.exec(sql, s.params);
    return list((sql, params) => read.query(sql, params), 'waitingTables', false);
  });
}

type Run = <T>(sql: string, params: DuckDBValue[]) => Promise<T[]>;

/** What `searchTraces` has compiled: the summaries' source, scope, span files, filter and parameters. */
interface ListParts {
  source: SummarySource;
  where: Where;
  spans: string;
  matches: string;
  base: DuckDBValue[];
  /** The scope's parameters: the window's follow. */
  n: number;
}

/** The page and the total of a trace search, by `run`; `together`: both statements at once (never in a snapshot: one connection). */
async function listTraces(
  run: Run,
  q: SearchQuery,
  { source, where, spans, matches, base, n }: ListParts,
  together: boolean,
): Promise<SearchAnswer<TraceListItem>> {
  const window = base.slice(n);
  const inWindow = (x: string) => `${x}.start_ns >= $${n + 1} AND ${x}.start_ns < $${n + 2}`;
  const sort = `${TRACE_SORTS[q.sortBy] ?? TRACE_SORTS.start} ${q.sortOrder === 'asc' ? 'ASC' : 'DESC'} NULLS LAST, t.id ${q.sortOrder === 'asc' ? 'ASC' : 'DESC'}`;
  const page = `LIMIT $${base.length + 1} OFFSET $${base.length + 2}`;
  const relation = `WITH ${spans}t AS (SELECT * FROM (${traceSummariesSql(where, source)}) x WHERE ${inWindow('x')})`;
  const desc = q.sortOrder !== 'asc';
  const pageOf = (bound: string | null) =>
    run<Record<string, unknown>>(
      `${relation}
       SELECT id, name, status, ${MS_SQL('start_ns')} AS start_ms, ${MS_SQL('end_ns')} AS end_ms, latency_ms, cost::DOUBLE AS cost, tokens,
              span_count, input_preview, output_preview, tags, session_id, user_id, environment
         FROM t WHERE ${matches} ${bound === null ? '' : `AND t.start_ns ${desc ? '>=' : '<='} $${base.length + 3}`}
        ORDER BY ${sort} ${page}`,
      [...base, q.limit, q.offset, ...(bound === null ? [] : [BigInt(bound)])],
    );
  // The page and the total as two statements (at once, outside a snapshot): a window count would
  // materialise every matching summary's wide columns (names, previews, tags) to count them, where
  // the count alone reads two narrow columns. Sorted by start (the latest traces), the page's wide
  // columns are read for its own rows only: the start of its last row comes first, from the start
  // times alone, and bounds the page's read (ties at that start are kept, so the page is the same).
  // Only without a filter: a filter would run twice, and a selective one leaves few rows to save on
  // (native-bench/RESULTS.md, "Figures behind the code").
  const bounded = (q.sortBy === 'start' || !(q.sortBy in TRACE_SORTS)) && matches === 'TRUE' && q.limit > 0;
  const boundIn = async (edge: bigint | null) => {
    const [row] = await run<{ bound: string }>(
      `${relation} SELECT start_ns::VARCHAR AS bound FROM t
        ${edge === null ? '' : `WHERE t.start_ns ${desc ? '>=' : '<'} $${base.length + 2}`}
        ORDER BY start_ns ${desc ? 'DESC' : 'ASC'} LIMIT 1 OFFSET $${base.length + 1}`,
      [...base, q.limit + q.offset - 1, ...(edge === null ? [] : [edge])],
    );
    return row?.bound ?? null;
  };
  // The page's last start looked for in the window's newest hour first (its oldest, sorted
  // ascending): a page found there is the window's page, and the start times read are an hour's,
  // not the window's. A page that does not fill there is looked for in the whole window.
  const [from, to] = window as [bigint, bigint];
  const edge = desc ? to - NARROW_NS : from + NARROW_NS;
  const narrower = desc ? edge > from : edge < to;
  const pageBound = async () => (narrower ? ((await boundIn(edge)) ?? (await boundIn(null))) : await boundIn(null));
  // Unfiltered, the total counts the summary rows alone: no environment's name joined to each.
  // From the waiting tables, by arithmetic (`traceCountOfWaitingSql`).
  const countSql =
    matches !== 'TRUE'
      ? `${relation} SELECT count(*)::INTEGER AS n FROM t WHERE ${matches}`
      : source === 'waitingTables'
        ? traceCountOfWaitingSql(where, inWindow)
        : `WITH ${spans}x AS (${summaryRowsSql(where, source)}) SELECT count(*)::INTEGER AS n FROM x WHERE ${inWindow('x')}`;
  const pageRows = () => (bounded ? pageBound().then(pageOf) : pageOf(null));
  const countRows = () => run<{ n: number }>(countSql, base);
  const [rows, counted] = together
    ? await Promise.all([pageRows(), countRows()])
    : [await pageRows(), await countRows()];
  const count = counted[0];
  const data = rows.map(({ start_ms, end_ms, ...r }) => ({
    ...r,
    start: iso(start_ms as number),
    end: iso(end_ms as number),
  })) as unknown as TraceListItem[];
  const total = count?.n ?? 0;
  return q.format === 'csv'
    ? { kind: 'csv', csv: toCsv(TRACE_CSV_COLUMNS, data as unknown as Record<string, unknown>[]), total }
    : { kind: 'json', data, total };
}

export async function searchSpans(
  src: SpanSource,
  q: SearchQuery,
  filter: Filter,
): Promise<SearchAnswer<Record<string, unknown>>> {
  const s = scopeSql(q.scope, 'x');
  const n = s.params.length;
  const window = windowParams(q);
  const base = [...s.params, ...window];
  const files = await segmentsFor(src.db, src.segments, q.scope, window[0] as bigint, window[1] as bigint);
  const from = `${spansFrom(files)} x`;
  const where = `${s.sql} AND x.start_ns >= $${n + 1} AND x.start_ns < $${n + 2} AND (${filterSql(filter, 'spans', base)})`;
  const sort = `${SPAN_SORTS[q.sortBy] ?? SPAN_SORTS.start} ${q.sortOrder === 'asc' ? 'ASC' : 'DESC'} NULLS LAST, x.trace_id, x.span_id`;
  // The page and the total as two statements, run at once: a window count over matching spans would
  // drag every match's wide columns along (native-bench/RESULTS.md, "Figures behind the code").
  const [rows, counted] = await Promise.all([
    src.db.query<Record<string, unknown>>(
      `SELECT x.span_id AS id, x.trace_id, x.parent_id, x.name, x.type, x.span_kind, x.status, x.status_message,
              ${MS_SQL('x.start_ns')} AS start_ms, ${MS_SQL('x.end_ns')} AS end_ms, ((x.end_ns - x.start_ns) / 1e6)::DOUBLE AS duration_ms,
              x.model, x.prompt_name, x.service_name, x.input_tokens, x.output_tokens, x.tokens, x.cost, x.session_id, x.user_id,
              coalesce(x.tags, []) AS tags, ${PREVIEW_SQL('x')}, x.metadata
         FROM ${from} WHERE ${where} ORDER BY ${sort} LIMIT $${base.length + 1} OFFSET $${base.length + 2}`,
      [...base, q.limit, q.offset],
    ),
    src.db.query<{ n: number }>(`SELECT count(*)::INTEGER AS n FROM ${from} WHERE ${where}`, base),
  ]);
  const count = counted[0];
  const data = rows.map(({ start_ms, end_ms, metadata, ...r }) => ({
    ...r,
    timestamp: iso(start_ms as number),
    end_time: iso(end_ms as number),
    metadata: metadata ? (JSON.parse(metadata as string) as unknown) : {},
  }));
  const total = count?.n ?? 0;
  return q.format === 'csv'
    ? { kind: 'csv', csv: toCsv(SPAN_CSV_COLUMNS, data), total }
    : { kind: 'json', data, total };
}

function iso(ms: number): string {
  return new Date(ms).toISOString();
}
