/**
 * Health (unauthenticated). `/health` is liveness: the process answers. The `/v1/health/*` reports
 * run real checks in the store thread — a DuckDB query, a durable write in the data directory, free
 * disk — and answer 503 with the same body when any dependency is unhealthy.
 */
import type { DependencyCheck, StoreTasks } from '../../pool/tasks.js';
import { json } from '../reply.js';
import { route, type Context } from '../route.js';

/** A health check that has not answered by then counts as unhealthy. */
const CHECK_TIMEOUT_MS = 5_000;

type Checks = StoreTasks['health']['in']['checks'];

export const healthRoutes = [
  route({
    method: 'GET',
    path: '/health',
    permission: 'none',
    handler: (_input, ctx) =>
      json({
        status: 'healthy',
        version: ctx.services.version,
        mode: ctx.config.mode,
        uptime_s: Math.round((Date.now() - ctx.services.startedAt.getTime()) / 1000),
      }),
  }),
  route({
    method: 'GET',
    path: '/v1/health/ingestion',
    permission: 'none',
    handler: (_input, ctx) => report(ctx, 'ingestion', ['duckdb', 'data_dir', 'disk']),
  }),
  route({
    method: 'GET',
    path: '/v1/health/files',
    permission: 'none',
    handler: (_input, ctx) => report(ctx, 'files', ['data_dir', 'disk', 'segments']),
  }),
];

async function report(ctx: Context, component: string, checks: Checks) {
  const started = performance.now();
  let dependencies: DependencyCheck[];
  try {
    dependencies = await withTimeout(ctx.services.store.run('health', { checks }), CHECK_TIMEOUT_MS);
    dependencies.push({ name: 'worker_pool', status: 'healthy', latencyMs: round(performance.now() - started), detail: { queued: ctx.services.store.queueSize } });
  } catch (e) {
    dependencies = [{ name: 'worker_pool', status: 'unhealthy', latencyMs: round(performance.now() - started), error: (e as Error).message }];
  }
  const healthy = dependencies.every((d) => d.status === 'healthy');
  return json(
    { component, status: healthy ? 'healthy' : 'unhealthy', timestamp: new Date().toISOString(), dependencies },
    healthy ? 200 : 503,
  );
}

function withTimeout<T>(p: Promise<T>, ms: number): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`no answer within ${ms} ms`)), ms);
  });
  return Promise.race([p, timeout]).finally(() => clearTimeout(timer));
}

const round = (ms: number): number => Math.round(ms * 1000) / 1000;
