/** OTLP trace export request → Tracelake span rows: pure mapping, no decoding, no I/O. */
export { mapExportRequest, MAX_ERROR_MESSAGES, rowKeys, type MapOptions, type MapResult, type RowKeys } from './map.js';
export type { CostFn, SpanFields, TokenUsage } from './fields.js';
export { spanFields } from './fields.js';
export {
  anyValueToJson,
  flattenAttributes,
  MAX_ATTRIBUTES,
  MAX_DEPTH,
  type DropCounter,
  type JsonMap,
} from './attributes.js';
export { eventSpanId, idToHex } from './ids.js';
export { toBigInt, toNanos } from './int64.js';
export * from './conventions.js';
export { SPAN_KIND_SOURCES, spanKindOf, type KindSource } from './span-kind.js';
export {
  GRAPH_PREFIX,
  METADATA_OBJECT_KEY,
  METADATA_PREFIXES,
  splitNamespaces,
  tagsOf,
  type KeySet,
} from './namespaces.js';
export type * from './wire.js';
