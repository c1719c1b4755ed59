/**
 * Validation in a fixed order — path, query, body — each failure a 400 naming the part that failed,
 * with `details` mapping every bad field to a message (spec: Errors, validation errors).
 */
import { checked, checkedBody } from '../contract/checked.js';
import { validationError } from '../core/errors.js';
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
    query: v.query ? checked('query', v.query(new URLSearchParams(query))) : noQuery(query),
    body: mode === 'raw' ? raw : v.body ? checkedBody(raw, headers['content-type'], v.body) : undefined,
    headers,
  };
}

/** A route without query parameters refuses any (a typo such as `limt` is not silently ignored). */
function noQuery(query: string): Record<string, never> {
  const names = [...new Set(new URLSearchParams(query).keys())];
  if (names.length === 0) return {};
  throw validationError(
    'query',
    Object.fromEntries(names.map((n) => [n, 'unknown parameter (this endpoint takes none)'])),
  );
}
