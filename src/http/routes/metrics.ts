/**
 * `GET /v1/metrics` (metrics.read, cloud only): time-bucketed measures over the app's traces,
 * spans or scores. The plan is checked in core/metrics, the caller's scope and environment come
 * first as in the lists, and the store answers with one statement.
 */
import { validateMetricsQuery } from '../../contract/metrics.js';
import { planMetrics } from '../../core/metrics/plan.js';
import { parseFilter } from '../../core/filter/index.js';
import { resolveWindow } from '../../core/window.js';
import type { MetricsAnswer } from '../../contract/responses.js';
import { json } from '../reply.js';
import { route } from '../route.js';
import { checkEnvironmentNames, narrowedScope } from './search.js';
import { answer } from '../../openapi/note.js';

export const metricsRoutes = [
  route({
    method: 'GET',
    path: '/v1/metrics',
    permission: 'metrics.read',
    surface: 'cloud',
    validate: { query: validateMetricsQuery },
    note: {
      tag: 'Metrics',
      summary: 'Measures over time',
      description:
        "The app's traces (default), spans or scores in the window (`from`/`to`: 7 days by default, at most 90), in UTC buckets (weeks from Monday; default the finest of minute, hour, day, week giving at most 200 buckets; at most 2500), with the `measures` asked for (default `count`), grouped by up to two dimensions (the `group_limit` largest groups over the window are kept). Traces offer `count`, `cost`, `total_tokens`, `latency_mean`, `latency_p50`…`latency_p99`, `error_rate`, by `name`, `environment`, `user_id`, `session_id`; spans add `input_tokens` and `output_tokens`, and `model`, `prompt_name`, `service_name`, `span_kind`; scores offer `count` and `score_avg` by `score_name`, `environment`, `user_id`, `session_id`. `filter` is the view's string filter. Rows are sparse: a bucket without rows is absent (`meta.buckets` says how many there are), and a missing group value is null.",
      query: 'MetricsQuery',
      answers: [
        answer(200, 'MetricsAnswer', 'One row per bucket and group.', {
          byModel: {
            data: [
              { bucket: '2026-11-20T09:00:00.000Z', model: 'gpt-4o', count: 120, cost: 1.84, latency_p95: 2140 },
              { bucket: '2026-11-20T09:00:00.000Z', model: 'gpt-4o-mini', count: 310, cost: 0.22, latency_p95: 960 },
              { bucket: '2026-11-20T10:00:00.000Z', model: 'gpt-4o', count: 98, cost: 1.51, latency_p95: 2310 },
            ],
            meta: {
              view: 'spans',
              bucket: 'hour',
              from: '2026-11-20T09:00:00.000Z',
              to: '2026-11-20T11:00:00.000Z',
              buckets: 2,
              measures: ['count', 'cost', 'latency_p95'],
              group_by: ['model'],
              group_limit: 10,
              groups: 2,
              groups_omitted: 0,
            },
          },
        }),
      ],
      errors: [
        {
          status: 400,
          when: '`invalid_query_parameters` with `details`: `measures` or `group_by` naming a measure or dimension the view does not offer (naming the views that do), more than two dimensions, a `bucket` giving more than 2500 buckets, or an `environment` the app lacks; `invalid_filter`; `invalid_time_window`.',
        },
        { status: 403, when: '`forbidden`: the key lacks `metrics.read`, or names an environment other than its own.' },
      ],
    },
    async handler({ query: q }, ctx) {
      const window = resolveWindow(q, Date.now());
      const plan = planMetrics(q, window);
      const ast = q.filter === undefined ? [] : parseFilter(q.filter, plan.view);
      const [scope] = await Promise.all([
        narrowedScope(ctx, q.environment, 'query'),
        plan.view === 'scores' ? undefined : checkEnvironmentNames(ctx, ast),
      ]);
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
