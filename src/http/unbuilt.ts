/**
 * The spec's endpoints this version does not serve yet. They answer 501 `not_implemented`, not a
 * 404 that reads as "wrong URL" (capabilities already reports their features as false). An entry
 * goes when its route lands: test/unit/http/unbuilt.test.ts fails while a served route is listed.
 * Every endpoint of the spec is served now (the workers' turn endpoint was the last); the list and
 * its matcher stay for the next spec version's endpoints.
 */
import type { Method } from './route.js';

export const UNBUILT: readonly (readonly [Method, string])[] = [];

/** A matcher of a list like UNBUILT: the endpoint `method path` falls on, as its pattern; null when none. */
export function unbuiltMatcher(
  list: readonly (readonly [Method, string])[],
): (method: string, path: string) => string | null {
  const patterns = list.map(([method, path]) => ({
    method,
    path,
    regex: new RegExp(`^${path.replace(/:[^/]+/g, '[^/]+')}$`),
  }));
  return (method, path) => {
    const hit = patterns.find((p) => p.method === method && p.regex.test(path));
    return hit ? `${hit.method} ${hit.path}` : null;
  };
}

/** The unbuilt endpoint `method path` falls on, as its pattern; null when none. */
export const unbuiltEndpoint = unbuiltMatcher(UNBUILT);
