/**
 * Validation in a fixed order — path, query, body — each failure a 400 naming the part that failed,
 * with `details` mapping every bad field to a message (spec: Errors, validation errors).
 */
import type { IValidation } from 'typia';
import { ApiError, validationError } from '../core/errors.js';
import type { AnyRoute, RouteInput } from './route.js';

export function validateInput(
  route: AnyRoute,
  params: Record<string, string>,
  query: string,
  headers: Record<string, string>,
  raw: Buffer | null,
): RouteInput<unknown, unknown, unknown> {
  const v = route.validate ?? {};
  const mode = route.body ?? 'json';
  return {
    params: v.params ? checked('path', v.params(params)) : params,
    query: v.query ? checked('query', v.query(new URLSearchParams(query))) : {},
    body: mode === 'raw' ? raw : v.body ? checked('body', v.body(parseJson(raw, headers))) : undefined,
    headers,
  };
}

function parseJson(raw: Buffer | null, headers: Record<string, string>): unknown {
  if (!raw || raw.length === 0) return undefined;
  const type = headers['content-type'];
  if (type && !/json/i.test(type)) {
    throw new ApiError('unsupported_media_type', `Expected application/json, got ${type}`);
  }
  try {
    return JSON.parse(raw.toString('utf8'));
  } catch (e) {
    throw validationError('body', { body: `not valid JSON: ${(e as Error).message}` });
  }
}

function checked<T>(part: 'path' | 'query' | 'body', result: IValidation<T>): T {
  if (result.success) return result.data;
  const details: Record<string, string> = {};
  for (const error of result.errors) {
    const field = fieldName(error.path, part);
    details[field] ??= error.expected === 'undefined' ? 'unknown property' : `expected ${error.expected}`;
  }
  throw validationError(part, details);
}

/** `$input.items[0].name` → `items[0].name`; the whole input → the part's name. */
function fieldName(path: string, part: string): string {
  const field = path.replace(/^\$input\.?/, '');
  return field === '' ? part : field;
}
