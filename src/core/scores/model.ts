/**
 * The vocabulary of scores: data types, sources, the resource a score names, and
 * the per-item error a batch reports. Spellings are canonicalised here, once, for every entry point.
 */

export const DATA_TYPES = ['NUMERIC', 'BOOLEAN', 'CATEGORICAL'] as const;
export type DataType = (typeof DATA_TYPES)[number];

export const SOURCES = ['api', 'annotation', 'eval', 'sdk'] as const;
export type Source = (typeof SOURCES)[number];

/** What a score or comment is attached to. */
export type ResourceType = 'trace' | 'span' | 'session';

/** Most items of one `POST /v1/scores/batch` (spec: Limits). */
export const MAX_BATCH = 1000;

/** Why one item of a batch (or the one score of `POST /v1/scores`) was not stored. */
export interface ItemError {
  code: 'invalid_request_body' | 'not_found' | 'internal_error';
  message: string;
  /** The body field at fault, when there is one. */
  field?: string;
}

/** The canonical data type of `text` (any case), or undefined. */
export function canonicalDataType(text: string): DataType | undefined {
  const upper = text.toUpperCase();
  return DATA_TYPES.find((d) => d === upper);
}

/** The canonical source of `text` (any case), or undefined. */
export function canonicalSource(text: string): Source | undefined {
  const lower = text.toLowerCase();
  return SOURCES.find((s) => s === lower);
}

/** Trace ids are 32 hex characters and span ids 16 (spec: the API speaks lowercase hex). */
export function resourceKind(id: string): 'trace' | 'span' | undefined {
  if (/^[0-9a-fA-F]{32}$/.test(id)) return 'trace';
  if (/^[0-9a-fA-F]{16}$/.test(id)) return 'span';
  return undefined;
}
