/**
 * Which metrics plans the span rollups answer, and over which hours. A rollup row holds the spans of
 * one compacted file, one UTC hour and one value of each of a few dimensions (store/spans/rollups.ts),
 * so a plan is answered from rollups when its buckets are whole hours and its grouping and filter
 * name only those dimensions — for the hours of each file that lie wholly in the window.
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

/** Whether rollups can answer `plan` under `filter` (for the hours `rollupHours` gives each file). */
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

export const HOUR_NS = BigInt(BUCKET_MS.hour) * 1_000_000n;
const floorHour = (ns: bigint) => ns - (((ns % HOUR_NS) + HOUR_NS) % HOUR_NS);
const ceilHour = (ns: bigint) => floorHour(ns + HOUR_NS - 1n);

/**
 * The hours (a half-open range in ns, empty when `fromNs >= toNs`) whose rollup rows of a file with
 * spans starting in [minStartNs, maxStartNs] answer for all of that file's spans of those hours in
 * the window [fromNs, toNs): the window's whole hours, and a partial first or last hour too when
 * the file's spans of it all lie in the window (a file written before its end, as a live
 * dashboard's window always has them). The file's other spans in the window are read themselves.
 */
export function rollupHours(
  file: { minStartNs: bigint; maxStartNs: bigint },
  fromNs: bigint,
  toNs: bigint,
): { fromNs: bigint; toNs: bigint } {
  const first = file.minStartNs >= fromNs ? floorHour(fromNs) : ceilHour(fromNs);
  const end = file.maxStartNs < toNs ? ceilHour(toNs) : floorHour(toNs);
  return first < end ? { fromNs: first, toNs: end } : { fromNs: first, toNs: first };
}
