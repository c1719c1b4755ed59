/**
 * Routes are data: each resource module exports a table of these, and the router owns everything
 * around the handler (aborts, body reading, auth, validation, errors).
 */
import type { IValidation } from 'typia';
import type { Config } from '../config.js';
import type { Requirement } from '../core/permissions.js';
import type { Principal } from './principal.js';
import type { Reply } from './reply.js';
import type { RequestServices } from './services.js';

export type Method = 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';

/** Which servers offer a route (spec: cloud-only and local-only endpoints). */
export type Surface = 'both' | 'cloud' | 'local';

export type Validator<T> = (input: unknown) => IValidation<T>;
export type QueryValidator<T> = (input: URLSearchParams) => IValidation<T>;

export interface RouteInput<P, Q, B> {
  params: P;
  query: Q;
  body: B;
  /** Lower-cased request headers. */
  headers: Readonly<Record<string, string>>;
}

export interface Context {
  principal: Principal;
  config: Config;
  services: RequestServices;
  requestId: string;
  /** Calls `fn` if the client goes away before the answer is sent (a long poll stops waiting then). */
  onAbort(fn: () => void): void;
}

/** What a route needs: a permission (`none`: nothing), or `operator`: the operator token alone (http/operatorAuth.ts). */
export type RoutePermission = Requirement | 'operator';

export interface Route<P = Record<string, string>, Q = Record<string, never>, B = undefined> {
  method: Method;
  /** `/v1/api-keys/:id` — `:name` segments become params. */
  path: string;
  permission: RoutePermission;
  surface?: Surface;
  /** `json` (default for POST/PUT/PATCH) parses the body; `raw` hands the bytes over untouched. */
  body?: 'json' | 'raw' | 'none';
  /** OTLP ingestion: the key must be sent raw, without `Bearer ` (spec: Authentication, rule 1). */
  rawKeyOnly?: boolean;
  /** Refusals are logged at warn (rate-limited): OTLP exporters drop what is refused, silently. */
  logRefusals?: boolean;
  /** Largest body accepted, when it differs from the configured JSON limit. */
  maxBodyBytes?: (config: Config) => number;
  validate?: {
    params?: Validator<P>;
    query?: QueryValidator<Q>;
    body?: Validator<B>;
  };
  handler: (input: RouteInput<P, Q, B>, ctx: Context) => Promise<Reply> | Reply;
}

/** Erases a route's type parameters for storage in a mixed table. */
export type AnyRoute = Route<any, any, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

export function route<P = Record<string, string>, Q = Record<string, never>, B = undefined>(r: Route<P, Q, B>): AnyRoute {
  return r as AnyRoute;
}
