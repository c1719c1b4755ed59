import { useEffect, useState } from 'preact/hooks';
import { ApiFailure } from './api.js';

export interface Loaded<T> {
  data: T | null;
  error: ApiFailure | null;
  loading: boolean;
}

function failure(e: unknown): ApiFailure {
  return e instanceof ApiFailure ? e : new ApiFailure(0, 'error', String(e), undefined);
}

/** Runs `load` whenever `deps` change; the latest answer wins. */
export function useLoad<T>(load: () => Promise<T>, deps: unknown[]): Loaded<T> {
  const [state, setState] = useState<Loaded<T>>({ data: null, error: null, loading: true });
  useEffect(() => {
    let current = true;
    setState((s) => ({ ...s, loading: true }));
    load().then(
      (data) => current && setState({ data, error: null, loading: false }),
      (e: unknown) => current && setState({ data: null, error: failure(e), loading: false }),
    );
    return () => {
      current = false;
    };
  }, deps);
  return state;
}

/**
 * As useLoad, for a view of one thing named by `key` (a prompt, a run): an answer about another
 * thing is never shown — not even in the render between following a link and the new load starting,
 * which useLoad fills with the previous answer (right for a table being re-filtered, wrong here).
 */
export function useLoadOf<T>(key: string, load: () => Promise<T>): Loaded<T> {
  const [state, setState] = useState<Loaded<T> & { key: string | null }>({
    data: null,
    error: null,
    loading: true,
    key: null,
  });
  useEffect(() => {
    let current = true;
    load().then(
      (data) => current && setState({ data, error: null, loading: false, key }),
      (e: unknown) => current && setState({ data: null, error: failure(e), loading: false, key }),
    );
    return () => {
      current = false;
    };
  }, [key]);
  return state.key === key ? state : { data: null, error: null, loading: true };
}
