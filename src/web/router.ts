/**
 * Hash routes (`#/traces/abc?filter=…`): every view is a deep link, and the server serves one page
 * at `/` whatever the view. A route's query holds the view's state (filter, window, sort, page).
 */
import { useEffect, useState } from 'preact/hooks';

export interface Location {
  path: string;
  query: URLSearchParams;
}

export function currentLocation(): Location {
  const hash = location.hash.replace(/^#/, '') || '/traces';
  const [path, q = ''] = hash.split('?', 2) as [string, string?];
  return { path, query: new URLSearchParams(q) };
}

export function href(path: string, params: Record<string, string | number | undefined | null> = {}): string {
  const q = new URLSearchParams();
  for (const [k, v] of Object.entries(params)) if (v !== undefined && v !== null && v !== '') q.set(k, String(v));
  const s = q.toString();
  return `#${path}${s ? `?${s}` : ''}`;
}

export function navigate(
  path: string,
  params: Record<string, string | number | undefined | null> = {},
  replace = false,
): void {
  const target = href(path, params);
  if (replace) history.replaceState(null, '', target);
  else location.hash = target;
  if (replace) dispatchEvent(new HashChangeEvent('hashchange'));
}

export function useLocation(): Location {
  const [loc, setLoc] = useState(currentLocation);
  useEffect(() => {
    const on = () => setLoc(currentLocation());
    addEventListener('hashchange', on);
    return () => removeEventListener('hashchange', on);
  }, []);
  return loc;
}

/** Matches `/traces/:traceId` against a path; the params, or null. */
export function match(pattern: string, path: string): Record<string, string> | null {
  const p = pattern.split('/');
  const a = path.split('/');
  if (p.length !== a.length) return null;
  const params: Record<string, string> = {};
  for (let i = 0; i < p.length; i++) {
    if (p[i]!.startsWith(':')) params[p[i]!.slice(1)] = decodeURIComponent(a[i]!);
    else if (p[i] !== a[i]) return null;
  }
  return params;
}
