/**
 * The server's route table in one place, so that what the server serves and what the isolation
 * matrix (test/reliability/isolation.test.ts) walks are the same list: a route added here is a
 * route the matrix must cover. The operator routes, served only with an operator token, are
 * outside it (no tenant credential reaches them): test/http/operator.test.ts walks them instead.
 */
import type { Config } from '../config.js';
import type { Requirement } from '../core/permissions.js';
import type { AnyRoute } from './route.js';
import { adminRoutes } from './routes/admin.js';
import { apiKeyRoutes } from './routes/apiKeys.js';
import { appRoutes } from './routes/apps.js';
import { blobRoutes } from './routes/blobs.js';
import { devRoutes } from './routes/dev.js';
import { faultRoutes } from './routes/faults.js';
import { healthRoutes } from './routes/health.js';
import { ingestRoutes } from './routes/ingest.js';
import { operatorRoutes } from './routes/operator.js';
import { referenceRoutes } from './routes/reference.js';
import { scoreRoutes } from './routes/scores.js';
import { searchRoutes } from './routes/search.js';
import { systemRoutes } from './routes/system.js';
import { traceRoutes } from './routes/traces.js';

/**
 * Every route of a server started with `config`; `secret` hashes the keys that API key and operator
 * routes mint. The operator API exists only when an operator token is configured.
 */
export function allRoutes(secret: Buffer, config: Pick<Config, 'faultInjection'> & Partial<Pick<Config, 'operatorToken'>>): AnyRoute[] {
  const routes: AnyRoute[] = [];
  // Capabilities and the API reference are derived from the finished table, hence the late-bound reference.
  routes.push(...healthRoutes, ...systemRoutes(() => routes), ...referenceRoutes(() => routes), ...apiKeyRoutes(secret), ...devRoutes, ...ingestRoutes, ...traceRoutes, ...appRoutes, ...blobRoutes, ...scoreRoutes, ...searchRoutes, ...adminRoutes);
  if (config.operatorToken !== undefined) routes.push(...operatorRoutes(secret));
  if (config.faultInjection) routes.push(...faultRoutes);
  return routes;
}

/** A route the API reference describes. */
export type DocumentedRoute = AnyRoute & { permission: Requirement };

/**
 * The routes of `routes` the API reference describes: all but the test-only fault routes and,
 * for now, the operator API (described in README.md and docs/deploy.md).
 */
export function documentedRoutes(routes: readonly AnyRoute[]): DocumentedRoute[] {
  return routes.filter((r): r is DocumentedRoute => r.permission !== 'operator' && !faultRoutes.includes(r));
}
