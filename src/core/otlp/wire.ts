/**
 * The OTLP trace export request in its OTLP/JSON shape, widened to what a protobuf decoder
 * (protobufjs) hands over as well: ids as hex text or bytes, 64-bit integers as text, number,
 * bigint or Long, enums as numbers or names. Every field is optional and may be null, because
 * protobuf leaves unset fields at defaults and JSON senders omit them; the mapper decides what is
 * required. Nothing here is trusted: a JSON body is whatever the client wrote.
 */

/** A protobufjs `Long` (or any `{ low, high }` pair of 32-bit halves). */
export interface LongLike {
  low: number;
  high: number;
  unsigned?: boolean;
}

/** An int64/uint64 as a JSON string, a JS number, a bigint or a Long. */
export type Int64Like = string | number | bigint | LongLike;

/** A trace or span id: lowercase or uppercase hex text (OTLP/JSON) or raw bytes (protobuf). */
export type IdLike = string | Uint8Array;

/** `AnyValue`: at most one member is set; unset members are absent or null. */
export interface AnyValue {
  stringValue?: string | null;
  boolValue?: boolean | null;
  intValue?: Int64Like | null;
  /** A number, or the proto3 JSON texts `"NaN"`, `"Infinity"`, `"-Infinity"`. */
  doubleValue?: number | string | null;
  arrayValue?: ArrayValue | null;
  kvlistValue?: KeyValueList | null;
  /** Base64 text in OTLP/JSON, bytes from a protobuf decoder. */
  bytesValue?: string | Uint8Array | null;
}

export interface ArrayValue {
  values?: AnyValue[] | null;
}

export interface KeyValueList {
  values?: KeyValue[] | null;
}

export interface KeyValue {
  key?: string | null;
  value?: AnyValue | null;
}

export interface Resource {
  attributes?: KeyValue[] | null;
  droppedAttributesCount?: number | null;
}

export interface InstrumentationScope {
  name?: string | null;
  version?: string | null;
  attributes?: KeyValue[] | null;
  droppedAttributesCount?: number | null;
}

/** OTLP `Status.StatusCode`: 0 UNSET, 1 OK, 2 ERROR, or its enum name (`STATUS_CODE_OK`). */
export type StatusCodeLike = number | string;

export interface Status {
  code?: StatusCodeLike | null;
  message?: string | null;
}

export interface SpanEvent {
  timeUnixNano?: Int64Like | null;
  name?: string | null;
  attributes?: KeyValue[] | null;
  droppedAttributesCount?: number | null;
}

export interface SpanLink {
  traceId?: IdLike | null;
  spanId?: IdLike | null;
  traceState?: string | null;
  attributes?: KeyValue[] | null;
  droppedAttributesCount?: number | null;
  flags?: number | null;
}

export interface Span {
  traceId?: IdLike | null;
  spanId?: IdLike | null;
  traceState?: string | null;
  parentSpanId?: IdLike | null;
  flags?: number | null;
  name?: string | null;
  /** OTel `SpanKind` (INTERNAL, SERVER, CLIENT, ...) as a number or enum name. */
  kind?: number | string | null;
  startTimeUnixNano?: Int64Like | null;
  endTimeUnixNano?: Int64Like | null;
  attributes?: KeyValue[] | null;
  droppedAttributesCount?: number | null;
  events?: SpanEvent[] | null;
  droppedEventsCount?: number | null;
  links?: SpanLink[] | null;
  droppedLinksCount?: number | null;
  status?: Status | null;
}

export interface ScopeSpans {
  scope?: InstrumentationScope | null;
  spans?: Span[] | null;
  schemaUrl?: string | null;
}

export interface ResourceSpans {
  resource?: Resource | null;
  scopeSpans?: ScopeSpans[] | null;
  schemaUrl?: string | null;
}

/** `ExportTraceServiceRequest`, the body of `POST /v1/traces`. */
export interface ExportTraceServiceRequest {
  resourceSpans?: ResourceSpans[] | null;
}
