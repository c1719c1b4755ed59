// Protobuf wire bytes by hand, to send what no encoder writes: the decoder's unit tests and its
// differential test against protobufjs (test/ingest/protoDecode.test.ts).

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
export const tag = (field: number, wireType: number, minBytes = 1): number[] => varint(BigInt(field) * 8n + BigInt(wireType), minBytes);
export const lenField = (field: number, payload: readonly number[], padLength = 1): number[] => [...tag(field, LEN), ...varint(payload.length, padLength), ...payload];
export const varintField = (field: number, value: bigint | number): number[] => [...tag(field, VARINT), ...varint(value)];
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
