/** Wire types of the trace, span, session and run read endpoints. */
import typia, { type tags } from 'typia';

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

export interface TraceQuery {
  /** `graph` adds the trace's graph to the answer. */
  fields?: 'graph';
}

export interface PageQuery {
  limit?: number & tags.Type<'uint32'> & tags.Minimum<1> & tags.Maximum<1000>;
  offset?: number & tags.Type<'uint32'>;
}

export interface SessionListQuery extends PageQuery {
  start_date?: string & tags.Format<'date-time'>;
  end_date?: string & tags.Format<'date-time'>;
  user_id?: string & tags.MinLength<1> & tags.MaxLength<256>;
}

export const validateTraceParams = typia.createValidateEquals<TraceParams>();
export const validateTraceSpanParams = typia.createValidateEquals<TraceSpanParams>();
export const validateSpanParams = typia.createValidateEquals<SpanParams>();
export const validateSessionParams = typia.createValidateEquals<SessionParams>();
export const validateRunParams = typia.createValidateEquals<RunParams>();
export const validateTraceQuery = typia.http.createValidateQuery<TraceQuery>();
export const validatePageQuery = typia.http.createValidateQuery<PageQuery>();
export const validateSessionListQuery = typia.http.createValidateQuery<SessionListQuery>();
