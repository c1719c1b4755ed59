/**
 * Span rollups (docs/segments.md, "Rollups"): for each compacted segment, a row per UTC hour and per
 * value of the dimensions metrics group and filter by most — environment, type, kind, name, status,
 * model, prompt and service — with the spans' count, errors, cost, tokens, summed latency and a
 * latency histogram. A metrics request reads these rows for the hours of each file that lie in its
 * window instead of the spans (store/metrics/spanMetrics.ts): a month of a hundred million spans is
 * about seventeen thousand rows.
 *
 * A file is rolled up after compaction has committed it, in the transaction that marks it so; its
 * rows go when its manifest row goes (purge, or a damaged file set aside). Until then readers read
 * its spans, so an answer never depends on whether the rollup has run.
 *
 * The histogram's buckets grow by 2% (log base 1.02 of the duration in nanoseconds), so a
 * percentile read from it (at the bucket's middle) is within 1% of the span's own duration. Keys
 * rise with durations: 0 for none, k + 1 above it and -(k + 1) for a negative one.
 */
import { HOUR_NS, ROLLUP_FILTER_FIELDS } from '../../core/metrics/rollups.js';
import type { Database } from '../db.js';
import { forgetSegments, spansFrom } from './manifest.js';
import type { SegmentStore } from './segmentStore.js';

/** How much wider each histogram bucket is than the one before. */
export const GROWTH = 1.02;

/** The histogram key of a duration in nanoseconds (a BIGINT expression). */
export function latencyKeySql(ns: string): string {
  const bucket = (d: string) => `(ceil(ln(${d}) / ln(${GROWTH}))::SMALLINT + 1)`;
  return `(CASE WHEN ${ns} > 0 THEN ${bucket(ns)} WHEN ${ns} < 0 THEN -${bucket(`-(${ns})`)} ELSE 0::SMALLINT END)`;
}

/** The duration in milliseconds a histogram key stands for: its bucket's middle. */
export function latencyMsOfKeySql(key: string): string {
  const middle = `(2 * pow(${GROWTH}, abs(${key}) - 1) / ${1 + GROWTH} / 1e6)`;
  return `(sign(${key}) * ${middle})`;
}

/**
 * The span columns a rollup row is kept by besides its scope: the filter fields rollups answer
 * (core/metrics/rollups.ts), which compile to span columns of the same names — `environment`
 * reads `environment_id`, a scope column.
 */
const ROLLUP_DIMENSION_COLUMNS = ROLLUP_FILTER_FIELDS.filter((f) => f !== 'environment');

/** The rollup table; `latency` maps histogram keys to span counts. */
export const ROLLUP_TABLE_SQL = `CREATE TABLE span_rollups (
  segment_id BIGINT NOT NULL,
  tenant_id UUID NOT NULL,
  app_id UUID NOT NULL,
  environment_id UUID,
  hour_ns BIGINT NOT NULL,
  ${ROLLUP_DIMENSION_COLUMNS.map((c) => `${c} VARCHAR`).join(', ')},
  n BIGINT NOT NULL,
  errors BIGINT NOT NULL,
  cost DECIMAL(38, 12),
  input_tokens HUGEINT,
  output_tokens HUGEINT,
  tokens HUGEINT,
  latency_ns HUGEINT,
  latency MAP(SMALLINT, UBIGINT)
)`;

/**
 * The measures of a group of span rows `x`, by the names the rollup table gives them — so that a
 * reader sums rollup rows and span rows alike. Cost is summed as a decimal, as trace costs are
 * (docs/decisions.md, money).
 */
export const SPAN_MEASURES_SQL: Record<
  'n' | 'errors' | 'cost' | 'input_tokens' | 'output_tokens' | 'tokens' | 'latency_ns' | 'latency',
  string
> = {
  n: 'count(*)',
  errors: `count(*) FILTER (WHERE x.status = 'ERROR')`,
  cost: 'sum(x.cost::DECIMAL(38, 12))',
  input_tokens: 'sum(x.input_tokens)',
  output_tokens: 'sum(x.output_tokens)',
  tokens: 'sum(x.tokens)',
  latency_ns: 'sum(x.end_ns - x.start_ns)',
  latency: `histogram(${latencyKeySql('(x.end_ns - x.start_ns)')})`,
};

/**
 * Rolls up one compacted segment that has no rollup yet, the oldest first; returns the number of
 * files rolled up (0 when none is waiting).
 */
export async function rollUpOnce(db: Database, store: SegmentStore): Promise<number> {
  const [s] = await db.query<{ id: number; tenant_id: string; app_id: string; path: string; format_version: number }>(
    `SELECT id::DOUBLE AS id, tenant_id::VARCHAR AS tenant_id, app_id::VARCHAR AS app_id, path, format_version
       FROM segments WHERE replaced_at IS NULL AND level > 0 AND rolled_up IS NOT TRUE ORDER BY id LIMIT 1`,
  );
  if (!s) return 0;
  const id = Math.trunc(s.id);
  const measures = Object.entries(SPAN_MEASURES_SQL);
  const columns = ['tenant_id', 'app_id', 'environment_id', ...ROLLUP_DIMENSION_COLUMNS];
  await db.transaction(async (tx) => {
    await tx.exec(
      `INSERT INTO span_rollups (segment_id, hour_ns, ${columns.join(', ')}, ${measures.map(([name]) => name).join(', ')})
       SELECT ${id}, x.start_ns // ${HOUR_NS} * ${HOUR_NS}, ${columns.map((c) => `x.${c}::${c.endsWith('_id') ? 'UUID' : 'VARCHAR'}`).join(', ')},
              ${measures.map(([, sql]) => sql).join(', ')}
         FROM ${spansFrom([{ path: store.readPath(s.path), formatVersion: s.format_version }])} x GROUP BY ALL`,
    );
    await tx.exec('UPDATE segments SET rolled_up = true WHERE id = $1', [id]);
  });
  forgetSegments(db, [{ tenantId: s.tenant_id, appId: s.app_id }]);
  return 1;
}
