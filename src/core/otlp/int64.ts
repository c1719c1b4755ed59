import type { JsonValue } from '../span.js';

/** Largest Unix-nanosecond time kept: the store holds times as signed 64-bit integers. */
export const MAX_INT64 = (1n << 63n) - 1n;

const MAX_SAFE = BigInt(Number.MAX_SAFE_INTEGER);
const MIN_SAFE = BigInt(Number.MIN_SAFE_INTEGER);
// No 64-bit integer needs more; a longer string would make BigInt() parse a client-sized number.
const MAX_DIGITS = 24;
const INTEGER_TEXT = /^[+-]?\d+$/;

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
      return text.length <= MAX_DIGITS && INTEGER_TEXT.test(text) ? BigInt(text) : undefined;
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

/**
 * A Unix-nanosecond time. Absent (null/undefined) reads as 0n, as protobuf's default does; a value
 * that is not an integer, is negative, or does not fit a signed 64-bit integer gives undefined.
 */
export function toNanos(v: unknown): bigint | undefined {
  if (v === undefined || v === null) return 0n;
  const n = toBigInt(v);
  return n !== undefined && n >= 0n && n <= MAX_INT64 ? n : undefined;
}

/**
 * An OTLP `intValue` as JSON: a number when it is a safe integer, else its exact decimal text, so
 * no digit is lost to float rounding. A value that is no integer is kept as sent when it is text or
 * a finite number, else null.
 */
export function int64ToJson(v: unknown): JsonValue {
  const n = toBigInt(v);
  if (n !== undefined) return n >= MIN_SAFE && n <= MAX_SAFE ? Number(n) : n.toString();
  if (typeof v === 'string') return v;
  return typeof v === 'number' && Number.isFinite(v) ? v : null;
}
