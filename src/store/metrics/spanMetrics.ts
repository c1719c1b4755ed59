/**
 * The spans view of `GET /v1/metrics` (metrics.ts has the other views and the statement around
 * this): rows shaped like rollup rows — a bucket, the grouping's columns, counts and sums, a latency
 * histogram — from up to three parts, then summed per bucket and group:
 *
 * - the rollup rows of rolled-up files for their hours in the window, when rollups answer the plan
 *   (core/metrics/rollups.ts: the window's whole hours, and its partial ends for a file that lies
 *   within them);
 * - the spans of those files in the window outside those hours;
 * - the spans of every other file in the window: ingested ones, those not rolled up yet, and all of
 *   them when rollups do not answer the plan.
 *
 * Every part sums the same way and percentiles always come from the summed histograms, so an answer
 * does not change when a file is compacted or rolled up. The file lists come from one manifest
 * listing, so a file is never counted twice.
 */
import type { DuckDBValue } from '@duckdb/node-api';
import type { Filter } from '../../core/filter/index.js';
import { QUANTILES, type Dimension, type Measure, type MetricsPlan } from '../../core/metrics/plan.js';
import { rollupHours, rollupsAnswer } from '../../core/metrics/rollups.js';
import { filterSql } from '../filterSql.js';
import { scopeSql, type ReadScope } from '../scope.js';
import { listSegments, spansFrom, type ListedSegment } from '../spans/manifest.js';
import type { SpanSource } from '../spans/reads.js';
import { latencyMsOfKeySql, SPAN_MEASURES_SQL } from '../spans/rollups.js';

type Column = keyof typeof SPAN_MEASURES_SQL;

/** The part columns a measure is summed from (`n` is always there). */
const MEASURE_COLUMN: Partial<Record<Measure, Column>> = {
  cost: 'cost',
  input_tokens: 'input_tokens',
  output_tokens: 'output_tokens',
  total_tokens: 'tokens',
  latency_mean: 'latency_ns',
  error_rate: 'errors',
};

/** A grouping's column in a part: a span column, or the same-named rollup column. */
const DIMENSION_COLUMN: Partial<Record<Dimension, string>> = {
  model: 'x.model',
  name: 'x.name',
  environment: 'x.environment_id',
  user_id: 'x.user_id',
  session_id: 'x.session_id',
  prompt_name: 'x.prompt_name',
  service_name: 'x.service_name',
  span_kind: 'x.span_kind::VARCHAR',
};

/** A measure over the parts' rows `x`; percentiles are read from the histograms instead. */
function summedSql(m: Measure): string {
  switch (m) {
    case 'count':
      return 'sum(x.n)::DOUBLE';
    case 'latency_mean':
      return '(sum(x.latency_ns) / sum(x.n) / 1e6)::DOUBLE';
    case 'error_rate':
      return '(sum(x.errors) / sum(x.n))::DOUBLE';
    default:
      return `coalesce(sum(x.${MEASURE_COLUMN[m]!}), 0)::DOUBLE`;
  }
}

/**
 * The spans view's `base` relation (one row per bucket and group: `b`, `g0`…, `n`, `m0`…) as
 * common table expressions ending with `base`, and their parameters.
 */
