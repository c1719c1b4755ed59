import type { JsonValue } from '../span.js';
import type { JsonMap } from './attributes.js';

// Bounds the nesting a dotted key can create, whatever its number of dots.
const MAX_SEGMENTS = 16;
// A canonical array index of at most 9 digits (below 2^32): JS enumerates such keys in ascending order.
const MAX_INDEX_DIGITS = 9;

/**
 * The prototype of the maps this module builds. It has no prototype itself, so a key such as
 * `__proto__` or `constructor` stays plain data; it tells those maps apart from the client's own
 * values (prototype-less maps too), which are never descended into or rewritten.
 */
const BUILT: object = Object.create(null) as object;

function builtMap(): JsonMap {
  return Object.create(BUILT) as JsonMap;
}

function isBuilt(v: JsonValue): v is JsonMap {
  return typeof v === 'object' && v !== null && Object.getPrototypeOf(v) === BUILT;
}

/** Messages rebuilt from flattened attributes, and the attribute keys they were built from. */
export interface IndexedMessages {
  /** JSON text of the array of messages, in index order. */
  text: string;
  keys: string[];
}

/**
 * Rebuilds the messages that instrumentations flatten into indexed attributes, such as
 * `gen_ai.prompt.0.role` (OpenLLMetry) or `llm.input_messages.0.message.role` (OpenInference, whose
 * extra `message` segment is named by `unwrap`). Each index becomes one object, dotted paths become
 * nested objects, and maps keyed 0..n become arrays (`tool_calls.0.name`). Gaps in the indexes are
 * closed. A key that would overwrite or descend into another key's value is left out (and stays
 * among the span's attributes). Returns undefined when no key matches.
 */
export function collectMessages(attrs: JsonMap, prefix: string, unwrap?: string): IndexedMessages | undefined {
  // Messages by index; nothing is allocated until a key matches, as most spans have no indexed messages.
  let messages: Map<number, JsonMap> | undefined;
  let keys: string[] | undefined;
  // Most keys differ from the prefix in its first or last character: those two are compared first
  // (an empty prefix has neither, and matches every key).
  const end = Math.max(prefix.length - 1, 0);
  const first = prefix.length > 0 ? prefix.charCodeAt(0) : -1;
  const last = prefix.length > 0 ? prefix.charCodeAt(end) : -1;
  const all = Object.keys(attrs);
  for (let i = 0; i < all.length; i++) {
    const key = all[i]!;
    if (first >= 0 && (key.charCodeAt(end) !== last || key.charCodeAt(0) !== first)) continue;
    if (!key.startsWith(prefix)) continue;
    const dot = key.indexOf('.', prefix.length);
    const index = dot < 0 ? -1 : indexAt(key, prefix.length, dot);
    if (index < 0) continue;
    const path = fieldPath(key, dot + 1, unwrap);
    if (path === undefined) continue;
    if (messages === undefined) {
      messages = new Map();
      keys = [];
    }
    let message = messages.get(index);
    if (message === undefined) {
      message = builtMap();
      messages.set(index, message);
    }
    if (place(message, path, attrs[key]!)) keys!.push(key);
  }
  if (messages === undefined) return undefined;
  // In index order, gaps closed. The first key placed in a message always finds it empty, so every
  // message has a key, and `keys` is never empty.
  const indexes = [...messages.keys()].sort((a, b) => a - b);
  const list: JsonValue[] = [];
  for (let i = 0; i < indexes.length; i++) list.push(withArrays(messages.get(indexes[i]!)!));
  return { text: JSON.stringify(list), keys: keys! };
}

/**
 * The value of `text[start, end)` when it is a canonical array index of at most
 * {@link MAX_INDEX_DIGITS} digits (`0`, or digits without a leading zero), else -1.
 */
function indexAt(text: string, start: number, end: number): number {
  const length = end - start;
  if (length < 1 || length > MAX_INDEX_DIGITS) return -1;
  if (length > 1 && text.charCodeAt(start) === 48) return -1; // no leading zero
  let value = 0;
  for (let i = start; i < end; i++) {
    const c = text.charCodeAt(i);
    if (c < 48 || c > 57) return -1;
    value = value * 10 + (c - 48);
  }
  return value;
}

/**
 * The segments of `key` from `from` (after the message index), without an `unwrap` segment right
 * after the index; undefined when nothing is left. A path longer than {@link MAX_SEGMENTS}
 * (the index included) keeps the rest whole in its last segment.
 */
function fieldPath(key: string, from: number, unwrap: string | undefined): string[] | undefined {
  let next = key.indexOf('.', from);
  if (unwrap !== undefined && (next < 0 ? key.length : next) - from === unwrap.length && key.startsWith(unwrap, from)) {
    if (next < 0) return undefined; // nothing after the wrapper
    from = next + 1;
    next = key.indexOf('.', from);
  }
  // The common shape: `<index>.<field>`.
  if (next < 0) return [key.slice(from)];
  const segments = key.slice(from).split('.');
  const most = MAX_SEGMENTS - 1;
  if (segments.length <= most) return segments;
  return [...segments.slice(0, most - 1), segments.slice(most - 1).join('.')];
}

function place(message: JsonMap, path: readonly string[], value: JsonValue): boolean {
  let node = message;
  const last = path.length - 1;
  for (let i = 0; i < last; i++) {
    const segment = path[i]!;
    const child = node[segment];
    if (child === undefined) {
      const fresh = builtMap();
      node[segment] = fresh;
      node = fresh;
    } else if (isBuilt(child)) {
      node = child;
    } else {
      return false;
    }
  }
  // No value is ever undefined, so this is `path[last] in node` (the prototypes hold no keys).
  if (node[path[last]!] !== undefined) return false;
  node[path[last]!] = value;
  return true;
}

// Only maps this module built are rewritten: attribute values are the client's and stay as sent.
function withArrays(node: JsonMap): JsonValue {
  const keys = Object.keys(node);
  let indexed = true;
  for (let i = 0; i < keys.length; i++) {
    const key = keys[i]!;
    const child = node[key]!;
    if (isBuilt(child)) node[key] = withArrays(child);
    if (indexed && indexAt(key, 0, key.length) < 0) indexed = false;
  }
  if (!indexed) return node;
  const values: JsonValue[] = [];
  for (let i = 0; i < keys.length; i++) values.push(node[keys[i]!]!);
  return values;
}
