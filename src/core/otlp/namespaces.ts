/**
 * Attribute namespaces that leave `attributes`: user metadata and the reserved graph namespace.
 * Served apart (metadata on every span read, graph only by the graph endpoints), so a key must live
 * in exactly one place.
 */
import type { JsonValue } from '../span.js';
import { emptyMap, isObject, parseJson, type DropCounter, type JsonMap } from './attributes.js';
import { TAG_KEYS } from './conventions.js';

/**
 * Metadata prefixes, lowest precedence first: when two name the same key the later one wins, so our
 * own `tracelake.metadata.*` beats what a Langfuse or AI SDK integration set.
 */
export const METADATA_PREFIXES: readonly string[] = [
  'ai.telemetry.metadata.', // AI SDK `experimental_telemetry.metadata`
  'langfuse.trace.metadata.',
  'langfuse.observation.metadata.',
  'tracelake.metadata.',
];

/** OpenInference puts all metadata in one attribute holding a JSON object (lowest precedence). */
export const METADATA_OBJECT_KEY = 'metadata';

/** Reserved for the graph endpoints; the prefix is removed. */
export const GRAPH_PREFIX = 'graph.node.';

/** A span's attributes split into what is kept as attributes, user metadata and graph keys. */
export interface Namespaces {
  attributes: JsonMap;
  metadata: JsonMap;
  graph: JsonMap;
}

/**
 * Splits flattened span attributes. Keys in `skip` (already stored as a first-class field, such as
 * the input text) are left out of all three. An OpenInference `metadata` attribute that is no JSON
 * object is not metadata we can key, so it stays an attribute.
 */
export function splitNamespaces(attrs: JsonMap, skip: ReadonlySet<string>, counter: DropCounter): Namespaces {
  const attributes = emptyMap();
  const graph = emptyMap();
  const metadata = emptyMap();
  // Collected first and applied in precedence order; most spans carry no metadata, so no per-prefix maps.
  const prefixed: { layer: number; key: string; value: JsonValue }[] = [];
  for (const key of Object.keys(attrs)) {
    if (skip.has(key)) continue;
    const value = attrs[key]!;
    if (key.startsWith(GRAPH_PREFIX)) {
      graph[key.slice(GRAPH_PREFIX.length)] = value;
      continue;
    }
    const layer = metadataLayer(key);
    if (layer >= 0) {
      prefixed.push({ layer, key: key.slice(METADATA_PREFIXES[layer]!.length), value });
      continue;
    }
    const object = key === METADATA_OBJECT_KEY ? asJsonObject(value, counter) : undefined;
    if (object) Object.assign(metadata, object);
    else attributes[key] = value;
  }
  prefixed.sort((a, b) => a.layer - b.layer);
  for (const { key, value } of prefixed) metadata[key] = value;
  return { attributes, metadata, graph };
}

function metadataLayer(key: string): number {
  for (let i = 0; i < METADATA_PREFIXES.length; i++) if (key.startsWith(METADATA_PREFIXES[i]!)) return i;
  return -1;
}

function asJsonObject(v: JsonValue, counter: DropCounter): JsonMap | undefined {
  const parsed = typeof v === 'string' ? parseJson(v, counter) : v;
  return isObject(parsed) && !Array.isArray(parsed) ? (parsed as JsonMap) : undefined;
}

/**
 * Tags from the first of {@link TAG_KEYS} that yields any: an array of strings, JSON text of one,
 * or a single tag as plain text. Blank and repeated tags are dropped; order is kept.
 */
export function tagsOf(attrs: JsonMap, counter: DropCounter): string[] {
  for (const key of TAG_KEYS) {
    const tags = tagList(attrs[key], counter);
    if (tags.length > 0) return tags;
  }
  return [];
}

function tagList(v: JsonValue | undefined, counter: DropCounter): string[] {
  let list: JsonValue | undefined = v;
  if (typeof v === 'string') list = v.trimStart().startsWith('[') ? parseJson(v, counter) : [v];
  if (!Array.isArray(list)) return [];
  const tags = new Set<string>();
  for (const tag of list) if (typeof tag === 'string' && tag.trim() !== '') tags.add(tag.trim());
  return [...tags];
}
