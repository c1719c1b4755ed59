/**
 * What each version of a prompt did in production, in one DuckDB query over the spans that name it
 * (`tracelake.prompt.name` / `langfuse.observation.prompt.name` → the `prompt_name` column; the
 * version is read from the span's kept attributes, `tracelake.prompt.version` first, then
 * `langfuse.observation.prompt.version`): usage, cost, latency, and the average of every score
 * given to those spans and to their traces. Spans that name the prompt but no version are one group
 * with version null.
 */
import type { DuckDBValue } from '@duckdb/node-api';
import { PROMPT_VERSION_SQL, SCORE_RESOURCE_ID_SQL } from '../../core/filter/schema.js';
import { MS_SQL } from '../spans/columns.js';
import { segmentsFor, spansFrom } from '../spans/manifest.js';
import type { SpanSource } from '../spans/reads.js';
import { scopeSql, type ReadScope } from '../scope.js';

export interface ScoreAverage {
  name: string;
  count: number;
  avg_score: number;
}

export interface PromptVersionMetrics {
  version: number | null;
  /** Spans naming this version (generations, usually). */
  spans: number;
  traces: number;
  input_tokens: number;
  output_tokens: number;
  tokens: number;
  cost: number;
  latency_ms: { avg: number; p50: number; p95: number };
  first_seen: string;
  last_seen: string;
  /** Scores given to the spans themselves, per score name. */
  scores: ScoreAverage[];
  /** Scores given to the traces those spans belong to, per score name. */
  trace_scores: ScoreAverage[];
}

const VERSION_SQL = PROMPT_VERSION_SQL;

export async function promptMetrics(
  src: SpanSource,
  scope: ReadScope,
  name: string,
  fromMs: number,
  toMs: number,
): Promise<PromptVersionMetrics[]> {
  const fromNs = BigInt(Math.trunc(fromMs)) * 1_000_000n;
  const toNs = BigInt(Math.trunc(toMs)) * 1_000_000n;
  const files = await segmentsFor(src.db, src.segments, scope, fromNs, toNs);
  const x = scopeSql(scope, 'x');
  const s = scopeSql(scope, 's');
  const n = x.params.length;
  const scoreList = (table: string) =>
    `coalesce((SELECT list({'name': q.name, 'count': q.count, 'avg_score': q.avg_score} ORDER BY q.name) FROM ${table} q WHERE q.version IS NOT DISTINCT FROM u.version), [])`;
  const rows = await src.db.query<
    Omit<PromptVersionMetrics, 'latency_ms' | 'first_seen' | 'last_seen'> & {
      lat_avg: number;
      lat_p50: number;
      lat_p95: number;
      first_ms: number;
      last_ms: number;
    }
  >(
    `WITH x AS (
       SELECT x.span_id, x.trace_id, x.start_ns, x.end_ns, x.input_tokens, x.output_tokens, x.tokens, x.cost, ${VERSION_SQL} AS version
         FROM ${spansFrom(files)} x
        WHERE ${x.sql} AND x.prompt_name = $${n + 1} AND x.start_ns >= $${n + 2} AND x.start_ns < $${n + 3}),
     s AS (SELECT s.name, s.score, s.resource_type, ${SCORE_RESOURCE_ID_SQL} AS resource_id FROM scores s WHERE ${s.sql}),
     span_scores AS (
       SELECT x.version, s.name, count(*)::INTEGER AS count, avg(s.score)::DOUBLE AS avg_score
         FROM x JOIN s ON s.resource_type = 'span' AND s.resource_id = x.span_id GROUP BY ALL),
     trace_scores AS (
       SELECT v.version, s.name, count(*)::INTEGER AS count, avg(s.score)::DOUBLE AS avg_score
         FROM (SELECT DISTINCT version, trace_id FROM x) v JOIN s ON s.resource_type = 'trace' AND s.resource_id = v.trace_id GROUP BY ALL),
     u AS (
       SELECT version, count(*)::INTEGER AS spans, count(DISTINCT trace_id)::INTEGER AS traces,
              coalesce(sum(input_tokens), 0)::DOUBLE AS input_tokens, coalesce(sum(output_tokens), 0)::DOUBLE AS output_tokens,
              coalesce(sum(tokens), 0)::DOUBLE AS tokens, coalesce(sum(cost), 0)::DOUBLE AS cost,
              avg((end_ns - start_ns) / 1e6)::DOUBLE AS lat_avg,
              quantile_cont((end_ns - start_ns) / 1e6, 0.5)::DOUBLE AS lat_p50,
              quantile_cont((end_ns - start_ns) / 1e6, 0.95)::DOUBLE AS lat_p95,
              ${MS_SQL('min(start_ns)')} AS first_ms, ${MS_SQL('max(start_ns)')} AS last_ms
         FROM x GROUP BY version)
     SELECT u.*, ${scoreList('span_scores')} AS scores, ${scoreList('trace_scores')} AS trace_scores
       FROM u ORDER BY u.version DESC NULLS LAST`,
    [...x.params, name, fromNs, toNs] as DuckDBValue[],
  );
  return rows.map(({ lat_avg, lat_p50, lat_p95, first_ms, last_ms, ...r }) => ({
    ...r,
    latency_ms: { avg: lat_avg, p50: lat_p50, p95: lat_p95 },
    first_seen: new Date(first_ms).toISOString(),
    last_seen: new Date(last_ms).toISOString(),
  }));
}
