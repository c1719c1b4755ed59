/**
 * The plan of a metrics request (`GET /v1/metrics`): which rows (view), which time buckets, which
 * measures and which groupings, checked against one table of what each view offers. The store turns
 * a plan into one SQL statement; nothing here knows SQL.
 */
import { ApiError } from '../errors.js';
import type { TimeWindow } from '../window.js';

export const VIEWS = ['traces', 'spans', 'scores'] as const;
export type View = (typeof VIEWS)[number];

export const MEASURES = [
  'count',
  'cost',
  'input_tokens',
  'output_tokens',
  'total_tokens',
  'latency_mean',
  'latency_p50',
  'latency_p90',
  'latency_p95',
  'latency_p99',
  'error_rate',
  'score_avg',
] as const;
export type Measure = (typeof MEASURES)[number];

export const DIMENSIONS = [
  'model',
  'name',
  'environment',
  'user_id',
  'session_id',
  'prompt_name',
  'service_name',
  'span_kind',
  'score_name',
] as const;
export type Dimension = (typeof DIMENSIONS)[number];

const LATENCY = ['latency_mean', 'latency_p50', 'latency_p90', 'latency_p95', 'latency_p99'] as const;

/** The percentile measures, by the fraction of rows at or under them. */
export const QUANTILES: Partial<Record<Measure, number>> = {
  latency_p50: 0.5,
  latency_p90: 0.9,
  latency_p95: 0.95,
  latency_p99: 0.99,
};

/**
 * What each view offers. A trace summary has total tokens but no input/output split, and no single
 * model (a trace may call several): those are span questions. Scores have a value, not a duration.
 */
export const VIEW_MEASURES: Record<View, readonly Measure[]> = {
  traces: ['count', 'cost', 'total_tokens', ...LATENCY, 'error_rate'],
  spans: ['count', 'cost', 'input_tokens', 'output_tokens', 'total_tokens', ...LATENCY, 'error_rate'],
  scores: ['count', 'score_avg'],
};

export const VIEW_DIMENSIONS: Record<View, readonly Dimension[]> = {
  traces: ['name', 'environment', 'user_id', 'session_id'],
  spans: ['model', 'name', 'environment', 'user_id', 'session_id', 'prompt_name', 'service_name', 'span_kind'],
  scores: ['score_name', 'environment', 'user_id', 'session_id'],
};

export const BUCKETS = ['minute', 'hour', 'day', 'week'] as const;
export type Bucket = (typeof BUCKETS)[number];

const MINUTE_MS = 60_000;
const DAY_MS = 86_400_000;
export const BUCKET_MS: Record<Bucket, number> = {
  minute: MINUTE_MS,
  hour: 60 * MINUTE_MS,
  day: DAY_MS,
  week: 7 * DAY_MS,
};
/** Buckets are aligned in UTC from this instant; weeks start on Monday (1970-01-05 was one). */
export const BUCKET_ORIGIN_MS: Record<Bucket, number> = { minute: 0, hour: 0, day: 0, week: 4 * DAY_MS };

/** Buckets one answer may hold (a day of minutes, 90 days of hours). */
export const MAX_BUCKETS = 2500;
/** Without `bucket`, the finest bucket that keeps a window under this many (a readable chart). */
export const AUTO_BUCKETS = 200;
export const MAX_GROUP_BY = 2;
export const GROUP_LIMIT = { default: 10, max: 100 } as const;

export interface MetricsRequest {
  view?: View;
  bucket?: Bucket;
  /** Comma-separated measure names; default `count`. */
  measures?: string;
  /** Comma-separated dimension names, at most two. */
  group_by?: string;
  group_limit?: number;
}

export interface MetricsPlan {
  view: View;
  bucket: Bucket;
  bucketMs: number;
  originMs: number;
  /** Index (from the origin, in buckets) of the bucket holding `fromMs`. */
  firstBucket: number;
  /** Buckets the window touches. */
  buckets: number;
  fromMs: number;
  toMs: number;
  measures: Measure[];
  groupBy: Dimension[];
  groupLimit: number;
}

