/**
 * Time-bucketed metrics (`GET /v1/metrics`) as one DuckDB statement: the view's rows in the
 * caller's scope and window (as the lists read them: trace summaries, score rows; spans and their
 * rollups in spanMetrics.ts), the user filter (compiled here, after them), then one row per bucket
 * and group with the plan's measures; with a grouping, the groups are ranked by their rows over the
 * whole window and the first `groupLimit` kept, in the same statement.
 */
import type { DuckDBValue } from '@duckdb/node-api';
import type { Filter } from '../../core/filter/index.js';
import type { Dimension, Measure, MetricsPlan, View } from '../../core/metrics/plan.js';
import { bucketStartMs, QUANTILES } from '../../core/metrics/plan.js';
import { segmentsFor, spansFrom } from '../spans/manifest.js';
import type { SpanSource } from '../spans/reads.js';
import { filterSql } from '../filterSql.js';
import { scopeSql, type ReadScope } from '../scope.js';
import { traceSummariesSql } from '../spans/traceParts.js';
import { TS_PARAM } from '../sql.js';
import { spanMetricsBase } from './spanMetrics.js';

/**
 * One row of the answer: the bucket's start, the group's values, the measures. An interface, not a
 * `Record` over a union: typia names a bare one after its members, in an order that varies by build.
 */
export interface MetricsRow {
  /** The bucket's start (ISO 8601). */
  bucket: string;
  [column: string]: string | number | null;
}

export interface MetricsAnswer {
  rows: MetricsRow[];
  /** Groups in the window before the limit (1 without a grouping, 0 without rows). */
  groups: number;
}

interface ViewSql {
  /** The columns of the view's row relation, by what they mean. */
  latency: string;
  cost: string;
  status: string;
  /** Epoch time of the row in the plan's unit (`ns` for spans and traces, `ms` for scores). */
  time: string;
  unit: 'ns' | 'ms';
  dims: Partial<Record<Dimension, string>>;
}

/** The views read as rows of a table; spans have their own statement (spanMetrics.ts). */
const VIEW_SQL: Record<Exclude<View, 'spans'>, ViewSql> = {
  traces: {
    latency: 't.latency_ms',
    cost: 't.cost',
    status: 't.status',
    time: 't.start_ns',
    unit: 'ns',
    dims: { name: 't.name', environment: 't.environment', user_id: 't.user_id', session_id: 't.session_id' },
  },
  scores: {
    latency: 'NULL',
    cost: 'NULL',
    status: 'NULL',
    time: 'epoch_ms(s.created_at)',
    unit: 'ms',
    dims: { score_name: 's.name', environment: 'env.name', user_id: 's.user_id', session_id: 's.session_id' },
  },
};

function measureSql(m: Measure, v: ViewSql, alias: string): string {
  const q = QUANTILES[m];
  if (q !== undefined) return `quantile_cont(${v.latency}, ${q})::DOUBLE`;
  switch (m) {
    case 'count':
      return 'count(*)::DOUBLE';
    case 'cost':
      return `coalesce(sum(${v.cost}), 0)::DOUBLE`;
    case 'total_tokens':
      return `coalesce(sum(${alias}.tokens), 0)::DOUBLE`;
    case 'latency_mean':
      return `avg(${v.latency})::DOUBLE`;
    case 'error_rate':
      return `avg(CASE WHEN ${v.status} = 'ERROR' THEN 1.0 ELSE 0.0 END)::DOUBLE`;
    default: // score_avg; the plan offers neither view another measure
      return `avg(${alias}.score)::DOUBLE`;
  }
}

/** The statement's relation and conditions for a view of rows, its scope, window and user filter. */
async function source(
  src: SpanSource,
  plan: MetricsPlan,
  scope: ReadScope,
  filter: Filter,
): Promise<{ with: string; from: string; where: string; params: DuckDBValue[] }> {
  const s = scopeSql(scope);
  const n = s.params.length;
  const fromNs = BigInt(Math.trunc(plan.fromMs)) * 1_000_000n;
  const toNs = BigInt(Math.trunc(plan.toMs)) * 1_000_000n;
  const window = plan.view === 'scores' ? [Math.trunc(plan.fromMs), Math.trunc(plan.toMs)] : [fromNs, toNs];
  const params: DuckDBValue[] = [...s.params, ...window];
  const matches = filterSql(filter, plan.view, params);
  if (plan.view === 'traces') {
    // As in the trace search: a span-level predicate reads the spans starting in or after the window.
    const spans = matches.includes('FROM spans ')
      ? `spans AS (SELECT * FROM ${spansFrom(await segmentsFor(src.db, src.segments, scope, fromNs, null))}), `
      : '';
    return {
      with: `${spans}t AS (SELECT * FROM (${traceSummariesSql((a) => scopeSql(scope, a).sql)}) WHERE start_ns >= $${n + 1} AND start_ns < $${n + 2}), `,
      from: 't',
      where: `(${matches})`,
      params,
    };
  }
  const byEnvironment = plan.groupBy.includes('environment')
    ? ' LEFT JOIN environments env ON env.id = s.environment_id'
    : '';
  return {
    with: '',
    from: `scores s${byEnvironment}`,
    where: `${scopeSql(scope, 's').sql} AND s.created_at >= ${TS_PARAM(n + 1)} AND s.created_at < ${TS_PARAM(n + 2)} AND (${matches})`,
    params,
  };
}

