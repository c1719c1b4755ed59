/** Trace and span ids: normalised to lowercase hex, validated, and derived for span events. */

const HEX_DIGITS = '0123456789abcdef';
const HEX_TEXT = /^[0-9a-f]*$/;
const ALL_ZERO = /^0*$/;

/** Bytes of a trace id. */
export const TRACE_ID_BYTES = 16;
/** Bytes of a span id. */
export const SPAN_ID_BYTES = 8;

/**
 * Lowercase hex of an id sent as hex text (OTLP/JSON, either case) or as bytes (protobuf).
 * Returns '' when the id is absent and undefined when it is neither hex text nor bytes.
 */
export function idToHex(v: unknown): string | undefined {
  if (v === undefined || v === null) return '';
  if (typeof v === 'string') {
    const hex = v.toLowerCase();
    return HEX_TEXT.test(hex) ? hex : undefined;
  }
  return v instanceof Uint8Array ? bytesToHex(v) : undefined;
}

/** Lowercase hex of bytes. */
export function bytesToHex(bytes: Uint8Array): string {
  let hex = '';
  for (const b of bytes) hex += HEX_DIGITS[b >> 4]! + HEX_DIGITS[b & 15]!;
  return hex;
}

/** Whether `hex` is an id of exactly `bytes` bytes that is not all zeros (OTLP calls that invalid). */
export function isValidId(hex: string, bytes: number): boolean {
  return hex.length === bytes * 2 && !ALL_ZERO.test(hex);
}

/** Whether a parent id means "no parent": empty or all zeros. */
export function isAbsentId(hex: string): boolean {
  return ALL_ZERO.test(hex);
}

const FNV_OFFSET = 0xcbf29ce484222325n;
const FNV_PRIME = 0x100000001b3n;

/** FNV-1a, 64-bit. */
export function fnv1a64(bytes: Uint8Array): bigint {
  let h = FNV_OFFSET;
  for (const b of bytes) h = BigInt.asUintN(64, (h ^ BigInt(b)) * FNV_PRIME);
  return h;
}

/**
 * The span id of the `index`-th event of a span: FNV-1a 64 over the span id's 8 bytes followed by
 * the index as 4 big-endian bytes. Deterministic, so re-sending an export (exporters retry when an
 * ack is lost) gives the same rows and the store's idempotent upsert holds. The low bit is forced
 * to 1 so the id can never be the invalid all-zero id; 63 bits stay ample within one trace.
 */
export function eventSpanId(spanIdHex: string, index: number): string {
  const bytes = new Uint8Array(SPAN_ID_BYTES + 4);
  for (let i = 0; i < SPAN_ID_BYTES; i++) bytes[i] = parseInt(spanIdHex.slice(i * 2, i * 2 + 2), 16);
  new DataView(bytes.buffer).setUint32(SPAN_ID_BYTES, index);
  return (fnv1a64(bytes) | 1n).toString(16).padStart(SPAN_ID_BYTES * 2, '0');
}
