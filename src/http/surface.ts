/**
 * Which server offers which path (spec: the two surfaces). The local development server offers the
 * trace, span, session and score handlers plus capabilities, pricing, filter schema and `/health`;
 * every other /v1 path is cloud-only there. `/v1/dev/*` exists only locally.
 */
import type { Mode } from '../config.js';

const LOCAL_ONLY = [/^\/v1\/dev(\/|$)/];

/** Not of the spec's surfaces: the operator API (routes/operator.ts) is the same on both servers. */
const EVERYWHERE = [/^\/v1\/operator(\/|$)/];

/** Cloud-only although their prefix is on the local surface (spec: cloud-only endpoints). */
const CLOUD_ONLY = [
  /^\/v1\/traces\/search$/,
  /^\/v1\/spans\/search$/,
  /^\/v1\/scores\/search$/,
  /^\/v1\/scores\/aggregations$/,
  /^\/v1\/metrics(\/|$)/,
  /^\/v1\/health(\/|$)/,
];

const LOCAL_SURFACE = [
  /^\/health$/,
  /^\/v1\/traces(\/|$)/,
  /^\/v1\/spans(\/|$)/,
  /^\/v1\/sessions(\/|$)/,
  /^\/v1\/runs\/[^/]+\/traces$/,
  /^\/v1\/scores(\/|$)/,
  /^\/v1\/score-configs(\/|$)/,
  /^\/v1\/comments(\/|$)/,
  /^\/v1\/capabilities$/,
  /^\/v1\/pricing$/,
  /^\/v1\/filter-schema$/,
  // The API reference describes both surfaces, so both serve it.
  /^\/v1\/openapi\.json$/,
  /^\/v1\/reference$/,
  // The web UI's sign-in and `tracelake quickstart` start from a key alone on either server.
  /^\/v1\/auth\/app$/,
];

export type SurfaceRefusal = 'not_available_locally' | 'not_available_on_cloud' | null;

/** The 501 code a server in `mode` answers for `path`, or null when it serves the path. */
export function refusalFor(mode: Mode, path: string): SurfaceRefusal {
  if (EVERYWHERE.some((r) => r.test(path))) return null;
  const localOnly = LOCAL_ONLY.some((r) => r.test(path));
  if (mode === 'cloud') return localOnly ? 'not_available_on_cloud' : null;
  if (localOnly) return null;
  if (CLOUD_ONLY.some((r) => r.test(path))) return 'not_available_locally';
  if (!path.startsWith('/v1/')) return null;
  return LOCAL_SURFACE.some((r) => r.test(path)) ? null : 'not_available_locally';
}