/** The `base` relation of a view of rows (traces, scores): a row per bucket and group. */
async function rowsBase(
  src: SpanSource,
  plan: MetricsPlan & { view: Exclude<View, 'spans'> },
  scope: ReadScope,
  filter: Filter,
): Promise<{ ctes: string; params: DuckDBValue[] }> {
  const v = VIEW_SQL[plan.view];
  const alias = plan.view === 'traces' ? 't' : 's';
  const rel = await source(src, plan, scope, filter);
  // Bucket sizes and origins come from the plan's fixed table, never from the caller's text.
  const scale = v.unit === 'ns' ? 1_000_000 : 1;
  const size = BigInt(plan.bucketMs) * BigInt(scale);
  const origin = BigInt(plan.originMs) * BigInt(scale);
  const bucket = `((${v.time} - ${origin}) // ${size})::DOUBLE AS b`;
  const dims = plan.groupBy.map((d, i) => `${v.dims[d]!} AS g${i}`);
  const measures = plan.measures.map((m, i) => `${measureSql(m, v, alias)} AS m${i}`);
  return {
    ctes: `${rel.with}base AS (SELECT ${[bucket, ...dims, 'count(*) AS n', ...measures].join(', ')} FROM ${rel.from} WHERE ${rel.where} GROUP BY ALL)`,
    params: rel.params,
  };
}

/**
 * The statement of a plan and its parameters: scope, window, then the user filter's. Exported for
 * the benchmark, which runs it on raw DuckDB.
 */
export async function metricsStatement(
  src: SpanSource,
  plan: MetricsPlan,
  scope: ReadScope,
  filter: Filter,
): Promise<{ sql: string; params: DuckDBValue[] }> {
  const { ctes, params } =
    plan.view === 'spans'
      ? await spanMetricsBase(src, plan, scope, filter)
      : await rowsBase(src, { ...plan, view: plan.view }, scope, filter);
  if (plan.groupBy.length === 0) {
    return { sql: `WITH ${ctes} SELECT * EXCLUDE (n), 1::DOUBLE AS groups FROM base ORDER BY b`, params };
  }
  const g = plan.groupBy.map((_, i) => `g${i}`);
  params.push(plan.groupLimit);
  // Groups rank by their rows over the whole window; ties go by value so the cut is stable.
  const ranked = `ranked AS (SELECT ${g.join(', ')}, row_number() OVER (ORDER BY sum(n) DESC, ${g.map((c) => `${c} NULLS LAST`).join(', ')}) AS rank,
                                     count(*) OVER ()::DOUBLE AS groups
                                FROM base GROUP BY ${g.join(', ')})`;
  const join = g.map((c) => `base.${c} IS NOT DISTINCT FROM ranked.${c}`).join(' AND ');
  return {
    sql: `WITH ${ctes}, ${ranked}
          SELECT base.* EXCLUDE (n), ranked.groups FROM base JOIN ranked ON ${join}
           WHERE ranked.rank <= $${params.length} ORDER BY base.b, ranked.rank`,
    params,
  };
}

/** Runs a plan: the rows of the answer, bucket starts as ISO 8601, and the number of groups. */
export async function queryMetrics(
  src: SpanSource,
  plan: MetricsPlan,
  scope: ReadScope,
  filter: Filter,
): Promise<MetricsAnswer> {
  const { sql, params } = await metricsStatement(src, plan, scope, filter);
  const raw = await src.db.query<Record<string, number | string | null>>(sql, params);
  return { rows: raw.map((r) => toRow(plan, r)), groups: raw.length === 0 ? 0 : Number(raw[0]!.groups) };
}

function toRow(plan: MetricsPlan, r: Record<string, number | string | null>): MetricsRow {
  const row: MetricsRow = { bucket: new Date(bucketStartMs(plan.bucket, Number(r.b))).toISOString() };
  for (const [i, d] of plan.groupBy.entries()) row[d] = r[`g${i}`] ?? null;
  for (const [i, m] of plan.measures.entries()) row[m] = r[`m${i}`] ?? null;
  return row;
}
