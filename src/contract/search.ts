/**
 * Wire types of the list and search endpoints. typia checks shapes and limits here (unknown
 * properties are refused); the filter semantics (fields, operators per type) are core/filter's.
 */
import type { EnvironmentName } from './admin.js';
import { strictQuery } from './strictQuery.js';
import typia, { type tags } from 'typia';
import type { Count } from './ids.js';
import type { TimeWindowFields } from './window.js';

export type FilterValue = (string & tags.MaxLength<500>) | number;

export interface JsonPredicate {
  field: string & tags.MinLength<1> & tags.MaxLength<128>;
  operator:
    | 'equals'
    | 'notEquals'
    | 'contains'
    | 'notContains'
    | 'startsWith'
    | 'endsWith'
    | 'gt'
    | 'gte'
    | 'lt'
    | 'lte'
    | 'exists'
    | 'doesNotExist'
    | 'in'
    | 'notIn'
    | 'between';
  value?: FilterValue | (FilterValue[] & tags.MaxItems<50>);
}

export interface JsonOrGroup {
  or: JsonPredicate[] & tags.MinItems<1> & tags.MaxItems<20>;
}

interface SearchBody extends TimeWindowFields {
  filters?: (JsonPredicate | JsonOrGroup)[] & tags.MaxItems<20>;
  /** Narrows reads to one environment of the app, by name (admin credentials read them all). */
  environment?: EnvironmentName;
  limit?: number & tags.Type<'uint32'> & tags.Minimum<1> & tags.Maximum<1000>;
  offset?: Count;
  sort_order?: 'asc' | 'desc';
}

export interface TraceSearchBody extends SearchBody {
  sort_by?: 'start' | 'end' | 'latency_ms' | 'cost' | 'tokens' | 'span_count' | 'name' | 'status';
}

export interface SpanSearchBody extends SearchBody {
  sort_by?: 'start' | 'duration_ms' | 'cost' | 'tokens' | 'name' | 'model';
}

export interface TraceListQuery extends TimeWindowFields {
  filter?: string & tags.MinLength<1> & tags.MaxLength<8192>;
  /** Narrows reads to one environment of the app, by name (admin credentials read them all). */
  environment?: EnvironmentName;
  limit?: number & tags.Type<'uint32'> & tags.Minimum<1> & tags.Maximum<1000>;
  offset?: Count;
  sort_by?: TraceSearchBody['sort_by'];
  sort_order?: 'asc' | 'desc';
  format?: 'json' | 'csv';
}

export interface SpanListQuery extends TimeWindowFields {
  filter?: string & tags.MinLength<1> & tags.MaxLength<8192>;
  /** Narrows reads to one environment of the app, by name (admin credentials read them all). */
  environment?: EnvironmentName;
  limit?: number & tags.Type<'uint32'> & tags.Minimum<1> & tags.Maximum<500>;
  offset?: Count;
  type?: 'SPAN' | 'GENERATION' | 'EVENT';
  status?: 'UNSET' | 'OK' | 'ERROR';
  min_duration_ms?: number & tags.Minimum<0>;
  max_duration_ms?: number & tags.Minimum<0>;
  model?: string & tags.MinLength<1> & tags.MaxLength<500>;
  name?: string & tags.MinLength<1> & tags.MaxLength<500>;
  trace_id?: string & tags.Pattern<'^[0-9a-fA-F]{32}$'>;
  sort_by?: SpanSearchBody['sort_by'];
  sort_order?: 'asc' | 'desc';
  /** `parquet` and `arrow` (Arrow IPC stream) export every span the filter and window select. */
  format?: 'json' | 'csv' | 'parquet' | 'arrow';
}

export const validateTraceSearchBody = typia.createValidateEquals<TraceSearchBody>();
export const validateSpanSearchBody = typia.createValidateEquals<SpanSearchBody>();
export const validateTraceListQuery = strictQuery(
  typia.http.createValidateQuery<TraceListQuery>(),
  typia.json.schemas<[TraceListQuery], '3.1'>(),
);
export const validateSpanListQuery = strictQuery(
  typia.http.createValidateQuery<SpanListQuery>(),
  typia.json.schemas<[SpanListQuery], '3.1'>(),
);
