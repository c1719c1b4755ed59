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
  'traceloop.association.properties.', // OpenLLMetry's association properties
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

/** Keys to leave out of the split: a `Set`, or anything else that answers `has`. */
export type KeySet = Pick<ReadonlySet<string>, 'has'>;

// What a key is to the split (see `namespaceOf`).
const PLAIN = 0;
const GRAPH = 1;
const METADATA_OBJECT = 2;
/** Metadata prefix `i` is `LAYER + i`. */
const LAYER = 3;

/** 1 at the first UTF-16 code unit of every special prefix or key: most keys stop there. */
const SPECIAL_FIRST = new Uint8Array(0x10000);
for (const special of [GRAPH_PREFIX, METADATA_OBJECT_KEY, ...METADATA_PREFIXES])
  SPECIAL_FIRST[special.charCodeAt(0)] = 1;

/** Where `key` goes: graph, one of the metadata prefixes (the first that matches), the metadata object, or plain. */
function namespaceOf(key: string): number {
  // The empty key reads index NaN, undefined: plain.
  if (SPECIAL_FIRST[key.charCodeAt(0)] !== 1) return PLAIN;
  if (key.startsWith(GRAPH_PREFIX)) return GRAPH;
  for (let i = 0; i < METADATA_PREFIXES.length; i++) if (key.startsWith(METADATA_PREFIXES[i]!)) return LAYER + i;
  return key === METADATA_OBJECT_KEY ? METADATA_OBJECT : PLAIN;
}

/**
 * Splits flattened span attributes. Keys in `skip` (already stored as a first-class field, such as
 * the input text) are left out of all three. An OpenInference `metadata` attribute that is no JSON
 * object is not metadata we can key, so it stays an attribute.
 */
export function splitNamespaces(attrs: JsonMap, skip: KeySet, counter: DropCounter): Namespaces {
  const attributes = emptyMap();
  const graph = emptyMap();
  const metadata = emptyMap();
  // Prefixed metadata as (layer, key, value) triples, applied after the loop in precedence order;
  // most spans carry no metadata, so nothing is allocated for them.
  let prefixed: unknown[] | undefined;
  const keys = Object.keys(attrs);
  for (let i = 0; i < keys.length; i++) {
    const key = keys[i]!;
    if (skip.has(key)) continue;
    const value = attrs[key]!;
    const namespace = namespaceOf(key);
    if (namespace === PLAIN) {
      attributes[key] = value;
    } else if (namespace === GRAPH) {
      graph[key.slice(GRAPH_PREFIX.length)] = value;
    } else if (namespace >= LAYER) {
      const layer = namespace - LAYER;
      (prefixed ??= []).push(layer, key.slice(METADATA_PREFIXES[layer]!.length), value);
    } else {
      const object = asJsonObject(value, counter);
      if (object) Object.assign(metadata, object);
      else attributes[key] = value;
    }
  }
  if (prefixed !== undefined) {
    for (let layer = 0; layer < METADATA_PREFIXES.length; layer++) {
      for (let i = 0; i < prefixed.length; i += 3) {
        if (prefixed[i] === layer) metadata[prefixed[i + 1] as string] = prefixed[i + 2] as JsonValue;
      }
    }
  }
  return { attributes, metadata, graph };
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
