/**
 * Protobuf wire reading for the OTLP decoder (protoDecode.ts): a bounded cursor, varints, fixed
 * widths, strictly decoded UTF-8 (with a cache for repeated attribute keys), copied bytes, 64-bit
 * integers as decimal text, and skipping of unknown fields. Every read is bounded by `end`, the end
 * of the enclosing message; reading past it throws.
 */

import { isUtf8 } from 'node:buffer';

/** ASCII strings up to this many bytes are read in JS; longer ones by Buffer's native UTF-8 slice. */
const SHORT_STRING = 12;

/** Buffer's own UTF-8 slice (what `toString('utf8', start, end)` calls after checking its arguments). */
interface Utf8Slicing {
  utf8Slice(start: number, end: number): string;
}
const utf8Slice: (buf: Buffer, start: number, end: number) => string =
  typeof (Buffer.prototype as Partial<Utf8Slicing>).utf8Slice === 'function'
    ? (buf, start, end) => (buf as unknown as Utf8Slicing).utf8Slice(start, end)
    : /* c8 ignore next -- only a runtime without Buffer#utf8Slice takes it (every Node release has it) */
      (buf, start, end) => buf.toString('utf8', start, end);

const strictUtf8 = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true });

// Wire types. The message decoders switch on whole tags (`field << 3 | wire type`), written as literals
// so the switch compiles to integer compares; a known field sent with another wire type than its own
// falls to `skipField`, as in protobufjs.
export const VARINT = 0;
export const FIXED64 = 1;
export const LEN = 2;
export const FIXED32 = 5;

export class Reader {
  readonly buf: Buffer;
  readonly view: DataView;
  pos = 0;
  /** The high 32 bits of the last 64-bit varint read by {@link readVarint64} (its result is the low 32). */
  hi = 0;

  constructor(bytes: Uint8Array) {
    this.buf = Buffer.isBuffer(bytes) ? bytes : Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
    this.view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  }
}

export function truncated(r: Reader): Error {
  return new Error(`truncated message at offset ${r.pos}`);
}

/** A field tag: a varint of at most 5 bytes that fits 32 bits. */
export function readTag(r: Reader, end: number): number {
  const buf = r.buf;
  const pos = r.pos;
  if (pos < end) {
    const b = buf[pos]!;
    if (b < 0x80) {
      r.pos = pos + 1;
      return b;
    }
    if (pos + 1 < end) {
      const b1 = buf[pos + 1]!;
      if (b1 < 0x80) {
        r.pos = pos + 2;
        return (b & 0x7f) | (b1 << 7);
      }
    }
  }
  const value = readVarint64(r, end);
  if (r.hi !== 0 || r.pos - pos > 5) throw new Error(`invalid tag encoding at offset ${pos}`);
  return value >>> 0;
}

/** A varint as uint32 (its low 32 bits; int32 callers apply `| 0`). */
export function readUint32(r: Reader, end: number): number {
  const pos = r.pos;
  if (pos < end) {
    const b = r.buf[pos]!;
    if (b < 0x80) {
      r.pos = pos + 1;
      return b;
    }
  }
  return readVarint64(r, end) >>> 0;
}

/**
 * A varint of up to 10 bytes: returns its low 32 bits (as int32) and leaves the high 32 in `r.hi`.
 * Throws when it runs past `end` or has more than 10 bytes.
 */
function readVarint64(r: Reader, end: number): number {
  const buf = r.buf;
  let pos = r.pos;
  let lo = 0;
  let hi = 0;
  let b = 0;
  for (let shift = 0; shift < 28; shift += 7) {
    if (pos >= end) throw truncated(r);
    b = buf[pos++]!;
    lo |= (b & 0x7f) << shift;
    if (b < 0x80) {
      r.pos = pos;
      r.hi = 0;
      return lo;
    }
  }
  if (pos >= end) throw truncated(r);
  b = buf[pos++]!;
  lo |= (b & 0x0f) << 28;
  hi = (b & 0x7f) >> 4;
  if (b >= 0x80) {
    for (let shift = 3; ; shift += 7) {
      if (shift > 31) throw new Error(`invalid varint encoding at offset ${r.pos}`);
      if (pos >= end) throw truncated(r);
      b = buf[pos++]!;
      hi |= (b & 0x7f) << shift;
      if (b < 0x80) break;
    }
  }
  r.pos = pos;
  r.hi = hi;
  return lo;
}

