/**
 * Health (unauthenticated). The `/v1/health/*` reports run real checks in the store thread — a
 * DuckDB query, a durable write in the data directory, free disk — and answer 503 with the same body
 * when any dependency is unhealthy. `/health`, what supervisors and container health checks poll,
 * answers 503 too when the ingestion checks (at most a few seconds old) fail or the store died.
 */
import type { HealthReport, Liveness } from '../../contract/responses.js';
import type { TaskRunner } from '../../pool/taskPool.js';
import type { StoreTasks } from '../../store/storeTasks.js';
import type { DependencyCheck } from '../../store/health.js';
import { json } from '../reply.js';
import { route, type Context } from '../route.js';
import { CREATED } from '../../openapi/examples.js';
import { answer } from '../../openapi/note.js';

/** A health check that has not answered by then counts as unhealthy. */
const CHECK_TIMEOUT_MS = 5_000;

type Checks = StoreTasks['health']['in']['checks'];

export const healthRoutes = [
  route({
    method: 'GET',
    path: '/health',
    permission: 'none',
    note: {
      tag: 'Health and system',
      summary: 'Liveness of the server',
      description:
        'What supervisors poll: 503, with the failing checks, when ingestion cannot work (disk, data directory, database).',
      answers: [
        answer(200, 'Liveness', 'Healthy.', {
          healthy: { status: 'healthy', version: '0.1.0', mode: 'cloud', uptime_s: 3600 },
        }),
        answer(503, 'Liveness', 'Unhealthy: `dependencies` lists the failing checks.'),
      ],
    },
    async handler(_input, ctx) {
      const failing = await ctx.services.liveness.failing();
      return json(
        {
          status: failing.length === 0 ? 'healthy' : 'unhealthy',
          version: ctx.services.version,
          mode: ctx.config.mode,
          uptime_s: Math.round((Date.now() - ctx.services.startedAt.getTime()) / 1000),
          ...(failing.length > 0 ? { dependencies: failing } : {}),
        } satisfies Liveness,
        failing.length === 0 ? 200 : 503,
      );
    },
  }),
  route({
    method: 'GET',
    path: '/v1/health/ingestion',
    permission: 'none',
    probe: true,
    note: {
      tag: 'Health and system',
      summary: 'Health of the ingestion path',
      description: 'A database query, a durable write in the data directory, free disk and the worker pool.',
      answers: [
        answer(200, 'HealthReport', 'Every dependency is healthy.', {
          healthy: {
            component: 'ingestion',
            status: 'healthy',
            timestamp: CREATED,
            dependencies: [
              { name: 'duckdb', status: 'healthy', latencyMs: 0.8 },
              { name: 'data_dir', status: 'healthy', latencyMs: 2.1 },
              { name: 'disk', status: 'healthy', latencyMs: 0.1, detail: { free_bytes: 52613349376 } },
              { name: 'worker_pool', status: 'healthy', latencyMs: 3.4, detail: { queued: 0 } },
            ],
          },
        }),
        answer(503, 'HealthReport', 'A dependency is unhealthy (same body).'),
      ],
    },
    handler: (_input, ctx) => report(ctx, 'ingestion', INGESTION_CHECKS),
  }),
  route({
    method: 'GET',
    path: '/v1/health/files',
    permission: 'none',
    probe: true,
    note: {
      tag: 'Health and system',
      summary: 'Health of the files',
      description:
        'The data directory, free disk, the segment and blob directories, and the quarantine (unhealthy while it holds files).',
      answers: [
        answer(200, 'HealthReport', 'Every dependency is healthy.'),
        answer(503, 'HealthReport', 'A dependency is unhealthy (same body).'),
      ],
    },
    handler: (_input, ctx) => report(ctx, 'files', ['data_dir', 'disk', 'segments', 'quarantine']),
  }),
];

/** The ingestion checks, as `/v1/health/ingestion` and `/health` run them. */
export const INGESTION_CHECKS: Checks = ['duckdb', 'data_dir', 'disk'];

/** Runs `checks` in the store thread, plus the worker pool's own state; never throws. */
export async function runChecks(
  store: TaskRunner<StoreTasks>,
  checks: Checks,
  fatal: string | null,
): Promise<DependencyCheck[]> {
  if (fatal) return [{ name: 'duckdb', status: 'unhealthy', latencyMs: 0, error: fatal }];
  const started = performance.now();
  try {
    const dependencies = await withTimeout(store.run('health', { checks }), CHECK_TIMEOUT_MS);
    dependencies.push({
      name: 'worker_pool',
      status: 'healthy',
      latencyMs: round(performance.now() - started),
      detail: { queued: store.queueSize },
    });
    return dependencies;
  } catch (e) {
    return [
      {
        name: 'worker_pool',
        status: 'unhealthy',
        latencyMs: round(performance.now() - started),
        error: (e as Error).message,
      },
    ];
  }
}

async function report(ctx: Context, component: string, checks: Checks) {
  const dependencies = await runChecks(ctx.services.store, checks, ctx.services.liveness.fatal);
  const healthy = dependencies.every((d) => d.status === 'healthy');
  return json(
    {
      component,
      status: healthy ? 'healthy' : 'unhealthy',
      timestamp: new Date().toISOString(),
      dependencies,
    } satisfies HealthReport,
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
