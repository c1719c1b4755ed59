/**
 * The server's route table in one place, so that what the server serves and what the isolation
 * matrix (test/reliability/isolation.alone.test.ts) walks are the same list: a route added here is a
 * route the matrix must cover. The operator routes, served only with an operator token, are
 * outside it (no tenant credential reaches them): test/http/operator.alone.test.ts walks them instead.
 * The API reference describes the table of a server with the operator API and the API port's
 * `GET /metrics` on (`documentedRoutes`).
 */
import type { Config } from '../config.js';
import type { AnyRoute } from './route.js';
import { adminRoutes } from './routes/admin.js';
import { agentRoutes } from './routes/agents.js';
import { apiKeyRoutes } from './routes/apiKeys.js';
import { appRoutes } from './routes/apps.js';
import { blobRoutes } from './routes/blobs.js';
import { credentialRoutes } from './routes/credentials.js';
import { devRoutes } from './routes/dev.js';
import { evalRoutes } from './routes/evals.js';
import { experimentRoutes } from './routes/experiments.js';
import { faultRoutes } from './routes/faults.js';
import { gitRoutes } from './routes/git.js';
import { gitSetupRoutes } from './routes/gitSetup.js';
import { healthRoutes } from './routes/health.js';
import { ingestRoutes } from './routes/ingest.js';
import { langfuseRoutes } from './routes/langfuse.js';
import { operatorRoutes } from './routes/operator.js';
import { referenceRoutes } from './routes/reference.js';
import { promptRoutes } from './routes/prompts.js';
import { metricsRoutes } from './routes/metrics.js';
import { prometheusRoutes } from './routes/prometheus.js';
import { scoreRoutes } from './routes/scores.js';
import { searchRoutes } from './routes/search.js';
import { systemRoutes } from './routes/system.js';
import { templateRoutes } from './routes/templates.js';
import { traceRoutes } from './routes/traces.js';
import { uiRoutes } from './routes/ui.js';
import { workerRoutes } from './routes/workers.js';

/**
 * Every route of a server started with `config`; `secret` hashes the keys that API key and operator
 * routes mint. The operator API exists only when an operator token is configured.
 */
export function allRoutes(
  secret: Buffer,
  config: Pick<Config, 'faultInjection'> & Partial<Pick<Config, 'operatorToken' | 'metricsListen'>>,
): AnyRoute[] {
  const routes: AnyRoute[] = [];
  // Capabilities are derived from the finished table, hence the late-bound reference.
  routes.push(
    ...healthRoutes,
    ...systemRoutes(() => routes),
    ...referenceRoutes(documentedRoutes),
    ...apiKeyRoutes(secret),
    ...devRoutes,
    ...ingestRoutes,
    ...traceRoutes,
    ...appRoutes,
    ...blobRoutes,
    ...scoreRoutes,
    ...searchRoutes,
    ...adminRoutes,
    ...agentRoutes,
    ...metricsRoutes,
    ...uiRoutes,
    ...credentialRoutes,
  );
  if (config.operatorToken !== undefined) routes.push(...operatorRoutes(secret));
  routes.push(...evalRoutes(secret), ...experimentRoutes);
  routes.push(...gitRoutes(secret), ...gitSetupRoutes, ...promptRoutes, ...templateRoutes);
  routes.push(...workerRoutes(secret), ...langfuseRoutes);
  if (config.faultInjection) routes.push(...faultRoutes);
  if (config.metricsListen?.kind === 'api') routes.push(...prometheusRoutes);
  return routes;
}

/**
 * Stands for the operator token in the table the reference is built from: its routes are built
 * only when a token is configured, and the reference describes them whether or not this server has one.
 */
const DOCUMENTED_OPERATOR_TOKEN = 'the reference describes the operator API';

/**
 * The routes the API reference describes: those of a server with the operator API on, serving
 * `GET /metrics` on the API port (`--metrics-listen api`), and without the test-only fault routes,
 * whatever the running server has. The document is then the same on every server (and
 * docs/openapi.json); only shapes are read, so the placeholder secret signs nothing.
 */
export function documentedRoutes(): AnyRoute[] {
  return allRoutes(Buffer.alloc(32), {
    faultInjection: false,
    operatorToken: DOCUMENTED_OPERATOR_TOKEN,
    metricsListen: { kind: 'api' },
  });
}