/** A length prefix (below 2^31, as protobufjs reads it) and the end of the bytes it announces. */
export function readEnd(r: Reader, end: number): number {
  const buf = r.buf;
  const start = r.pos;
  let pos = start;
  let len = 0;
  for (let shift = 0; ; shift += 7) {
    if (pos >= end) throw truncated(r);
    const b = buf[pos++]!;
    if (shift === 28) {
      if (b > 7) throw new Error(`invalid length encoding at offset ${start}`);
      len += b * 0x10000000;
      break;
    }
    len |= (b & 0x7f) << shift;
    if (b < 0x80) break;
  }
  const last = pos + len;
  if (last > end) throw new Error(`length ${len} at offset ${start} runs past the end of its message`);
  r.pos = pos;
  return last;
}

export function readString(r: Reader, end: number): string {
  const last = readEnd(r, end);
  return readStringAt(r, r.pos, last);
}

/** The UTF-8 text of bytes `start` to `last` (strictly decoded), moving past them. */
function readStringAt(r: Reader, start: number, last: number): string {
  r.pos = last;
  if (last - start <= SHORT_STRING) {
    const s = shortAscii(r.buf, start, last);
    if (s !== undefined) return s;
  }
  return longString(r.buf, start, last);
}

/**
 * ASCII of at most {@link SHORT_STRING} bytes, decoded in JS (a native call costs more), or undefined
 * when a byte is not ASCII. Results this short are flat strings, not cons strings.
 */
function shortAscii(buf: Buffer, start: number, end: number): string | undefined {
  let i = start;
  let s = '';
  if (end - i >= 8) {
    const c0 = buf[i]!,
      c1 = buf[i + 1]!,
      c2 = buf[i + 2]!,
      c3 = buf[i + 3]!;
    const c4 = buf[i + 4]!,
      c5 = buf[i + 5]!,
      c6 = buf[i + 6]!,
      c7 = buf[i + 7]!;
    if ((c0 | c1 | c2 | c3 | c4 | c5 | c6 | c7) >= 0x80) return undefined;
    s = String.fromCharCode(c0, c1, c2, c3, c4, c5, c6, c7);
    i += 8;
  }
  for (; i < end; i++) {
    const c = buf[i]!;
    if (c >= 0x80) return undefined;
    s += String.fromCharCode(c);
  }
  return s;
}

/**
 * Buffer's native UTF-8 slice, checked: it gives as many UTF-16 units as bytes only when every byte is
 * ASCII or an invalid byte it replaced by U+FFFD, so equal lengths and no U+FFFD mean ASCII, which it
 * decodes exactly. Anything else (multi-byte characters, maybe invalid) is decoded strictly.
 */
function longString(buf: Buffer, start: number, end: number): string {
  const s = utf8Slice(buf, start, end);
  if (s.length === end - start && s.indexOf('\uFFFD') < 0) return s;
  return strictUtf8.decode(buf.subarray(start, end));
}

/**
 * Attribute keys repeat from span to span ("session.id", "gen_ai.system"): a small cache of recent keys,
 * indexed by a hash of their bytes and checked byte for byte, hands out the same string again. That
 * saves decoding and allocating it, and later property lookups by that key (the mapper's) reuse its
 * hash. Equal bytes decode to equal strings, so a hit is always right; a collision only evicts.
 */
const KEY_CACHE_SLOTS = 1024;
const MAX_CACHED_KEY = 48;
const cachedKeys: Array<string | undefined> = new Array<string | undefined>(KEY_CACHE_SLOTS).fill(undefined);
const cachedKeyBytes = new Uint8Array(KEY_CACHE_SLOTS * MAX_CACHED_KEY);
const cachedKeyLengths = new Uint8Array(KEY_CACHE_SLOTS);

