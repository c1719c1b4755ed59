/**
 * The notes on metrics: `GET /v1/metrics` (time-bucketed measures of the app's traces, spans and
 * scores) and the Prometheus exposition of the server's own operations metrics on the API port.
 * Kept apart from operations.ts for size.
 */
import type { OperationNote } from './note.js';
import { answer } from './note.js';

export const METRICS_TAG = 'Metrics';

export const METRICS_OPERATIONS: Readonly<Record<string, OperationNote>> = {
  'GET /v1/metrics': {
    tag: METRICS_TAG,
    summary: 'Measures over time',
    description:
      'The app\'s traces (default), spans or scores in the window (`from`/`to`: 7 days by default, at most 90), in UTC buckets (weeks from Monday; default the finest of minute, hour, day, week giving at most 200 buckets; at most 2500), with the `measures` asked for (default `count`), grouped by up to two dimensions (the `group_limit` largest groups over the window are kept). Traces offer `count`, `cost`, `total_tokens`, `latency_mean`, `latency_p50`…`latency_p99`, `error_rate`, by `name`, `environment`, `user_id`, `session_id`; spans add `input_tokens` and `output_tokens`, and `model`, `prompt_name`, `service_name`, `span_kind`; scores offer `count` and `score_avg` by `score_name`, `environment`, `user_id`, `session_id`. `filter` is the view\'s string filter. Rows are sparse: a bucket without rows is absent (`meta.buckets` says how many there are), and a missing group value is null.',
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
};
