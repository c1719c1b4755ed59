/**
 * Which metrics plans the span rollups answer, and over which hours. A rollup row holds the spans of
 * one compacted file, one UTC hour and one value of each of a few dimensions (store/spans/rollups.ts),
 * so a plan is answered from rollups when its buckets are whole hours and its grouping and filter
 * name only those dimensions; the window's partial first and last hours are read from the spans.
 */
import type { Filter } from '../filter/index.js';
import { BUCKET_MS, type Dimension, type MetricsPlan } from './plan.js';

/** Groupings a rollup row keeps. */
export const ROLLUP_DIMENSIONS: readonly Dimension[] = [
  'model',
  'name',
  'environment',
  'prompt_name',
  'service_name',
  'span_kind',
];

/** Span filter fields a rollup row keeps, under the column names the filter compiles them to. */
export const ROLLUP_FILTER_FIELDS: readonly string[] = [
  'name',
  'type',
  'span_kind',
  'status',
  'model',
  'prompt_name',
  'service_name',
  'environment',
];

/** Whether rollups can answer `plan` under `filter` (for its whole hours). */
export function rollupsAnswer(plan: MetricsPlan, filter: Filter): boolean {
  return (
    plan.view === 'spans' &&
    plan.bucketMs % BUCKET_MS.hour === 0 &&
    plan.originMs % BUCKET_MS.hour === 0 &&
    plan.groupBy.every((d) => ROLLUP_DIMENSIONS.includes(d)) &&
    filter.every((clause) =>
      ('or' in clause ? clause.or : [clause]).every((p) => ROLLUP_FILTER_FIELDS.includes(p.field)),
    )
  );
}

/** The whole UTC hours inside [fromMs, toMs), as a half-open range; empty when `fromMs >= toMs`. */
export function wholeHours(fromMs: number, toMs: number): { fromMs: number; toMs: number } {
  const hour = BUCKET_MS.hour;
  const first = Math.ceil(fromMs / hour) * hour;
  const end = Math.floor(toMs / hour) * hour;
  return first < end ? { fromMs: first, toMs: end } : { fromMs: first, toMs: first };
}
