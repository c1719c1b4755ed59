/**
 * One score item as sent (`POST /v1/scores`, or one entry of `POST /v1/scores/batch`), checked on its
 * own: its shape, then the rules that need no stored data. What needs the store (the name's config,
 * the scored resource) is judged later by `finalizeScore` and `resolveResource`.
 */
import type { IValidation } from 'typia';
import {
  canonicalDataType,
  canonicalSource,
  resourceKind,
  type DataType,
  type ItemError,
  type Source,
} from './model.js';

/** A score item's fields as the wire carries them (the contract adds the length limits). */
export interface ScoreItemInput {
  name: string;
  resource_id?: string;
  session_id?: string;
  score?: number;
  data_type?: string;
  /** Alias of `data_type`. */
  dataType?: string;
  label?: string;
  reason?: string;
  source?: string;
  user_id?: string;
  /** Echoed in the batch results, never stored. */
  client_id?: string;
}

/** An item that passed the checks of this module; it crosses to the store thread as plain data. */
export interface PreparedScore {
  /** Position in the batch. */
  index: number;
  name: string;
  score: number | null;
  /** As given; null lets the name's config (or NUMERIC) decide. */
  dataType: DataType | null;
  label: string | null;
  reason: string | null;
  source: Source;
  userId: string | null;
  /** Lowercase trace or span id; null when the item scores a session (its resource is `sessionId`). */
  resourceId: string | null;
  resourceKind: 'trace' | 'span' | null;
  sessionId: string | null;
}

export type Prepared = { ok: true; item: PreparedScore } | { ok: false; error: ItemError };

export const MAX_CLIENT_ID = 128;

/** The item's `client_id` when it is one we can echo, even from an item that fails its checks. */
export function clientIdOf(raw: unknown): string | undefined {
  if (typeof raw !== 'object' || raw === null) return undefined;
  const id = (raw as { client_id?: unknown }).client_id;
  return typeof id === 'string' && id.length <= MAX_CLIENT_ID ? id : undefined;
}

/** The first problem typia found, as a field and a message (the router's wording for bodies). */
export function firstIssue(errors: readonly IValidation.IError[]): ItemError {
  const [e] = errors;
  const field = (e?.path ?? '$input').replace(/^\$input\.?/, '');
  if (field === '') return { code: 'invalid_request_body', message: 'a score is a JSON object' };
  const what = e?.expected === 'undefined' ? 'unknown property' : `expected ${e?.expected}`;
  return { code: 'invalid_request_body', message: `${field}: ${what}`, field };
}

function fail(field: string, message: string): Prepared {
  return { ok: false, error: { code: 'invalid_request_body', message: `${field}: ${message}`, field } };
}

/** Checks one raw item against `shape` (the contract's validator) and the rules of this module. */
export function prepareItem(
  raw: unknown,
  index: number,
  shape: (input: unknown) => IValidation<ScoreItemInput>,
): Prepared {
  const checked = shape(raw);
  return checked.success ? prepareChecked(checked.data, index) : { ok: false, error: firstIssue(checked.errors) };
}

/** The rules of this module, for an item whose shape the contract has checked already. */
export function prepareChecked(v: ScoreItemInput, index: number): Prepared {
  let dataType: DataType | null = null;
  for (const field of ['data_type', 'dataType'] as const) {
    const given = v[field];
    if (given === undefined) continue;
    const canonical = canonicalDataType(given);
    if (!canonical) return fail(field, `must be one of NUMERIC, BOOLEAN, CATEGORICAL, got "${given}"`);
    if (dataType !== null && dataType !== canonical) return fail('dataType', `disagrees with data_type (${dataType})`);
    dataType = canonical;
  }

  const source = v.source === undefined ? 'api' : canonicalSource(v.source);
  if (!source) return fail('source', `must be one of api, annotation, eval, sdk, got "${v.source}"`);

  // The spec requires resource_id on every score: a session score names the session as its
  // resource, with session_id equal to it (session ids are free text, so the pair says which).
  if (v.resource_id === undefined) {
    return fail(
      'resource_id',
      'is required: the id of the trace or span scored, or to score a session its id, with session_id the same',
    );
  }
  const scoresSession = v.session_id !== undefined && v.resource_id === v.session_id;
  const kind = scoresSession ? null : (resourceKind(v.resource_id) ?? null);
  if (!scoresSession && !kind) {
    return fail(
      'resource_id',
      'must be a trace id (32 hex characters) or a span id (16 hex characters), or the session id given in session_id',
    );
  }

  return {
    ok: true,
    item: {
      index,
      name: v.name,
      score: v.score ?? null,
      dataType,
      label: v.label ?? null,
      reason: v.reason ?? null,
      source,
      userId: v.user_id ?? null,
      resourceId: scoresSession ? null : v.resource_id.toLowerCase(),
      resourceKind: kind,
      sessionId: v.session_id ?? null,
    },
  };
}
