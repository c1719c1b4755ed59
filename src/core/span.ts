/**
 * The span as Tracelake stores it: one row per OTel span (or span event), already mapped from the
 * instrumentation's attribute conventions. Pure data, shared by the OTLP mapper, the store and the
 * read endpoints.
 */

export type SpanType = 'SPAN' | 'GENERATION' | 'EVENT';
export type SpanKind = 'function' | 'llm' | 'tool' | 'agent' | 'retrieval' | 'embedding' | 'guardrail';
export type SpanStatus = 'UNSET' | 'OK' | 'ERROR';

/** A JSON value as kept in metadata and attribute maps. */
export type JsonValue = string | number | boolean | null | JsonValue[] | JsonMap;

/**
 * A JSON object of JsonValues. Named, not written inline in JsonValue: typia numbers an anonymous
 * object type (`__type.o68`) in the order the compiler met it, and the API reference must be the
 * same from every build.
 */
export interface JsonMap {
  [key: string]: JsonValue;
}

export interface SpanRecord {
  /** 32 lowercase hex characters. */
  traceId: string;
  /** 16 lowercase hex characters. */
  spanId: string;
  parentId: string | null;
  name: string;
  type: SpanType;
  spanKind: SpanKind;
  status: SpanStatus;
  statusMessage: string | null;
  /** Unix epoch nanoseconds. */
  startNs: bigint;
  endNs: bigint;
  model: string | null;
  promptName: string | null;
  serviceName: string | null;
  inputTokens: number | null;
  outputTokens: number | null;
  cachedInputTokens: number | null;
  /** input + output when either is known, else null. */
  tokens: number | null;
  /** USD; sent by the client or computed from the price table. */
  cost: number | null;
  /** Text as sent, or JSON text for structured values (messages). */
  input: string | null;
  output: string | null;
  sessionId: string | null;
  userId: string | null;
  runId: string | null;
  tags: string[];
  /** User metadata (tracelake.metadata.<key>, OpenInference metadata, langfuse.*.metadata.*). */
  metadata: Record<string, JsonValue>;
  /** Reserved `graph.node.*` attributes, without the prefix; served by the graph endpoints only. */
  graph: Record<string, JsonValue>;
  /** Every other span attribute, kept so nothing the client sent is lost. */
  attributes: Record<string, JsonValue>;
  /** Resource attributes of the span's resource. */
  resource: Record<string, JsonValue>;
  scope: { name: string | null; version: string | null };
}
