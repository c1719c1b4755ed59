/** Wire types of the trace, span, session and run read endpoints. */
import { strictQuery } from './strictQuery.js';
import typia, { type tags } from 'typia';
import type { Count } from './ids.js';
import type { TimeWindowFields } from './window.js';

type TraceId = string & tags.Pattern<'^[0-9a-fA-F]{32}$'>;
type SpanId = string & tags.Pattern<'^[0-9a-fA-F]{16}$'>;

export interface TraceParams {
  traceId: TraceId;
}
export interface TraceSpanParams {
  traceId: TraceId;
  spanId: SpanId;
}
export interface SpanParams {
  spanId: SpanId;
}
export interface SessionParams {
  sessionId: string & tags.MinLength<1> & tags.MaxLength<256>;
}
export interface RunParams {
  runId: string & tags.MinLength<1> & tags.MaxLength<256>;
}

/**
 * Admin credentials read every environment of the app, where one trace id may be several traces
 * (production is preferred); `environment` names the one to read.
 */
export interface EnvironmentQuery {
  environment?: string & tags.MinLength<1> & tags.MaxLength<63>;
}

export interface TraceQuery extends EnvironmentQuery {
  /** `graph` adds the trace's graph to the answer. */
  fields?: 'graph';
}

export interface PageQuery {
  limit?: number & tags.Type<'uint32'> & tags.Minimum<1> & tags.Maximum<1000>;
  offset?: Count;
}

/** A page of a trace list; admin credentials may name one environment, as on reads by id. */
export interface TracePageQuery extends PageQuery, EnvironmentQuery {}

export interface SessionListQuery extends TracePageQuery, TimeWindowFields {
  user_id?: string & tags.MinLength<1> & tags.MaxLength<256>;
}

export const validateTraceParams = typia.createValidateEquals<TraceParams>();
export const validateTraceSpanParams = typia.createValidateEquals<TraceSpanParams>();
export const validateSpanParams = typia.createValidateEquals<SpanParams>();
export const validateSessionParams = typia.createValidateEquals<SessionParams>();
export const validateRunParams = typia.createValidateEquals<RunParams>();
export const validateTraceQuery = strictQuery(
  typia.http.createValidateQuery<TraceQuery>(),
  typia.json.schemas<[TraceQuery], '3.1'>(),
);
export const validateEnvironmentQuery = strictQuery(
  typia.http.createValidateQuery<EnvironmentQuery>(),
  typia.json.schemas<[EnvironmentQuery], '3.1'>(),
);
export const validatePageQuery = strictQuery(
  typia.http.createValidateQuery<PageQuery>(),
  typia.json.schemas<[PageQuery], '3.1'>(),
);
export const validateTracePageQuery = strictQuery(
  typia.http.createValidateQuery<TracePageQuery>(),
  typia.json.schemas<[TracePageQuery], '3.1'>(),
);
export const validateSessionListQuery = strictQuery(
  typia.http.createValidateQuery<SessionListQuery>(),
  typia.json.schemas<[SessionListQuery], '3.1'>(),
);
