/**
 * Routes are data: each resource module exports a table of these, and the router owns everything
 * around the handler (aborts, body reading, auth, validation, errors). A declaration also carries
 * its note in the API reference, so one object says all there is to say about an endpoint.
 */
import type { IValidation } from 'typia';
import type { Config } from '../config.js';
import type { Requirement } from '../core/permissions.js';
import type { RouteNote } from '../openapi/note.js';
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

export interface AppWideChange<I> {
  what: string;
  labels?: (input: I) => readonly string[];
}

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
  /**
   * A health probe: its store tasks are the server's own (pool/taskPool.ts), so an overloaded
   * store answers it instead of refusing it behind the very reads it reports on.
   */
  probe?: boolean;
  /** Largest body accepted, when it differs from the configured JSON limit. */
  maxBodyBytes?: (config: Config) => number;
  /**
   * Content-Encoding (gzip, deflate) is undone by the router, after auth, up to this many bytes,
   * the output counted in the request budget as it is produced; the handler gets the plain body.
   */
  inflateUpTo?: (config: Config) => number;
  /**
   * Memory the handling holds per body byte, counted in the request budget at the door (default 1):
   * a body parsed and expanded on a compute thread holds several times its size. A body weighing
   * more than the whole budget reserves all of it, and so runs alone.
   */
  bodyWeight?: number;
  validate?: {
    params?: Validator<P>;
    query?: QueryValidator<Q>;
    body?: Validator<B>;
  };
  /**
   * The route changes an object every environment of the app shares (core/admin/rules.ts,
   * `changesAppWide`): `what` it does, for the refusal, and the prompt labels a request names.
   */
  appWide?: AppWideChange<RouteInput<P, Q, B>>;
  handler: (input: RouteInput<P, Q, B>, ctx: Context) => Promise<Reply> | Reply;
  /** What the API reference says of the operation (src/openapi); routes outside the API have none. */
  note?: RouteNote;
}

/**
 * A route with its type parameters erased, for storage in a mixed table: the router hands each
 * handler the input its own validators checked, so the erasure is made once, in `route()`.
 */
export type AnyRoute = Route<unknown, unknown, unknown>;

type BodyMode = NonNullable<Route['body']>;

/** A route's validators, as a declaration writes them. */
export interface Validators {
  params?: Validator<unknown>;
  query?: QueryValidator<unknown>;
  body?: Validator<unknown>;
}

/** What the validator `K` of `V` checks its input into, or `Otherwise` when there is none. */
type Checked<V, K extends keyof Validators, Otherwise> = V extends {
  [key in K]?: (input: never) => IValidation<infer T>;
}
  ? unknown extends T
    ? Otherwise
    : T
  : Otherwise;

/** A raw body is the bytes; otherwise the body validator's type (none: no body). */
type BodyOf<V, M> = M extends 'raw' ? Buffer : Checked<V, 'body', undefined>;

/** `/ui/:file` → `'file'`. */
type ParamNames<P extends string> = P extends `${string}:${infer Name}/${infer Rest}`
  ? Name | ParamNames<Rest>
  : P extends `${string}:${infer Name}`
    ? Name
    : never;

/** The path's own parameters, as strings, when the path is written as a literal. */
type PathParams<P extends string> = string extends P ? Record<string, string> : { [K in ParamNames<P>]: string };

/**
 * A route as declared: the handler's input types are those of its validators (a path without a
 * validator: its `:name` segments), written once.
 */
export type RouteDeclaration<V extends Validators, M extends BodyMode | undefined, P extends string> = Omit<
  Route<Checked<V, 'params', PathParams<P>>, Checked<V, 'query', Record<string, never>>, BodyOf<V, M>>,
  'validate' | 'body' | 'path'
> & { path: P; validate?: V; body?: M };

export function route<
  const V extends Validators = Record<never, never>,
  const M extends BodyMode | undefined = undefined,
  const P extends string = string,
>(r: RouteDeclaration<V, M, P>): AnyRoute {
  return r as unknown as AnyRoute;
}
