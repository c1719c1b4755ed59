/** Trace and span ids: normalised to lowercase hex, validated, and derived for span events. */

const HEX_DIGITS = '0123456789abcdef';

/**
 * The two lowercase hex digits of every byte value, as the two Latin-1 bytes they are written as
 * (filled through a byte view, so whatever the platform's byte order, one 16-bit copy writes both).
 */
const HEX_PAIRS = new Uint16Array(256);
const HEX_PAIR_BYTES = new Uint8Array(HEX_PAIRS.buffer);
for (let b = 0; b < 256; b++) {
  HEX_PAIR_BYTES[2 * b] = HEX_DIGITS.charCodeAt(b >> 4);
  HEX_PAIR_BYTES[2 * b + 1] = HEX_DIGITS.charCodeAt(b & 15);
}
/** Ids up to this many bytes are converted in one native call; longer ones are never valid ids. */
const SCRATCH_BYTES = 32;
const SCRATCH = new ArrayBuffer(SCRATCH_BYTES * 2);
const SCRATCH_PAIRS = new Uint16Array(SCRATCH);
const SCRATCH_TEXT = Buffer.from(SCRATCH);

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
  if (typeof v === 'string') return hexText(v);
  return v instanceof Uint8Array ? bytesToHex(v) : undefined;
}

/** `text` lowercased when it is hex digits only, else undefined; no copy when it is lowercase already. */
function hexText(text: string): string | undefined {
  let upper = false;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if ((c >= 48 && c <= 57) || (c >= 97 && c <= 102)) continue; // 0-9 a-f
    if (c >= 65 && c <= 70)
      upper = true; // A-F
    else return undefined;
  }
  return upper ? text.toLowerCase() : text;
}

/** Lowercase hex of bytes. */
export function bytesToHex(bytes: Uint8Array): string {
  const n = bytes.length;
  if (n > SCRATCH_BYTES) return Buffer.from(bytes.buffer, bytes.byteOffset, n).toString('hex');
  for (let i = 0; i < n; i++) SCRATCH_PAIRS[i] = HEX_PAIRS[bytes[i]!]!;
  return SCRATCH_TEXT.toString('latin1', 0, 2 * n);
}

/**
 * {@link idToHex} that remembers the last id it read from bytes: the spans of one trace repeat its
 * trace id, siblings their parent's id. A repeat costs a compare of the bytes and returns the same
 * string, whose hash V8 has already computed.
 */
export class IdReader {
  private bytes: Uint8Array | undefined;
  private hex = '';

  read(v: unknown): string | undefined {
    if (!(v instanceof Uint8Array)) return idToHex(v);
    if (this.bytes === undefined || !sameBytes(v, this.bytes)) {
      this.hex = bytesToHex(v);
      this.bytes = v;
    }
    return this.hex;
  }
}

function sameBytes(a: Uint8Array, b: Uint8Array): boolean {
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
}

/** Whether `hex` is an id of exactly `bytes` bytes that is not all zeros (OTLP calls that invalid). */
export function isValidId(hex: string, bytes: number): boolean {
  return hex.length === bytes * 2 && !isAbsentId(hex);
}

/** Whether a parent id means "no parent": empty or all zeros. */
export function isAbsentId(hex: string): boolean {
  for (let i = 0; i < hex.length; i++) if (hex.charCodeAt(i) !== 48) return false; // '0'
  return true;
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
