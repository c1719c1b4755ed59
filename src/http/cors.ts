/**
 * CORS, so browser OpenTelemetry exporters and web clients on other origins can call the API: off
 * unless origins are configured (`--cors-origins`, parsed in config.ts). Pure: the server asks which
 * headers to send.
 */

import type { CorsOrigins } from '../config.js';

const ALLOWED_METHODS = 'GET, HEAD, POST, PUT, PATCH, DELETE';
/** Headers a browser may read from our answers beyond the CORS-safelisted ones. */
const EXPOSED_HEADERS = 'Retry-After, X-Request-Id';
/** How long a browser may cache a preflight answer. */
const PREFLIGHT_MAX_AGE_SECONDS = 600;

function allowed(origins: CorsOrigins, origin: string | undefined): origin is string {
  return origin !== undefined && (origins === '*' || origins.includes(origin));
}

/** Headers for an ordinary answer to a request from `origin`; empty when CORS does not apply. */
export function corsHeaders(origins: CorsOrigins, origin: string | undefined): Record<string, string> {
  if (!allowed(origins, origin)) return {};
  return { 'Access-Control-Allow-Origin': origin, 'Access-Control-Expose-Headers': EXPOSED_HEADERS, Vary: 'Origin' };
}

/**
 * The answer to a preflight (`OPTIONS` with `Access-Control-Request-Method`): its headers when the
 * origin is allowed — the browser then sends the request — and none otherwise (the browser stops).
 */
export function preflightHeaders(
  origins: CorsOrigins,
  origin: string | undefined,
  requestHeaders: string | undefined,
): Record<string, string> {
  if (!allowed(origins, origin)) return {};
  return {
    ...corsHeaders(origins, origin),
    'Access-Control-Allow-Methods': ALLOWED_METHODS,
    // Authorization, X-Service-App-Id, Content-Type, Content-Encoding, …: whatever the client asks for.
    ...(requestHeaders ? { 'Access-Control-Allow-Headers': requestHeaders } : {}),
    'Access-Control-Max-Age': String(PREFLIGHT_MAX_AGE_SECONDS),
  };
}