export function readKey(r: Reader, end: number): string {
  const last = readEnd(r, end);
  const start = r.pos;
  const n = last - start;
  if (n === 0 || n > MAX_CACHED_KEY) return readStringAt(r, start, last);
  const buf = r.buf;
  let h = n;
  for (let i = start; i < last; i++) h = Math.imul(h ^ buf[i]!, 0x01000193); // FNV-1a
  const slot = (h ^ (h >>> 15)) & (KEY_CACHE_SLOTS - 1);
  const at = slot * MAX_CACHED_KEY;
  if (cachedKeyLengths[slot] === n) {
    let i = 0;
    while (i < n && cachedKeyBytes[at + i] === buf[start + i]) i++;
    if (i === n) {
      r.pos = last;
      return cachedKeys[slot]!;
    }
  }
  const s = readStringAt(r, start, last);
  cachedKeys[slot] = s;
  cachedKeyLengths[slot] = n;
  cachedKeyBytes.set(buf.subarray(start, last), at);
  return s;
}

/**
 * Moves past a string field, checking that it is UTF-8 as strictly as {@link readString} decodes it,
 * without making the string (protoCheck.ts).
 */
export function skipString(r: Reader, end: number): void {
  const last = readEnd(r, end);
  const buf = r.buf;
  const start = r.pos;
  r.pos = last;
  // Attribute keys and most short values are ASCII: a loop over them costs less than a view and a
  // native call (keys are most of the strings of a span).
  if (last - start <= CHECKED_IN_JS) {
    let any = 0;
    for (let i = start; i < last; i++) any |= buf[i]!;
    if (any < 0x80) return;
  }
  if (!isUtf8(buf.subarray(start, last))) throw new Error(`invalid UTF-8 in a string field at offset ${start}`);
}

/** Strings up to this many bytes are checked for ASCII in JS before Buffer's native UTF-8 check. */
const CHECKED_IN_JS = 64;

/** A fixed64 as a bigint (the main thread's check reads span times so). */
export function readFixed64Big(r: Reader, end: number): bigint {
  const pos = r.pos;
  if (pos + 8 > end) throw truncated(r);
  r.pos = pos + 8;
  return r.view.getBigUint64(pos, true);
}

/** A view of length-delimited bytes (not a copy: for reads that do not outlive the input). */
export function viewBytes(r: Reader, end: number): Uint8Array {
  const last = readEnd(r, end);
  const start = r.pos;
  r.pos = last;
  return r.buf.subarray(start, last);
}

/** Moves past a varint of up to 10 bytes, as {@link readInt64} reads it (and refuses it). */
export function skipVarint64(r: Reader, end: number): void {
  readVarint64(r, end);
}

/** Moves past 8 bytes (a double, or a fixed64 whose value is not needed). */
export function skipFixed64(r: Reader, end: number): void {
  if (r.pos + 8 > end) throw truncated(r);
  r.pos += 8;
}

/** Length-delimited bytes, copied out of the input. */
export function readBytes(r: Reader, end: number): Uint8Array {
  const last = readEnd(r, end);
  const start = r.pos;
  r.pos = last;
  const n = last - start;
  const out = new Uint8Array(n);
  if (n <= 32) for (let i = 0; i < n; i++) out[i] = r.buf[start + i]!;
  else out.set(r.buf.subarray(start, last));
  return out;
}

/** A varint as bool: true when any of its (up to 10) bytes carries a bit, as protobufjs 8 reads it. */
export function readBool(r: Reader, end: number): boolean {
  const buf = r.buf;
  let pos = r.pos;
  let value = false;
  for (let i = 0; i < 10; i++) {
    if (pos >= end) throw truncated(r);
    const b = buf[pos++]!;
    if ((b & 0x7f) !== 0) value = true;
    if (b < 0x80) {
      r.pos = pos;
      return value;
    }
  }
  throw new Error(`invalid varint encoding at offset ${r.pos}`);
}