/** The index of the bucket holding `ms`. */
export function bucketIndex(bucket: Bucket, ms: number): number {
  return Math.floor((ms - BUCKET_ORIGIN_MS[bucket]) / BUCKET_MS[bucket]);
}

/** The start of bucket `index`, in ms since the epoch. */
export function bucketStartMs(bucket: Bucket, index: number): number {
  return BUCKET_ORIGIN_MS[bucket] + index * BUCKET_MS[bucket];
}

/** Buckets the half-open window [fromMs, toMs) touches. */
export function bucketsIn(bucket: Bucket, window: TimeWindow): number {
  return bucketIndex(bucket, window.toMs - 1) - bucketIndex(bucket, window.fromMs) + 1;
}

/**
 * Checks a request against the view's table and the caps, and resolves its defaults. Every
 * mistake is reported at once, in `details` by parameter (400 `invalid_query_parameters`).
 */
export function planMetrics(q: MetricsRequest, window: TimeWindow): MetricsPlan {
  const view = q.view ?? 'traces';
  const details: Record<string, string> = {};
  const measures = names(q.measures ?? 'count', 'measures', MEASURES, VIEW_MEASURES[view], view, details);
  const groupBy = names(q.group_by ?? '', 'group_by', DIMENSIONS, VIEW_DIMENSIONS[view], view, details);
  if (groupBy.length > MAX_GROUP_BY) details.group_by = `at most ${MAX_GROUP_BY} dimensions, got ${groupBy.length}`;
  const bucket = q.bucket ?? BUCKETS.find((b) => bucketsIn(b, window) <= AUTO_BUCKETS) ?? 'week';
  const buckets = bucketsIn(bucket, window);
  if (buckets > MAX_BUCKETS)
    details.bucket = `${bucket} buckets over this window are ${buckets}; at most ${MAX_BUCKETS} per answer: choose a larger bucket or a shorter window`;
  if (Object.keys(details).length > 0) throw new ApiError('invalid_query_parameters', undefined, { details });
  return {
    view,
    bucket,
    bucketMs: BUCKET_MS[bucket],
    originMs: BUCKET_ORIGIN_MS[bucket],
    firstBucket: bucketIndex(bucket, window.fromMs),
    buckets,
    fromMs: window.fromMs,
    toMs: window.toMs,
    measures,
    groupBy,
    groupLimit: q.group_limit ?? GROUP_LIMIT.default,
  };
}

/** A comma-separated list of names, each known and offered by the view, without repeats. */
function names<T extends string>(
  text: string,
  param: string,
  known: readonly T[],
  offered: readonly T[],
  view: View,
  details: Record<string, string>,
): T[] {
  const out: T[] = [];
  for (const raw of text.split(',')) {
    const name = raw.trim();
    if (name === '') continue;
    if (!(known as readonly string[]).includes(name)) {
      details[param] =
        `unknown ${param === 'measures' ? 'measure' : 'dimension'} "${name}"; view ${view} offers ${offered.join(', ')}`;
    } else if (!(offered as readonly string[]).includes(name)) {
      const table: Record<View, readonly string[]> = param === 'measures' ? VIEW_MEASURES : VIEW_DIMENSIONS;
      const elsewhere = VIEWS.filter((v) => table[v].includes(name));
      details[param] =
        `"${name}" is not offered by view ${view} (it is by ${elsewhere.join(', ')}); view ${view} offers ${offered.join(', ')}`;
    } else if (!out.includes(name as T)) out.push(name as T);
  }
  if (param === 'measures' && out.length === 0 && details[param] === undefined)
    details[param] = `name at least one measure; view ${view} offers ${offered.join(', ')}`;
  return out;
}
