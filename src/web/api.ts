/**
 * The UI's one way to the API: credentials from session storage (never a cookie, never local
 * storage: they end with the browser tab's session), errors as the spec's shape.
 */

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

export async function get<T>(path: string, with_ = credentials): Promise<T> {
  const headers: Record<string, string> = {};
  if (with_) {
    headers.Authorization = `Bearer ${with_.token}`;
    headers['X-Service-App-Id'] = with_.appId;
  }
  const res = await fetch(path, { headers });
  const body = (await res.json().catch(() => null)) as { error?: { code: string; message: string; details?: Record<string, string> } } | null;
  if (!res.ok) {
    const e = body?.error;
    if (res.status === 401 && with_ === credentials) onUnauthorized();
    throw new ApiFailure(res.status, e?.code ?? 'error', e?.message ?? `HTTP ${res.status}`, e?.details);
  }
  return body as T;
}

export interface Page<T> {
  data: T[];
  pagination: { total: number; limit: number; offset: number };
}

export interface TraceSummary {
  id: string;
  name: string;
  status: string;
  start: string;
  end: string;
  latency_ms: number;
  cost: number;
  tokens: number;
  span_count: number;
  input_preview: string | null;
  output_preview: string | null;
  tags: string[];
  session_id: string | null;
  user_id: string | null;
  environment: string | null;
}

export interface Span {
  id: string;
  trace_id: string;
  parent_id: string | null;
  name: string;
  type: string;
  span_kind: string;
  status: string;
  status_message: string | null;
  timestamp: string;
  end_time: string;
  duration_ms: number;
  model: string | null;
  prompt_name: string | null;
  service_name: string | null;
  input_tokens: number | null;
  output_tokens: number | null;
  tokens: number | null;
  cost: number | null;
  session_id: string | null;
  user_id: string | null;
  tags: string[];
  input_preview: string | null;
  output_preview: string | null;
  metadata: Record<string, unknown>;
}

export interface SpanDetail extends Span {
  input: string | null;
  output: string | null;
  attributes: Record<string, unknown>;
  resource: Record<string, unknown>;
}

export interface Graph {
  nodes: { id: string; span_id: string; name: string; type: string }[];
  edges: { source: string; target: string }[];
}

export interface Score {
  id: string;
  name: string;
  score: number;
  label: string | null;
  reason: string | null;
  source: string;
  user_id: string | null;
  resource_id: string;
  resource_type: string;
  trace_id: string | null;
  session_id: string | null;
  created_at: string;
}

export interface Comment {
  id: string;
  content: string;
  author_user_id: string | null;
  created_at: string;
}

export interface Session {
  id: string;
  trace_count: number;
  span_count: number;
  start: string;
  end: string;
  cost: number;
  tokens: number;
  user_id: string | null;
}

export interface SchemaField {
  name: string;
  type: string;
  operators: string[];
  values?: string[];
  description: string;
}

export interface FilterSchema {
  resources: Record<'traces' | 'spans' | 'scores', { fields: SchemaField[] }>;
  operators: Record<string, { string: string | null; json: string }>;
}

export interface Capabilities {
  mode: 'cloud' | 'local';
  version: string;
  features: Record<string, boolean>;
}

export type MetricsRow = Record<string, string | number | null> & { bucket: string };

export interface MetricsAnswer {
  data: MetricsRow[];
  meta: { view: string; bucket: string; from: string; to: string; buckets: number; measures: string[]; group_by: string[] };
}