export async function spanMetricsBase(
  src: SpanSource,
  plan: MetricsPlan,
  scope: ReadScope,
  filter: Filter,
): Promise<{ ctes: string; params: DuckDBValue[] }> {
  const s = scopeSql(scope);
  const n = s.params.length;
  const ns = (ms: number) => BigInt(Math.trunc(ms)) * 1_000_000n;
  const fromNs = ns(plan.fromMs);
  const toNs = ns(plan.toMs);
  const files = await listSegments(src.db, src.segments, scope, fromNs, toNs);
  const answerable = rollupsAnswer(plan, filter);
  // Each rolled-up file's rollup hours; the files without any are read whole.
  const rolled = files.flatMap((f) => {
    const hours = answerable && f.rolledUp ? rollupHours(f, fromNs, toNs) : null;
    return hours && hours.fromNs < hours.toNs ? [{ file: f, hours }] : [];
  });
  const fromRollups = new Set(rolled.map((r) => r.file));
  const spanned = files.filter((f) => !fromRollups.has(f));

  // Parameters: scope, window, the user filter's, then the hours' bounds the parts name.
  const params: DuckDBValue[] = [...s.params, fromNs, toNs];
  const [from, to] = [`$${n + 1}`, `$${n + 2}`];
  const where = `${scopeSql(scope, 'x').sql} AND (${filterSql(filter, 'spans', params)})`;
  const bound = new Map<bigint, string>();
  const at = (v: bigint) => bound.get(v) ?? bound.set(v, `$${params.push(v)}`).get(v)!;
  const quantiles = plan.measures.filter((m) => QUANTILES[m] !== undefined);
  const columns: Column[] = [
    'n',
    ...new Set(plan.measures.flatMap((m) => MEASURE_COLUMN[m] ?? (QUANTILES[m] !== undefined ? 'latency' : []))),
  ];
  const keys = plan.groupBy.map((d, i) => `${DIMENSION_COLUMN[d]!} AS k${i}`);
  // Bucket sizes and origins come from the plan's fixed table, never from the caller's text.
  const bucket = (time: string) =>
    `(${time} - ${BigInt(plan.originMs) * 1_000_000n}) // ${BigInt(plan.bucketMs) * 1_000_000n} AS b`;
  const spansPart = (list: readonly ListedSegment[], time: string) =>
    `SELECT ${[bucket('x.start_ns'), ...keys, ...columns.map((c) => `${SPAN_MEASURES_SQL[c]} AS ${c}`)].join(', ')}
       FROM ${spansFrom(list)} x WHERE ${where} AND ${time} GROUP BY ALL`;
  const parts = [spansPart(spanned, `x.start_ns >= ${from} AND x.start_ns < ${to}`)];
  // A rolled-up file's spans in the window outside its rollup hours: at the window's start, at its end.
  const before = rolled.filter((r) => r.hours.fromNs > fromNs);
  if (before.length > 0)
    parts.push(
      spansPart(
        before.map((r) => r.file),
        `x.start_ns >= ${from} AND x.start_ns < ${at(before[0]!.hours.fromNs)}`,
      ),
    );
  const after = rolled.filter((r) => r.hours.toNs < toNs);
  if (after.length > 0)
    parts.push(
      spansPart(
        after.map((r) => r.file),
        `x.start_ns >= ${at(after[0]!.hours.toNs)} AND x.start_ns < ${to}`,
      ),
    );
  // The rollup rows, files grouped by their hours (at most four ranges: each end whole or not).
  const byHours = new Map<string, { hours: { fromNs: bigint; toNs: bigint }; ids: number[] }>();
  for (const r of rolled) {
    const key = `${r.hours.fromNs}/${r.hours.toNs}`;
    const group = byHours.get(key) ?? byHours.set(key, { hours: r.hours, ids: [] }).get(key)!;
    group.ids.push(r.file.id);
  }
  if (byHours.size > 0) {
    const which = [...byHours.values()].map(
      (h) =>
        `(x.segment_id IN (${h.ids.join(', ')}) AND x.hour_ns >= ${at(h.hours.fromNs)} AND x.hour_ns < ${at(h.hours.toNs)})`,
    );
    parts.push(
      `SELECT ${[bucket('x.hour_ns'), ...keys, ...columns.map((c) => `x.${c}`)].join(', ')}
         FROM span_rollups x WHERE (${which.join(' OR ')}) AND ${where}`,
    );
  }

  const g = plan.groupBy.map((_, i) => `g${i}`);
  const groups = plan.groupBy.map((d, i) => (d === 'environment' ? `env${i}.name AS g${i}` : `x.k${i} AS g${i}`));
  const joins = plan.groupBy
    .map((d, i) => (d === 'environment' ? ` LEFT JOIN environments env${i} ON env${i}.id = x.k${i}` : ''))
    .join('');
  const grouped = (select: string[]) =>
    `SELECT ${['x.b::DOUBLE AS b', ...groups, ...select].join(', ')} FROM r x${joins}`;
  const summed = plan.measures.map((m, i) =>
    QUANTILES[m] === undefined ? `${summedSql(m)} AS m${i}` : `NULL::DOUBLE AS m${i}`,
  );
  const ctes = [
    `r AS (${parts.join(' UNION ALL ')})`,
    `${quantiles.length > 0 ? 'summed' : 'base'} AS (${grouped(['sum(x.n) AS n', ...summed])} GROUP BY ALL)`,
  ];
  if (quantiles.length > 0) {
    const by = ['b', ...g].join(', ');
    // The element at 0-based rank r sits in the first bucket whose running count passes r; a
    // percentile interpolates between the two ranks around it, as quantile_cont does.
    const ranks = plan.measures.flatMap((m, i) => {
      const q = QUANTILES[m];
      if (q === undefined) return [];
      const at = `(total - 1) * ${q}`;
      return [
        `min(k) FILTER (WHERE upto > floor(${at})) AS lo${i}`,
        `min(k) FILTER (WHERE upto > ceil(${at})) AS hi${i}`,
        `any_value(${at} - floor(${at})) AS f${i}`,
      ];
    });
    const value = (i: number) => {
      const [lo, hi] = [latencyMsOfKeySql(`q.lo${i}`), latencyMsOfKeySql(`q.hi${i}`)];
      return `(${lo} + (${hi} - ${lo}) * q.f${i})::DOUBLE AS m${i}`;
    };
    ctes.push(
      `hist AS (SELECT ${by}, k, sum(c) AS c
                  FROM (${grouped(['unnest(map_keys(x.latency)) AS k', 'unnest(map_values(x.latency)) AS c'])})
                 GROUP BY ALL)`,
      `running AS (SELECT *, sum(c) OVER (PARTITION BY ${by} ORDER BY k) AS upto, sum(c) OVER (PARTITION BY ${by}) AS total FROM hist)`,
      `q AS (SELECT ${by}, ${ranks.join(', ')} FROM running GROUP BY ALL)`,
      `base AS (SELECT ${['summed.b', ...g.map((c) => `summed.${c}`), 'summed.n', ...plan.measures.map((m, i) => (QUANTILES[m] === undefined ? `summed.m${i}` : value(i)))].join(', ')}
                  FROM summed LEFT JOIN q ON ${['summed.b = q.b', ...g.map((c) => `summed.${c} IS NOT DISTINCT FROM q.${c}`)].join(' AND ')})`,
    );
  }
  return { ctes: ctes.join(',\n'), params };
}
