/**
 * Matches a method and path against the route table. Static segments win over `:params`, so
 * `/v1/scores/names` is never taken for `/v1/scores/:scoreId`.
 */
import type { AnyRoute, Method } from './route.js';

interface Compiled {
  route: AnyRoute;
  segments: string[];
  /** Number of static segments, to prefer the most specific match. */
  specificity: number;
}

export type Match =
  | { kind: 'found'; route: AnyRoute; params: Record<string, string> }
  | { kind: 'method_not_allowed'; allow: Method[] }
  /** The path has a route's shape but a parameter is not valid percent-encoding (a 400, not a 404). */
  | { kind: 'bad_encoding'; param: string }
  | { kind: 'not_found' };

export class Router {
  private readonly routes: Compiled[];

  constructor(routes: readonly AnyRoute[]) {
    this.routes = routes
      .map((route) => {
        const segments = route.path.split('/').slice(1);
        return { route, segments, specificity: segments.filter((s) => !s.startsWith(':')).length };
      })
      .sort((a, b) => b.specificity - a.specificity);
    const seen = new Set<string>();
    for (const { route } of this.routes) {
      const key = `${route.method} ${route.path.replace(/:[^/]+/g, ':')}`;
      if (seen.has(key)) throw new Error(`duplicate route ${key}`);
      seen.add(key);
    }
  }

  match(method: string, path: string): Match {
    // HEAD is GET without the body (RFC 9110 §9.3.2): probes such as `curl -I /health` use it.
    if (method === 'HEAD') method = 'GET';
    const parts = path.split('/').slice(1);
    const allow: Method[] = [];
    let bad: string | null = null;
    for (const c of this.routes) {
      const params = matchSegments(c.segments, parts);
      if (!params) continue;
      if (typeof params === 'string') {
        if (c.route.method === method) bad ??= params;
        continue;
      }
      if (c.route.method === method) return { kind: 'found', route: c.route, params };
      allow.push(c.route.method);
    }
    if (bad !== null) return { kind: 'bad_encoding', param: bad };
    return allow.length > 0 ? { kind: 'method_not_allowed', allow } : { kind: 'not_found' };
  }
}

/** The params of a match; the name of a parameter that is not valid percent-encoding; or null. */
function matchSegments(pattern: string[], parts: string[]): Record<string, string> | string | null {
  if (pattern.length !== parts.length) return null;
  const params: Record<string, string> = Object.create(null);
  let bad: string | null = null;
  for (let i = 0; i < pattern.length; i++) {
    const p = pattern[i]!;
    const v = parts[i]!;
    if (p.startsWith(':')) {
      if (v === '') return null;
      try {
        params[p.slice(1)] = decodeURIComponent(v);
      } catch {
        bad ??= p.slice(1);
      }
    } else if (p !== v) return null;
  }
  return bad ?? params;
}
