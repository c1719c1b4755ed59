import type { JsonValue } from '../span.js';
import { emptyMap, type JsonMap } from './attributes.js';

// A canonical array index below 2^32: JS enumerates such keys in ascending numeric order.
const INDEX = /^(0|[1-9]\d{0,8})$/;
// Bounds the nesting a dotted key can create, whatever its number of dots.
const MAX_SEGMENTS = 16;

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
  const root = emptyMap();
  const built = new Set<JsonMap>([root]);
  const keys: string[] = [];
  for (const key of Object.keys(attrs)) {
    if (!key.startsWith(prefix)) continue;
    const segments = key.slice(prefix.length).split('.');
    if (segments[1] === unwrap) segments.splice(1, 1);
    if (segments.length < 2 || !INDEX.test(segments[0]!)) continue;
    if (place(root, bounded(segments), attrs[key]!, built)) keys.push(key);
  }
  if (keys.length === 0) return undefined;
  return { text: JSON.stringify(withArrays(root, built)), keys };
}

function bounded(segments: string[]): string[] {
  if (segments.length <= MAX_SEGMENTS) return segments;
  return [...segments.slice(0, MAX_SEGMENTS - 1), segments.slice(MAX_SEGMENTS - 1).join('.')];
}

function place(root: JsonMap, path: string[], value: JsonValue, built: Set<JsonMap>): boolean {
  let node = root;
  for (const segment of path.slice(0, -1)) {
    const child = node[segment];
    if (child === undefined) {
      const fresh = emptyMap();
      built.add(fresh);
      node[segment] = fresh;
      node = fresh;
    } else if (built.has(child as JsonMap)) {
      node = child as JsonMap;
    } else {
      return false;
    }
  }
  const last = path[path.length - 1]!;
  if (last in node) return false;
  node[last] = value;
  return true;
}

// Only maps this module built are rewritten: attribute values are the client's and stay as sent.
function withArrays(node: JsonMap, built: Set<JsonMap>): JsonValue {
  const keys = Object.keys(node);
  for (const key of keys) {
    const child = node[key]!;
    if (built.has(child as JsonMap)) node[key] = withArrays(child as JsonMap, built);
  }
  return keys.every((key) => INDEX.test(key)) ? keys.map((key) => node[key]!) : node;
}
