/**
 * The spec's endpoints this version does not serve yet. They answer 501 `not_implemented`, not a
 * 404 that reads as "wrong URL" (capabilities already reports their features as false). An entry
 * goes when its route lands: test/unit/http/unbuilt.test.ts fails while a served route is listed.
 */
import type { Method } from './route.js';

export const UNBUILT: readonly (readonly [Method, string])[] = [];

const PATTERNS = UNBUILT.map(([method, path]) => ({
  method,
  path,
  regex: new RegExp(`^${path.replace(/:[^/]+/g, '[^/]+')}$`),
}));

/** The unbuilt endpoint `method path` falls on, as its pattern; null when none. */
export function unbuiltEndpoint(method: string, path: string): string | null {
  const hit = PATTERNS.find((p) => p.method === method && p.regex.test(path));
  return hit ? `${hit.method} ${hit.path}` : null;
}
