/**
 * Checks of request input beside the typia validators: a JSON body read and parsed as the router
 * reads one, and a validator's result turned into a 400 naming each bad field (spec: Errors,
 * validation errors). The router and the compute threads (agent batches, worker events) share them.
 */
import type { IValidation } from 'typia';
import { ApiError, validationError } from '../core/errors.js';
import { MAX_BODY_NESTING, nestsDeeperThan } from '../core/jsonNesting.js';

/** A typia validator of a JSON value. */
export type Validator<T> = (input: unknown) => IValidation<T>;

/**
 * A JSON body parsed and checked as the router checks one (its media type, UTF-8, JSON, well-formed
 * text, then `validator`), for routes that take theirs raw and check it off the HTTP thread.
 */
export function checkedBody<B>(raw: Uint8Array | null, contentType: string | undefined, validator: Validator<B>): B {
  return checked('body', validator(parseJson(raw, contentType)));
}

/**
 * A JSON body's text: a media type that is not JSON is 415, bytes that are not UTF-8 are 400; no
 * body is `undefined`. What the router does before parsing, for routes that parse their own.
 */
export function jsonBodyText(raw: Uint8Array | null, type: string | undefined): string | undefined {
  if (!raw || raw.length === 0) return undefined;
  if (type && !/json/i.test(type)) {
    throw new ApiError('unsupported_media_type', `Expected application/json, got ${type}`);
  }
  try {
    return UTF8.decode(raw);
  } catch {
    throw validationError('body', { body: 'not valid UTF-8' });
  }
}

function parseJson(raw: Uint8Array | null, type: string | undefined): unknown {
  const text = jsonBodyText(raw, type);
  if (text === undefined) return undefined;
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (e) {
    throw validationError('body', { body: `not valid JSON: ${(e as Error).message}` });
  }
  // Validation and the walk below recurse: refused here rather than overflow the stack (a 500).
  if (nestsDeeperThan(text, MAX_BODY_NESTING))
    throw validationError('body', { body: `nested more than ${MAX_BODY_NESTING} levels deep` });
  // JSON escapes can still spell half a surrogate pair (`"\ud800"`), which is not text: refused
  // rather than stored as is (docs/decisions.md, "text is well-formed Unicode").
  const bad = illFormed(value, '');
  if (bad !== null)
    throw validationError('body', {
      [bad || 'body']: 'contains a lone surrogate (\\ud800-\\udfff escape without its pair): not valid Unicode text',
    });
  return value;
}

const UTF8 = new TextDecoder('utf-8', { fatal: true, ignoreBOM: false });

/** The path of the first string (or key) that is not well-formed Unicode, or null. */
function illFormed(v: unknown, path: string): string | null {
  if (typeof v === 'string') return v.isWellFormed() ? null : path;
  if (Array.isArray(v)) {
    for (let i = 0; i < v.length; i++) {
      const bad = illFormed(v[i], `${path}[${i}]`);
      if (bad !== null) return bad;
    }
    return null;
  }
  if (v !== null && typeof v === 'object') {
    for (const [k, x] of Object.entries(v)) {
      const at = path ? `${path}.${k}` : k;
      if (!k.isWellFormed()) return at;
      const bad = illFormed(x, at);
      if (bad !== null) return bad;
    }
  }
  return null;
}

/** Messages already in words (contract/strictQuery.ts), as opposed to typia's type expressions. */
const WORDS = /^(must|unknown|given|is empty|each)[ :]/;

/** `result`'s data, or a 400 naming each bad field of `part` (a filter's: `invalid_filter`). */
export function checked<T>(part: 'path' | 'query' | 'body', result: IValidation<T>): T {
  if (result.success) return result.data;
  const details: Record<string, string> = {};
  for (const error of result.errors) {
    const field = fieldName(error.path, part);
    details[field] ??=
      error.expected === 'undefined'
        ? 'unknown property'
        : WORDS.test(error.expected)
          ? error.expected
          : `expected ${error.expected}`;
  }
  // A filter is refused with one code whichever check fails, its shape here or its meaning in
  // core/filter (spec: filters): the JSON `filters` of a search body, the `filter` string of a list.
  const filterField = part === 'body' ? /^filters(\[|\.|$)/ : part === 'query' ? /^filter$/ : null;
  if (filterField && Object.keys(details).every((f) => filterField.test(f))) {
    throw new ApiError('invalid_filter', undefined, { details });
  }
  throw validationError(part, details);
}

/** `$input.items[0].name` → `items[0].name`; the whole input → the part's name. */
function fieldName(path: string, part: string): string {
  const field = path.replace(/^\$input\.?/, '');
  return field === '' ? part : field;
}

declare global {
  interface String {
    /** ES2024, in Node since 20 (the project's lib is ES2023). */
    isWellFormed(): boolean;
  }
}
