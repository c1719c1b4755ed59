// Protobuf wire bytes by hand, to send what no encoder writes: the decoder's and the checker's unit
// tests and their differential test against protobufjs (test/ingest/protoDecode.test.ts).
import type { ExportTraceServiceRequest } from '../../src/core/otlp/wire.js';

/** The OTLP trace messages the decoder knows. */
export type OtlpMessage =
  | 'ExportTraceServiceRequest'
  | 'ResourceSpans'
  | 'Resource'
  | 'ScopeSpans'
  | 'InstrumentationScope'
  | 'Span'
  | 'Event'
  | 'Link'
  | 'Status'
  | 'KeyValue'
  | 'AnyValue'
  | 'ArrayValue'
  | 'KeyValueList';

/** A varint of `value` (taken modulo 2^64), padded with zero groups to at least `minBytes` bytes. */
export function varint(value: bigint | number, minBytes = 1): number[] {
  let v = BigInt.asUintN(64, BigInt(value));
  const out: number[] = [];
  do {
    out.push(Number(v & 0x7fn));
    v >>= 7n;
  } while (v > 0n);
  while (out.length < minBytes) out.push(0);
  for (let i = 0; i < out.length - 1; i++) out[i] = out[i]! | 0x80;
  return out;
}

export const VARINT = 0;
export const I64 = 1;
export const LEN = 2;
export const I32 = 5;

/** A field's key; `minBytes` pads it with zero groups (a valid, if unusual, encoding). */
export const tag = (field: number, wireType: number, minBytes = 1): number[] =>
  varint(BigInt(field) * 8n + BigInt(wireType), minBytes);
export const lenField = (field: number, payload: readonly number[], padLength = 1): number[] => [
  ...tag(field, LEN),
  ...varint(payload.length, padLength),
  ...payload,
];
export const varintField = (field: number, value: bigint | number): number[] => [
  ...tag(field, VARINT),
  ...varint(value),
];
export const fixed64Field = (field: number, value: bigint): number[] => [...tag(field, I64), ...le64(value)];
export const fixed32Field = (field: number, value: number): number[] => [...tag(field, I32), ...le32(value)];
export const doubleField = (field: number, value: number): number[] => [...tag(field, I64), ...f64(value)];
export const utf8 = (s: string): number[] => [...Buffer.from(s, 'utf8')];
export const le64 = (v: bigint): number[] => [...Buffer.from(new BigUint64Array([BigInt.asUintN(64, v)]).buffer)];
export const le32 = (v: number): number[] => [...Buffer.from(new Uint32Array([v >>> 0]).buffer)];
export const f64 = (n: number): number[] => [...Buffer.from(new Float64Array([n]).buffer)];

/** One field of each wire type that no OTLP message knows (field numbers 900+): decoders skip them. */
export const UNKNOWN_FIELDS: readonly number[] = [
  ...varintField(900, 2n ** 64n - 1n),
  ...fixed64Field(901, 7n),
  ...lenField(902, utf8('skipped')),
  ...fixed32Field(903, 9),
];

// ---------------------------------------------------------------------------------------------------
// Every message in its place, and every field of each.

/** Where each message sits: its parent and its field there (the message is reached by that path). */
export const PLACE: Record<
  Exclude<OtlpMessage, 'ExportTraceServiceRequest'>,
  [parent: OtlpMessage, field: number, name: string, repeated: boolean]
> = {
  ResourceSpans: ['ExportTraceServiceRequest', 1, 'resourceSpans', true],
  Resource: ['ResourceSpans', 1, 'resource', false],
  ScopeSpans: ['ResourceSpans', 2, 'scopeSpans', true],
  InstrumentationScope: ['ScopeSpans', 1, 'scope', false],
  Span: ['ScopeSpans', 2, 'spans', true],
  Event: ['Span', 11, 'events', true],
  Link: ['Span', 13, 'links', true],
  Status: ['Span', 15, 'status', false],
  KeyValue: ['Span', 9, 'attributes', true],
  AnyValue: ['KeyValue', 2, 'value', false],
  ArrayValue: ['AnyValue', 5, 'arrayValue', false],
  KeyValueList: ['AnyValue', 6, 'kvlistValue', false],
};

/** A request holding one `msg` made of `fields` (wrapped in its parents). */
export function wrap(msg: OtlpMessage, fields: readonly number[]): Uint8Array {
  let bytes = [...fields];
  for (let m = msg; m !== 'ExportTraceServiceRequest'; ) {
    const [parent, field] = PLACE[m];
    bytes = lenField(field, bytes);
    m = parent;
  }
  return Uint8Array.from(bytes);
}

