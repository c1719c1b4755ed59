/**
 * The helpers the operation notes are written with (operations.ts, operatorOperations.ts): they
 * take a catalog name with its examples, so tsc checks each example against its type.
 */
import type { CatalogName } from '../contract/catalog.js';
import type { Answer, Payload } from './document.js';
import type { Examples } from './examples.js';

/** A JSON body of a catalog type, with named examples. */
export function json<K extends CatalogName>(type: K, examples?: Examples<K>): Payload {
  return { type, ...(examples ? { examples } : {}) };
}

/** An answer carrying a catalog type as JSON. */
export function answer<K extends CatalogName>(status: number, type: K, description: string, examples?: Examples<K>): Answer {
  return { status, description, ...json(type, examples) };
}
