import type { JsonValue } from '../span.js';
import { int64ToJson } from './int64.js';

/** Deepest nesting of arrays and maps kept; deeper values become null (architecture §9). */
export const MAX_DEPTH = 64;
/** Most keys kept per attribute map or nested map; later keys are dropped. */
export const MAX_ATTRIBUTES = 1024;

/** Counts values the caps removed, so the caller can report them. */
export interface DropCounter {
  dropped: number;
}

/** A JSON object without a prototype: a key such as `__proto__` stays plain data. */
export type JsonMap = Record<string, JsonValue>;

/**
 * A fresh prototype-less map. Made from `{}` rather than with `Object.create(null)`, whose objects
 * V8 keeps in dictionary mode: these keep fast properties, so maps of the same keys share a hidden
 * class and are filled, read, copied and serialised faster (a large part of the mapper's speed-up).
 * A key such as `__proto__` is still plain data, as there is no prototype to find its setter on.
 */
export function emptyMap(): JsonMap {
  return Object.setPrototypeOf({}, null) as JsonMap;
}

/** The elements of `v` when it is an array, else none: wire input is never trusted to be well formed. */
export function asArray(v: unknown): readonly unknown[] {
  return Array.isArray(v) ? v : [];
}

/** Whether `v` is a non-null object (arrays included). */
export function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null;
}

/**
 * Flattens an OTLP attribute list (`KeyValue[]`) into a prototype-less map of JSON values. Entries
 * without a string key are dropped; a repeated key keeps its last value, as an OTel SDK's
 * `setAttribute` would; keys past {@link MAX_ATTRIBUTES} and containers deeper than
 * {@link MAX_DEPTH} are dropped and counted in `counter`.
 */
export function flattenAttributes(list: unknown, counter: DropCounter): JsonMap {
  return keyValues(list, 1, counter);
}

function keyValues(list: unknown, depth: number, counter: DropCounter): JsonMap {
  const out = emptyMap();
  if (!Array.isArray(list)) return out;
  if (list.length > MAX_ATTRIBUTES) return cappedKeyValues(out, list, depth, counter);
  // Too short to reach the cap: no need to tell new keys from repeated ones.
  for (let i = 0; i < list.length; i++) {
    const kv: unknown = list[i];
    const key = isObject(kv) ? kv.key : undefined;
    if (typeof key !== 'string') {
      counter.dropped++;
      continue;
    }
    out[key] = anyValueToJson((kv as Record<string, unknown>).value, depth, counter);
  }
  return out;
}

function cappedKeyValues(out: JsonMap, list: readonly unknown[], depth: number, counter: DropCounter): JsonMap {
  let count = 0;
  for (let i = 0; i < list.length; i++) {
    const kv: unknown = list[i];
    const key = isObject(kv) ? kv.key : undefined;
    if (typeof key !== 'string') {
      counter.dropped++;
      continue;
    }
    // No value is ever undefined, so this is `!(key in out)` with one lookup instead of two.
    if (out[key] === undefined) {
      if (count === MAX_ATTRIBUTES) {
        counter.dropped++;
        continue;
      }
      count++;
    }
    out[key] = anyValueToJson((kv as Record<string, unknown>).value, depth, counter);
  }
  return out;
}

/**
 * One OTLP `AnyValue` as JSON. The first member that is set wins (protobufjs leaves the others
 * null); an empty AnyValue is null. int64 beyond the safe range becomes decimal text, bytes become
 * base64 text, non-finite doubles become their proto3 JSON names ("NaN", "Infinity").
 * `depth` is the nesting level of the map or array holding this value.
 */
export function anyValueToJson(v: unknown, depth: number, counter: DropCounter): JsonValue {
  if (!isObject(v)) return null;
  if (typeof v.stringValue === 'string') return v.stringValue;
  if (typeof v.boolValue === 'boolean') return v.boolValue;
  if (v.intValue != null) return int64ToJson(v.intValue);
  if (v.doubleValue != null) return doubleToJson(v.doubleValue);
  if (isObject(v.arrayValue)) {
    if (depth >= MAX_DEPTH) return tooDeep(counter);
    return arrayValues(v.arrayValue.values, depth + 1, counter);
  }
  if (isObject(v.kvlistValue)) {
    if (depth >= MAX_DEPTH) return tooDeep(counter);
    return keyValues(v.kvlistValue.values, depth + 1, counter);
  }
  if (v.bytesValue instanceof Uint8Array) return bytesToBase64(v.bytesValue);
  // OTLP/JSON already sends bytes as base64 text.
  return typeof v.bytesValue === 'string' ? v.bytesValue : null;
}

function arrayValues(list: unknown, depth: number, counter: DropCounter): JsonValue[] {
  if (!Array.isArray(list)) return [];
  const out: JsonValue[] = [];
  for (let i = 0; i < list.length; i++) out.push(anyValueToJson(list[i], depth, counter));
  return out;
}

function tooDeep(counter: DropCounter): null {
  counter.dropped++;
  return null;
}

function doubleToJson(v: unknown): JsonValue {
  const n = typeof v === 'number' ? v : Number(v);
  // JSON has no NaN or Infinity; keep the name rather than lose the value.
  if (Number.isFinite(n)) return n;
  return Number.isNaN(n) ? 'NaN' : n > 0 ? 'Infinity' : '-Infinity';
}

/** Standard base64 of bytes. */
export function bytesToBase64(bytes: Uint8Array): string {
  return Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('base64');
}

/**
 * Re-homes a value from `JSON.parse` (metadata and tags sent as JSON text) under the same rules as
 * attributes: prototype-less maps, {@link MAX_ATTRIBUTES} keys per map, {@link MAX_DEPTH} levels.
 * `depth` is the nesting level of the container holding `v`.
 */
export function fromParsedJson(v: unknown, depth: number, counter: DropCounter): JsonValue {
  if (!isObject(v)) return v as JsonValue;
  if (depth >= MAX_DEPTH) return tooDeep(counter);
  if (Array.isArray(v)) return v.map((item) => fromParsedJson(item, depth + 1, counter));
  const out = emptyMap();
  let count = 0;
  for (const [key, value] of Object.entries(v)) {
    if (count === MAX_ATTRIBUTES) {
      counter.dropped++;
      continue;
    }
    count++;
    out[key] = fromParsedJson(value, depth + 1, counter);
  }
  return out;
}

/** Parses JSON text; undefined when it is not JSON. */
export function parseJson(text: string, counter: DropCounter): JsonValue | undefined {
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    return undefined;
  }
  return fromParsedJson(parsed, 0, counter);
}
