/**
 * The server's route table in one place, so that what the server serves and what the isolation
 * matrix (test/reliability/isolation.test.ts) walks are the same list: a route added here is a
 * route the matrix must cover.
 */
import type { Config } from '../config.js';
import type { AnyRoute } from './route.js';
import { adminRoutes } from './routes/admin.js';
import { apiKeyRoutes } from './routes/apiKeys.js';
import { appRoutes } from './routes/apps.js';
import { blobRoutes } from './routes/blobs.js';
import { devRoutes } from './routes/dev.js';
import { faultRoutes } from './routes/faults.js';
import { healthRoutes } from './routes/health.js';
import { ingestRoutes } from './routes/ingest.js';
import { metricsRoutes } from './routes/metrics.js';
import { prometheusRoutes } from './routes/prometheus.js';
import { scoreRoutes } from './routes/scores.js';
import { searchRoutes } from './routes/search.js';
import { systemRoutes } from './routes/system.js';
import { traceRoutes } from './routes/traces.js';
import { uiRoutes } from './routes/ui.js';

/** Every route of a server started with `config`; `secret` hashes the keys that API key routes mint. */
export function allRoutes(secret: Buffer, config: Pick<Config, 'faultInjection'> & Partial<Pick<Config, 'metricsListen'>>): AnyRoute[] {
  const routes: AnyRoute[] = [];
  // Capabilities are derived from the finished table, hence the late-bound reference.
  routes.push(...healthRoutes, ...systemRoutes(() => routes), ...apiKeyRoutes(secret), ...devRoutes, ...ingestRoutes, ...traceRoutes, ...appRoutes, ...blobRoutes, ...scoreRoutes, ...searchRoutes, ...adminRoutes, ...metricsRoutes, ...uiRoutes);
  if (config.faultInjection) routes.push(...faultRoutes);
  if (config.metricsListen?.kind === 'api') routes.push(...prometheusRoutes);
  return routes;
}
