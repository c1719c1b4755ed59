/**
 * The OTLP/protobuf answer to an export, `ExportTraceServiceResponse`, encoded by hand: an empty
 * message on full success, else field 1 `partial_success`, an `ExportTracePartialSuccess` of
 * field 1 `rejected_spans` (int64) and field 2 `error_message` (string), fields at their proto3
 * default left out. It is the only protobuf the HTTP thread writes, and protobufjs with the OTLP
 * schema (test/helpers/otlpProto.ts, which the test reads these bytes back with) cost that thread
 * CPU at every start (native-bench/RESULTS.md, "Figures behind the code").
 */

export interface PartialSuccess {
  rejectedSpans: number;
  errorMessage: string;
}

export const VARINT = 0;
export const LENGTH_DELIMITED = 2;
const UTF8 = new TextEncoder();

/** A field's tag: its number and wire type (fields below 16 here, so one byte). */
export const key = (field: number, wireType: number) => (field << 3) | wireType;

/** A non-negative integer as a base-128 varint (arithmetic, not bit operations: counts may pass 2^31). */
export function varint(n: number): number[] {
  if (!Number.isSafeInteger(n) || n < 0) throw new RangeError(`a varint here is a non-negative safe integer, not ${n}`);
  const out: number[] = [];
  for (; n >= 0x80; n = Math.floor(n / 0x80)) out.push((n % 0x80) | 0x80);
  out.push(n);
  return out;
}

/** The OTLP answer: empty on full success, `partial_success` when spans were refused. */
export function encodeExportResponse(partial: PartialSuccess | null): Uint8Array {
  if (partial === null) return new Uint8Array(0);
  const message = UTF8.encode(partial.errorMessage);
  const rejected = partial.rejectedSpans === 0 ? [] : [key(1, VARINT), ...varint(partial.rejectedSpans)];
  const messageHead = message.length === 0 ? [] : [key(2, LENGTH_DELIMITED), ...varint(message.length)];
  const innerLength = rejected.length + messageHead.length + message.length;
  const head = [key(1, LENGTH_DELIMITED), ...varint(innerLength), ...rejected, ...messageHead];
  const out = new Uint8Array(head.length + message.length);
  out.set(head);
  out.set(message, head.length);
  return out;
}