export function readInt64(r: Reader, end: number): string {
  const lo = readVarint64(r, end);
  return int64ToDecimal(lo, r.hi);
}

export function readFixed32(r: Reader, end: number): number {
  const pos = r.pos;
  if (pos + 4 > end) throw truncated(r);
  r.pos = pos + 4;
  return r.view.getUint32(pos, true);
}

export function readFixed64(r: Reader, end: number): string {
  const pos = r.pos;
  if (pos + 8 > end) throw truncated(r);
  r.pos = pos + 8;
  return uint64ToDecimal(r.view.getUint32(pos, true), r.view.getUint32(pos + 4, true));
}

export function readDouble(r: Reader, end: number): number {
  const pos = r.pos;
  if (pos + 8 > end) throw truncated(r);
  r.pos = pos + 8;
  return r.view.getFloat64(pos, true);
}

/** Skips a field this decoder does not read (unknown, or sent with another wire type than its own). */
export function skipField(r: Reader, t: number, end: number): void {
  const at = r.pos;
  if (t >>> 3 === 0) throw new Error(`illegal tag: field number 0 at offset ${at}`);
  switch (t & 7) {
    case VARINT: {
      // Any length, as protobufjs skips it.
      let pos = r.pos;
      do if (pos >= end) throw truncated(r);
      while (r.buf[pos++]! >= 0x80);
      r.pos = pos;
      return;
    }
    case FIXED64:
      if (at + 8 > end) throw truncated(r);
      r.pos = at + 8;
      return;
    case LEN:
      r.pos = readEnd(r, end);
      return;
    case FIXED32:
      if (at + 4 > end) throw truncated(r);
      r.pos = at + 4;
      return;
    default:
      throw new Error(`invalid wire type ${t & 7} at offset ${at}`);
  }
}

// ---------------------------------------------------------------------------------------------------
// 64-bit integers as decimal text, from their two 32-bit halves, without BigInt or Long.

const TWO_32 = 4294967296;
const E7 = 10_000_000;

/** An unsigned 64-bit integer as decimal text (what long.js prints for an unsigned Long). */
export function uint64ToDecimal(lo: number, hi: number): string {
  lo >>>= 0;
  hi >>>= 0;
  if (hi <= 0x1fffff) return String(hi * TWO_32 + lo); // below 2^53: exact as a double
  // Split into 24-bit limbs: v = low + mid·2^24 + high·2^48. With 2^24 = 1·10^7 + 6777216 and
  // 2^48 = 2·10^14 + 8147497·10^7 + 6710656, v = a + b·10^7 + c·10^14 with every term exact in a double.
  const low = lo & 0xffffff;
  const mid = ((lo >>> 24) | (hi << 8)) & 0xffffff;
  const high = hi >>> 16;
  let a = low + mid * 6777216 + high * 6710656;
  let b = mid + high * 8147497;
  let c = high * 2;
  if (a >= E7) {
    b += Math.floor(a / E7);
    a %= E7;
  }
  if (b >= E7) {
    c += Math.floor(b / E7);
    b %= E7;
  }
  // v ≥ 2^53 > 10^14, so c > 0 and b, a take all 7 digits.
  return String(c) + pad7(b) + pad7(a);
}

/** A signed (two's complement) 64-bit integer as decimal text. */
export function int64ToDecimal(lo: number, hi: number): string {
  if (hi >>> 31 === 0) return uint64ToDecimal(lo, hi);
  // Negate: ~v + 1 over both halves.
  const nlo = (~lo + 1) >>> 0;
  const nhi = (~hi + (nlo === 0 ? 1 : 0)) >>> 0;
  return '-' + uint64ToDecimal(nlo, nhi);
}

function pad7(n: number): string {
  const s = String(n);
  return s.length >= 7 ? s : '0000000'.slice(s.length) + s;
}
