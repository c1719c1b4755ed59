import type { JsonValue } from '../span.js';

/** Largest Unix-nanosecond time kept: the store holds times as signed 64-bit integers. */
export const MAX_INT64 = (1n << 63n) - 1n;

const MAX_INT64_DIGITS = MAX_INT64.toString().length;
const MAX_SAFE = BigInt(Number.MAX_SAFE_INTEGER);
const MIN_SAFE = BigInt(Number.MIN_SAFE_INTEGER);
// No 64-bit integer needs more; a longer string would make BigInt() parse a client-sized number.
const MAX_DIGITS = 24;

/** Whether `text` is an optional sign followed by one or more ASCII digits (`/^[+-]?\d+$/`). */
function isIntegerText(text: string): boolean {
  const n = text.length;
  let i = 0;
  if (n > 0) {
    const c = text.charCodeAt(0);
    if (c === 43 || c === 45) i = 1; // + -
  }
  if (i === n) return false;
  for (; i < n; i++) {
    const c = text.charCodeAt(i);
    if (c < 48 || c > 57) return false;
  }
  return true;
}

/**
 * Reads a 64-bit integer in any shape a decoder produces: decimal text (OTLP/JSON), a number, a
 * bigint, or a protobufjs Long (`unsigned` picks the reading of the high bit). Returns undefined for
 * anything that is not an integer.
 */
export function toBigInt(v: unknown): bigint | undefined {
  switch (typeof v) {
    case 'bigint':
      return v;
    case 'number':
      return Number.isInteger(v) ? BigInt(v) : undefined;
    case 'string': {
      const text = v.trim();
      return text.length <= MAX_DIGITS && isIntegerText(text) ? BigInt(text) : undefined;
    }
    case 'object':
      return v === null ? undefined : fromLong(v as { low?: unknown; high?: unknown; unsigned?: unknown });
    default:
      return undefined;
  }
}

function fromLong(long: { low?: unknown; high?: unknown; unsigned?: unknown }): bigint | undefined {
  if (typeof long.low !== 'number' || typeof long.high !== 'number') return undefined;
  const bits = (BigInt(long.high >>> 0) << 32n) | BigInt(long.low >>> 0);
  return long.unsigned === true ? bits : BigInt.asIntN(64, bits);
}

/** Whether `text` is one or more ASCII digits (`/^\d+$/`). */
export function isDigits(text: string): boolean {
  return text.length > 0 && isDigitsFrom(text, 0);
}

function isDigitsFrom(text: string, from: number): boolean {
  for (let i = from; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c < 48 || c > 57) return false;
  }
  return true;
}

/**
 * A Unix-nanosecond time. Absent (null/undefined) reads as 0n, as protobuf's default does; a value
 * that is not an integer, is negative, or does not fit a signed 64-bit integer gives undefined.
 */
export function toNanos(v: unknown): bigint | undefined {
  if (v === undefined || v === null) return 0n;
  // Fast path for what decoders send: plain digits, at most as many as the largest int64 has.
  if (typeof v === 'string' && v.length <= MAX_INT64_DIGITS && isDigits(v)) {
    const n = BigInt(v);
    return n <= MAX_INT64 ? n : undefined;
  }
  const n = toBigInt(v);
  return n !== undefined && n >= 0n && n <= MAX_INT64 ? n : undefined;
}

/**
 * An OTLP `intValue` as JSON: a number when it is a safe integer, else its exact decimal text, so
 * no digit is lost to float rounding. A value that is no integer is kept as sent when it is text or
 * a finite number, else null.
 */
export function int64ToJson(v: unknown): JsonValue {
  // Fast paths without a bigint. Up to 15 digits are always a safe integer; `+ 0` turns -0 into 0,
  // as the bigint reading does.
  if (typeof v === 'string') {
    const from = v.charCodeAt(0) === 45 ? 1 : 0; // '-'
    if (v.length > from && v.length - from <= 15 && isDigitsFrom(v, from)) return Number(v) + 0;
  } else if (typeof v === 'number' && Number.isSafeInteger(v)) {
    return v + 0;
  }
  const n = toBigInt(v);
  if (n !== undefined) return n >= MIN_SAFE && n <= MAX_SAFE ? Number(n) : n.toString();
  if (typeof v === 'string') return v;
  return typeof v === 'number' && Number.isFinite(v) ? v : null;
}
