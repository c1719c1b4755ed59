/**
 * What a route's note says in the API reference, and the helpers notes are written with: they take
 * a catalog name with its examples, so tsc checks each example against its type.
 */
import type { CatalogName } from '../contract/catalog.js';
import type { Examples } from './examples.js';
import type { Tag } from './tags.js';

/** A body: a catalog type sent as JSON, and/or other media types described in words. */
export interface Payload {
  type?: string;
  /** Named examples of `type`; each must validate against it (test/http/openapi.alone.test.ts). */
  examples?: Readonly<Record<string, unknown>>;
  /** Media type → what such a body is, for bodies that are not catalog JSON (OTLP, CSV, files). */
  media?: Readonly<Record<string, string>>;
}

export interface Answer extends Payload {
  status: number;
  description: string;
  /** Response header → meaning. */
  headers?: Readonly<Record<string, string>>;
}

export interface OperationNote {
  tag: string;
  summary: string;
  description?: string;
  /** Catalog types of the path and query parameters. */
  params?: string;
  query?: string;
  /** Request header → meaning (beyond the credentials). */
  headers?: Readonly<Record<string, string>>;
  body?: Payload & { optional?: boolean };
  /** The answers of the operation itself; the error answers every route can give are added. */
  answers: readonly Answer[];
  /** Error answers this operation gives beyond the common ones, or says more about. */
  errors?: readonly { status: number; when: string }[];
  /**
   * The operation takes a credential in Authorization without the app id and authenticates it
   * itself (its permission is `none` to the router, which would ask for the app id).
   */
  credentialAlone?: true;
}

/** A note as a route declares it: its tag is one of the reference's sections, its types catalog names. */
export type RouteNote = OperationNote & { tag: Tag; params?: CatalogName; query?: CatalogName };

/** A JSON body of a catalog type, with named examples. */
export function payload<K extends CatalogName>(type: K, examples?: Examples<K>): Payload {
  return { type, ...(examples ? { examples } : {}) };
}

/** An answer carrying a catalog type as JSON. */
export function answer<K extends CatalogName>(
  status: number,
  type: K,
  description: string,
  examples?: Examples<K>,
): Answer {
  return { status, description, ...payload(type, examples) };
}
