/**
 * `GET /v1/metrics` (metrics.read, cloud only): time-bucketed measures over the app's traces,
 * spans or scores. The plan is checked in core/metrics, the caller's scope and environment come
 * first as in the lists, and the store answers with one statement.
 */
import { validateMetricsQuery, type MetricsQuery } from '../../contract/metrics.js';
import { planMetrics } from '../../core/metrics/plan.js';
import { parseFilter } from '../../core/filter/index.js';
import { resolveWindow } from '../../core/window.js';
import type { MetricsAnswer } from '../../contract/responses.js';
import { json } from '../reply.js';
import { route } from '../route.js';
import { checkEnvironmentNames, narrowedScope } from './search.js';

export const metricsRoutes = [
  route<Record<string, string>, MetricsQuery>({
    method: 'GET',
    path: '/v1/metrics',
    permission: 'metrics.read',
    surface: 'cloud',
    validate: { query: validateMetricsQuery },
    async handler({ query: q }, ctx) {
      const window = resolveWindow(q.from, q.to, Date.now(), { start: 'from', end: 'to' });
      const plan = planMetrics(q, window);
      const ast = q.filter === undefined ? [] : parseFilter(q.filter, plan.view);
      const [scope] = await Promise.all([narrowedScope(ctx, q.environment, 'query'), plan.view === 'scores' ? undefined : checkEnvironmentNames(ctx, ast)]);
      const answer = await ctx.services.store.run('queryMetrics', { plan, scope, filter: ast });
      return json({
        data: answer.rows,
        meta: {
          view: plan.view,
          bucket: plan.bucket,
          from: new Date(plan.fromMs).toISOString(),
          to: new Date(plan.toMs).toISOString(),
          buckets: plan.buckets,
          measures: plan.measures,
          group_by: plan.groupBy,
          group_limit: plan.groupLimit,
          groups: answer.groups,
          groups_omitted: Math.max(0, answer.groups - plan.groupLimit),
        },
      } satisfies MetricsAnswer);
    },
  }),
];
