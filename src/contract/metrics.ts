/**
 * Wire types of `GET /v1/metrics`. typia checks the shapes (enums, dates, bounds); which measures
 * and dimensions a view offers is core/metrics/plan's table.
 */
import typia, { type tags } from 'typia';
import { strictQuery } from './strictQuery.js';
import type { TimeWindowFields } from './window.js';

/** The window defaults to the 7 days before now (before its end, when given). */
export interface MetricsQuery extends TimeWindowFields {
  /** Which rows are measured: trace summaries (default), spans, or scores. */
  view?: 'traces' | 'spans' | 'scores';
  /** Bucket width; default the finest giving at most 200 buckets over the window. */
  bucket?: 'minute' | 'hour' | 'day' | 'week';
  /** Comma-separated measures; default `count`. */
  measures?: string & tags.MinLength<1> & tags.MaxLength<512>;
  /** Comma-separated dimensions, at most two. */
  group_by?: string & tags.MinLength<1> & tags.MaxLength<128>;
  /** Groups kept, the largest (by rows in the window) first; default 10. */
  group_limit?: number & tags.Type<'uint32'> & tags.Minimum<1> & tags.Maximum<100>;
  /** The string filter of the view's list (traces, spans, or the scores' fields). */
  filter?: string & tags.MinLength<1> & tags.MaxLength<8192>;
  /** Narrows admin credentials to one environment of the app, by name. */
  environment?: string & tags.MinLength<1> & tags.MaxLength<64>;
}

export const validateMetricsQuery = strictQuery(
  typia.http.createValidateQuery<MetricsQuery>(),
  typia.json.schemas<[MetricsQuery], '3.1'>(),
);