/** The decoded `msg` of a request built by `wrap`. */
export function extract(msg: OtlpMessage, request: ExportTraceServiceRequest): Record<string, unknown> {
  if (msg === 'ExportTraceServiceRequest') return request as Record<string, unknown>;
  const [parent, , name, repeated] = PLACE[msg];
  const holder = extract(parent, request);
  const v = holder[name];
  return (repeated ? (v as unknown[])[0] : v) as Record<string, unknown>;
}

export type FieldKind = 'string' | 'bytes' | 'uint32' | 'int32' | 'fixed32' | 'fixed64';

/** A value of each kind as sent and as decoded, and its default (which leaves the field absent). */
export const SAMPLES: Record<
  FieldKind,
  { wireType: number; value: (f: number) => number[]; decoded: unknown; zero: (f: number) => number[] }
> = {
  string: { wireType: LEN, value: (f) => lenField(f, utf8('vé')), decoded: 'vé', zero: (f) => lenField(f, []) },
  bytes: {
    wireType: LEN,
    value: (f) => lenField(f, [1, 2, 3]),
    decoded: new Uint8Array([1, 2, 3]),
    zero: (f) => lenField(f, []),
  },
  uint32: { wireType: VARINT, value: (f) => varintField(f, 300), decoded: 300, zero: (f) => varintField(f, 0) },
  int32: { wireType: VARINT, value: (f) => varintField(f, -2n), decoded: -2, zero: (f) => varintField(f, 0) },
  fixed32: {
    wireType: I32,
    value: (f) => fixed32Field(f, 0x80000001),
    decoded: 0x80000001,
    zero: (f) => fixed32Field(f, 0),
  },
  fixed64: {
    wireType: I64,
    value: (f) => fixed64Field(f, 1_700_000_000_000_000_001n),
    decoded: '1700000000000000001',
    zero: (f) => fixed64Field(f, 0n),
  },
};

/** The scalar fields of each message, with implicit presence. */
export const SCALARS: Array<[OtlpMessage, string, number, FieldKind]> = [
  ['ResourceSpans', 'schemaUrl', 3, 'string'],
  ['Resource', 'droppedAttributesCount', 2, 'uint32'],
  ['ScopeSpans', 'schemaUrl', 3, 'string'],
  ['InstrumentationScope', 'name', 1, 'string'],
  ['InstrumentationScope', 'version', 2, 'string'],
  ['InstrumentationScope', 'droppedAttributesCount', 4, 'uint32'],
  ['Span', 'traceId', 1, 'bytes'],
  ['Span', 'spanId', 2, 'bytes'],
  ['Span', 'traceState', 3, 'string'],
  ['Span', 'parentSpanId', 4, 'bytes'],
  ['Span', 'name', 5, 'string'],
  ['Span', 'kind', 6, 'int32'],
  ['Span', 'startTimeUnixNano', 7, 'fixed64'],
  ['Span', 'endTimeUnixNano', 8, 'fixed64'],
  ['Span', 'droppedAttributesCount', 10, 'uint32'],
  ['Span', 'droppedEventsCount', 12, 'uint32'],
  ['Span', 'droppedLinksCount', 14, 'uint32'],
  ['Span', 'flags', 16, 'fixed32'],
  ['Event', 'timeUnixNano', 1, 'fixed64'],
  ['Event', 'name', 2, 'string'],
  ['Event', 'droppedAttributesCount', 4, 'uint32'],
  ['Link', 'traceId', 1, 'bytes'],
  ['Link', 'spanId', 2, 'bytes'],
  ['Link', 'traceState', 3, 'string'],
  ['Link', 'droppedAttributesCount', 5, 'uint32'],
  ['Link', 'flags', 6, 'fixed32'],
  ['Status', 'message', 2, 'string'],
  ['Status', 'code', 3, 'int32'],
  ['KeyValue', 'key', 1, 'string'],
];

/** The repeated message fields: [message, field name, number, element message]. */
export const REPEATED: Array<[OtlpMessage, string, number, OtlpMessage]> = [
  ['ExportTraceServiceRequest', 'resourceSpans', 1, 'ResourceSpans'],
  ['ResourceSpans', 'scopeSpans', 2, 'ScopeSpans'],
  ['Resource', 'attributes', 1, 'KeyValue'],
  ['ScopeSpans', 'spans', 2, 'Span'],
  ['InstrumentationScope', 'attributes', 3, 'KeyValue'],
  ['Span', 'attributes', 9, 'KeyValue'],
  ['Span', 'events', 11, 'Event'],
  ['Span', 'links', 13, 'Link'],
  ['Event', 'attributes', 3, 'KeyValue'],
  ['Link', 'attributes', 4, 'KeyValue'],
  ['ArrayValue', 'values', 1, 'AnyValue'],
  ['KeyValueList', 'values', 1, 'KeyValue'],
];

export const ALL_MESSAGES: OtlpMessage[] = ['ExportTraceServiceRequest', ...(Object.keys(PLACE) as OtlpMessage[])];
