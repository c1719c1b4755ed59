/**
 * The UI's one way to the API: credentials from session storage (never a cookie, never local
 * storage: they end with the browser tab's session), errors as the spec's shape.
 */
import type { CredentialApp } from './apiTypes.js';

export interface Credentials {
  /** An API key (`sk_service_…`) or a session token. */
  token: string;
  appId: string;
}

const STORAGE_KEY = 'tracelake.credentials';

export function loadCredentials(): Credentials | null {
  try {
    const raw = sessionStorage.getItem(STORAGE_KEY);
    return raw ? (JSON.parse(raw) as Credentials) : null;
  } catch {
    return null;
  }
}

export function saveCredentials(c: Credentials | null): void {
  if (c) sessionStorage.setItem(STORAGE_KEY, JSON.stringify(c));
  else sessionStorage.removeItem(STORAGE_KEY);
}

/** An error answer of the API: `{error: {code, message, details?}}`. */
export class ApiFailure extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
    readonly details: Record<string, string> | undefined,
  ) {
    super(message);
  }
}

let credentials: Credentials | null = loadCredentials();
let onUnauthorized: () => void = () => undefined;

export function useCredentials(c: Credentials | null, unauthorized: () => void): void {
  credentials = c;
  onUnauthorized = unauthorized;
}

/** Query parameters without the empty ones. */
export function query(params: Record<string, string | number | undefined | null>): string {
  const q = new URLSearchParams();
  for (const [k, v] of Object.entries(params)) if (v !== undefined && v !== null && v !== '') q.set(k, String(v));
  const s = q.toString();
  return s ? `?${s}` : '';
}

export function get<T>(path: string, with_ = credentials): Promise<T> {
  return send<T>('GET', path, undefined, with_);
}

/** The app a key or session token belongs to, asked with the credential alone (`GET /v1/auth/app`). */
export async function appOf(token: string): Promise<string> {
  return (await get<{ data: CredentialApp }>('/v1/auth/app', { token, appId: '' })).data.app_id;
}

/** A read that takes a body (rendering a prompt): a POST of JSON. */
export function post<T>(path: string, body: unknown): Promise<T> {
  return send<T>('POST', path, body, credentials);
}

async function send<T>(method: 'GET' | 'POST', path: string, payload: unknown, with_: Credentials | null): Promise<T> {
  const headers: Record<string, string> = {};
  if (with_) {
    headers.Authorization = `Bearer ${with_.token}`;
    if (with_.appId) headers['X-Service-App-Id'] = with_.appId;
  }
  if (payload !== undefined) headers['Content-Type'] = 'application/json';
  const res = await fetch(path, {
    method,
    headers,
    ...(payload !== undefined ? { body: JSON.stringify(payload) } : {}),
  });
  const body = (await res.json().catch(() => null)) as {
    error?: { code: string; message: string; details?: Record<string, string> };
  } | null;
  if (!res.ok) {
    const e = body?.error;
    if (res.status === 401 && with_ === credentials) onUnauthorized();
    throw new ApiFailure(res.status, e?.code ?? 'error', e?.message ?? `HTTP ${res.status}`, e?.details);
  }
  return body as T;
}

export * from './apiTypes.js';
