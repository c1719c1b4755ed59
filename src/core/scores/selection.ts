/**
 * Which scores a list or an aggregation reads, as a plan the store renders into SQL: equality on a
 * fixed set of columns and a `created_at` window. The caller's scope always comes first and is the
 * store's business; user filters (core/filter) are added after this.
 */
import { validationError } from '../errors.js';
import { boundsOf, parse, resolveWindow, startAfterEnd, type WindowBounds } from '../window.js';
import { canonicalDataType, canonicalSource } from './model.js';

export type EqualityColumn = 'name' | 'source' | 'data_type' | 'session_id' | 'trace_id' | 'resource_id' | 'user_id';

export interface ScoreSelection {
  equals: { column: EqualityColumn; value: string }[];
  /** `created_at >= fromMs` (epoch ms), when set. */
  fromMs: number | null;
  /** `created_at < toMs`, when set. */
  toMs: number | null;
}

/** Query parameters that narrow a list of scores (`GET /v1/scores`). */
export interface SelectionQuery extends WindowBounds {
  name?: string;
  source?: string;
  data_type?: string;
  session_id?: string;
  trace_id?: string;
  resource_id?: string;
  user_id?: string;
}

/**
 * The selection of `GET /v1/scores`: a paged list, so each time bound is optional and there is no
 * default window (a trace's scores stay listable however old they are); ids are compared lowercase.
 */
export function planList(q: SelectionQuery): ScoreSelection {
  const { start, end } = boundsOf(q);
  const fromMs = start === undefined ? null : parse(start);
  const toMs = end === undefined ? null : parse(end);
  if (start !== undefined && end !== undefined && parse(start) >= parse(end)) throw startAfterEnd(start, end);
  return { equals: equalities(q), fromMs, toMs };
}

/** Query parameters of `GET /v1/scores/aggregations` besides the string filter. */
export interface AggregationQuery extends WindowBounds {
  name?: string;
  source?: string;
  data_type?: string;
}

export interface AggregationPlan extends ScoreSelection {
  fromMs: number;
  toMs: number;
  /** Aggregates (count, avg, min, max of `score`) are per score name, ordered by name. */
  groupBy: 'name';
}

/** The plan of an aggregation: the search window rules (default 7 days, at most 90) and equalities. */
export function planAggregation(q: AggregationQuery, nowMs: number): AggregationPlan {
  const { fromMs, toMs } = resolveWindow(q, nowMs);
  return { equals: equalities(q), fromMs, toMs, groupBy: 'name' };
}

/** One row of the aggregation as the spec shows it (Score aggregation). */
export interface ScoreAggregation {
  name: string;
  count: number;
  avg_score: number;
  min_score: number;
  max_score: number;
}

function equalities(q: SelectionQuery): ScoreSelection['equals'] {
  const equals: ScoreSelection['equals'] = [];
  if (q.name !== undefined) equals.push({ column: 'name', value: q.name });
  if (q.source !== undefined) {
    const source = canonicalSource(q.source);
    if (!source)
      throw validationError('query', { source: `must be one of api, annotation, eval, sdk, got "${q.source}"` });
    equals.push({ column: 'source', value: source });
  }
  if (q.data_type !== undefined) {
    const dataType = canonicalDataType(q.data_type);
    if (!dataType)
      throw validationError('query', {
        data_type: `must be one of NUMERIC, BOOLEAN, CATEGORICAL, got "${q.data_type}"`,
      });
    equals.push({ column: 'data_type', value: dataType });
  }
  if (q.session_id !== undefined) equals.push({ column: 'session_id', value: q.session_id });
  if (q.trace_id !== undefined) equals.push({ column: 'trace_id', value: q.trace_id.toLowerCase() });
  if (q.resource_id !== undefined) equals.push({ column: 'resource_id', value: q.resource_id.toLowerCase() });
  if (q.user_id !== undefined) equals.push({ column: 'user_id', value: q.user_id });
  return equals;
}
