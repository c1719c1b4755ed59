import { useEffect, useState } from 'preact/hooks';
import { ApiFailure } from './api.js';

export interface Loaded<T> {
  data: T | null;
  error: ApiFailure | null;
  loading: boolean;
}

/** Runs `load` whenever `deps` change; the latest answer wins. */
export function useLoad<T>(load: () => Promise<T>, deps: unknown[]): Loaded<T> {
  const [state, setState] = useState<Loaded<T>>({ data: null, error: null, loading: true });
  useEffect(() => {
    let current = true;
    setState((s) => ({ ...s, loading: true }));
    load().then(
      (data) => current && setState({ data, error: null, loading: false }),
      (e: unknown) => current && setState({ data: null, error: e instanceof ApiFailure ? e : new ApiFailure(0, 'error', String(e), undefined), loading: false }),
    );
    return () => {
      current = false;
    };
  }, deps);
  return state;
}
