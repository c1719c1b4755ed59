/**
 * Every error the API answers, in one table: code → status and default message. Handlers throw
 * `ApiError`; the router alone turns it into the spec's body `{error: {code, message, ...}}`.
 */

export const ERRORS = {
  invalid_request_body: { status: 400, message: 'Invalid request body' },
  invalid_query_parameters: { status: 400, message: 'Invalid query parameters' },
  invalid_path_parameters: { status: 400, message: 'Invalid path parameters' },
  invalid_request_headers: { status: 400, message: 'Invalid request headers' },
  malformed_request: { status: 400, message: 'Malformed HTTP request' },
  invalid_filter: { status: 400, message: 'Invalid filter' },
  invalid_time_window: { status: 400, message: 'Invalid time window' },
  unauthorized: { status: 401, message: 'Missing or invalid credentials' },
  entitlement_required: { status: 402, message: 'Plan limit reached' },
  forbidden: { status: 403, message: 'The API key lacks the required permission' },
  not_found: { status: 404, message: 'Not found' },
  method_not_allowed: { status: 405, message: 'Method not allowed' },
  request_timeout: { status: 408, message: 'The request did not arrive in time' },
  duplicate_app_name: { status: 409, message: 'An app with this name already exists' },
  git_connection_missing: { status: 409, message: 'No git connection' },
  environment_busy: { status: 409, message: 'A turn is already running' },
  conflict: { status: 409, message: 'Conflict' },
  payload_too_large: { status: 413, message: 'Payload too large' },
  unsupported_media_type: { status: 415, message: 'Unsupported content type' },
  render_limit_exceeded: { status: 422, message: 'The render passed its time or output budget' },
  request_header_fields_too_large: { status: 431, message: 'Request header fields too large' },
  rate_limited: { status: 429, message: 'Rate limited' },
  span_limit_exceeded: { status: 429, message: 'Monthly span quota exceeded' },
  storage_cap_exceeded: { status: 429, message: 'Storage cap exceeded' },
  internal_error: { status: 500, message: 'Internal error' },
  not_available_locally: { status: 501, message: 'Not available on the local development server' },
  not_available_on_cloud: { status: 501, message: 'Only available on the local development server' },
  not_implemented: { status: 501, message: 'This endpoint of the API is not built in this version' },
  overloaded: { status: 503, message: 'Temporarily overloaded; retry later' },
  unavailable: { status: 503, message: 'Service unavailable' },
  storage_unavailable: { status: 503, message: 'Storage is full or not writable; nothing was stored; retry later' },
  http_version_not_supported: { status: 505, message: 'Only HTTP/1.1 is served' },
} as const satisfies Record<string, { status: number; message: string }>;

export type ErrorCode = keyof typeof ERRORS;

/** Extra context, sent as flat sibling fields of `code` and `message` (spec: Errors). */
export type ErrorFields = Record<string, string | number | boolean | null | Record<string, string>>;

export class ApiError extends Error {
  readonly code: ErrorCode;
  readonly status: number;
  readonly fields: ErrorFields;
  /** Response headers that belong to this error, e.g. Retry-After. */
  readonly headers: Record<string, string>;

  constructor(code: ErrorCode, message?: string, fields: ErrorFields = {}, headers: Record<string, string> = {}) {
    super(message ?? ERRORS[code].message);
    this.code = code;
    this.status = ERRORS[code].status;
    this.fields = fields;
    this.headers = headers;
  }

  /** The spec's error body. */
  toBody(): { error: Record<string, unknown> } {
    return { error: { code: this.code, message: this.message, ...this.fields } };
  }
}

/** A 400 whose `details` maps each failing field to its message (spec: Errors, validation). */
export function validationError(
  part: 'body' | 'query' | 'path' | 'headers',
  details: Record<string, string>,
): ApiError {
  const code = VALIDATION_CODES[part];
  return new ApiError(code, ERRORS[code].message, { details });
}

const VALIDATION_CODES = {
  body: 'invalid_request_body',
  query: 'invalid_query_parameters',
  path: 'invalid_path_parameters',
  headers: 'invalid_request_headers',
} as const satisfies Record<string, ErrorCode>;

/** Errors cross the worker boundary as plain data and are rebuilt on the other side. */
export interface ErrorData {
  code: ErrorCode;
  message: string;
  fields: ErrorFields;
  headers: Record<string, string>;
}

export function toErrorData(e: ApiError): ErrorData {
  return { code: e.code, message: e.message, fields: e.fields, headers: e.headers };
}

export function fromErrorData(d: ErrorData): ApiError {
  return new ApiError(d.code, d.message, d.fields, d.headers);
}

export function isErrorData(v: unknown): v is ErrorData {
  return (
    typeof v === 'object' && v !== null && typeof (v as ErrorData).code === 'string' && (v as ErrorData).code in ERRORS
  );
}

/** Seconds a client is asked to wait before retrying an overloaded server. */
export const RETRY_AFTER_SECONDS = 1;

/** 503 `overloaded` with Retry-After: too much in flight now (requests, bytes, tasks, ingest backlog). */
export function overloaded(message?: string): ApiError {
  return new ApiError(
    'overloaded',
    message,
    { retry_after_seconds: RETRY_AFTER_SECONDS },
    { 'Retry-After': String(RETRY_AFTER_SECONDS) },
  );
}

/** 429 `rate_limited` with Retry-After: the tenant's requests are over its rate (spec: Limits). */
export function rateLimited(retryAfterSeconds: number): ApiError {
  return new ApiError(
    'rate_limited',
    `Too many requests for this tenant; retry in ${retryAfterSeconds} s`,
    { retry_after_seconds: retryAfterSeconds },
    { 'Retry-After': String(retryAfterSeconds) },
  );
}

/** Seconds a client is asked to wait before retrying after a storage failure. */
export const STORAGE_RETRY_AFTER_SECONDS = 10;

/**
 * Whether `e` is the storage refusing a write — full disk, quota, file-size limit, read-only
 * filesystem, I/O error — from Node (`ENOSPC: …`) or DuckDB (`…: No space left on device`). Errors
 * from worker threads arrive without their `code`, so the message decides.
 */
export function isStorageFailure(e: unknown): boolean {
  return (
    e instanceof Error &&
    /\b(ENOSPC|EDQUOT|EFBIG|EROFS|EIO)\b|No space left on device|Disk quota exceeded|File too large|Read-only file system|Input\/output error/i.test(
      e.message,
    )
  );
}

/** The answer to a storage failure: 503 with Retry-After, which OTLP exporters retry (a 500 they drop). */
export function storageUnavailable(): ApiError {
  return new ApiError(
    'storage_unavailable',
    undefined,
    { retry_after_seconds: STORAGE_RETRY_AFTER_SECONDS },
    { 'Retry-After': String(STORAGE_RETRY_AFTER_SECONDS) },
  );
}
