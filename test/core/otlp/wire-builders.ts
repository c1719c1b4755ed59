// Builders for OTLP/JSON-shaped requests, as an OTel exporter would send them. Not a test file.
import type { AnyValue, ExportTraceServiceRequest, KeyValue, Span } from '../../../src/core/otlp/wire.js';

export const TRACE_ID = '5b8efff798038103d269b633813fc60c';
export const SPAN_ID = 'eee19b7ec3c1b174';
export const PARENT_ID = '051581bf3cb55c13';
export const START = '1700000000000000000';
export const END = '1700000001500000000';

export type Plain = string | number | boolean | null | Plain[] | { [key: string]: Plain };

/** The AnyValue an OTel SDK emits for a JS value: integers as intValue, other numbers as doubles. */
export function anyValue(v: Plain): AnyValue {
  if (typeof v === 'string') return { stringValue: v };
  if (typeof v === 'boolean') return { boolValue: v };
  if (typeof v === 'number') return Number.isInteger(v) ? { intValue: String(v) } : { doubleValue: v };
  if (v === null) return {};
  if (Array.isArray(v)) return { arrayValue: { values: v.map(anyValue) } };
  return { kvlistValue: { values: attrs(v) } };
}

/** An attribute list from an object, in key order. */
export function attrs(o: Record<string, Plain>): KeyValue[] {
  return Object.entries(o).map(([key, v]) => ({ key, value: anyValue(v) }));
}

/** A span with valid ids and times; `over` replaces fields. */
export function span(over: Partial<Span> = {}): Span {
  return {
    traceId: TRACE_ID,
    spanId: SPAN_ID,
    parentSpanId: PARENT_ID,
    name: 'chat gpt-4o',
    kind: 3,
    startTimeUnixNano: START,
    endTimeUnixNano: END,
    attributes: [],
    events: [],
    status: { code: 0 },
    ...over,
  };
}

/** One resource (service `chatbot`) with one scope holding `spans`. */
export function request(
  spans: Span[],
  resource: Record<string, Plain> = { 'service.name': 'chatbot' },
): ExportTraceServiceRequest {
  return {
    resourceSpans: [
      {
        resource: { attributes: attrs(resource) },
        scopeSpans: [{ scope: { name: 'opentelemetry.instrumentation.openai_v2', version: '2.1b0' }, spans }],
      },
    ],
  };
}

/** Bytes of a hex id, as a protobuf decoder hands them over. */
export function hexBytes(hex: string): Uint8Array {
  return Uint8Array.from(hex.match(/../g)!.map((pair) => parseInt(pair, 16)));
}
