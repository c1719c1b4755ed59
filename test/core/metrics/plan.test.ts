import t from 'tap';
import { ApiError } from '../../../src/core/errors.js';
import {
  AUTO_BUCKETS,
  BUCKETS,
  bucketIndex,
  bucketsIn,
  bucketStartMs,
  GROUP_LIMIT,
  MAX_BUCKETS,
  MEASURES,
  planMetrics,
  VIEW_DIMENSIONS,
  VIEW_MEASURES,
  VIEWS,
  type MetricsRequest,
} from '../../../src/core/metrics/plan.js';

const HOUR = 3_600_000;
const DAY = 24 * HOUR;
const to = Date.parse('2026-11-24T12:30:00Z');
const day = { fromMs: to - DAY, toMs: to };

function refusal(q: MetricsRequest, window = day): Record<string, string> {
  try {
    planMetrics(q, window);
  } catch (e) {
    if (e instanceof ApiError && e.code === 'invalid_query_parameters')
      return e.fields.details as Record<string, string>;
    throw e;
  }
  throw new Error('expected a refusal');
}

t.test('defaults: traces, count, no grouping, the finest bucket within the auto limit', async (t) => {
  const plan = planMetrics({}, day);
  t.same(plan, {
    view: 'traces',
    bucket: 'hour',
    bucketMs: HOUR,
    originMs: 0,
    firstBucket: Math.floor((to - DAY) / HOUR),
    buckets: 25,
    fromMs: to - DAY,
    toMs: to,
    measures: ['count'],
    groupBy: [],
    groupLimit: GROUP_LIMIT.default,
  });
  t.equal(planMetrics({}, { fromMs: to - HOUR, toMs: to }).bucket, 'minute');
  t.equal(planMetrics({}, { fromMs: to - 30 * DAY, toMs: to }).bucket, 'day');
  t.equal(planMetrics({}, { fromMs: to - 300 * DAY, toMs: to }).bucket, 'week', '300 days is 43 weeks');
  t.equal(
    planMetrics({}, { fromMs: to - 2000 * 7 * DAY, toMs: to }).bucket,
    'week',
    'past every auto limit, still weeks (the window rules stop it earlier)',
  );
  t.ok(AUTO_BUCKETS < MAX_BUCKETS);
});

t.test('lists: trimmed, deduplicated, in the order given', async (t) => {
  const plan = planMetrics(
    {
      view: 'spans',
      measures: ' cost, count,cost ,,latency_p99',
      group_by: 'model, environment',
      group_limit: 3,
      bucket: 'day',
    },
    day,
  );
  t.same(plan.measures, ['cost', 'count', 'latency_p99']);
  t.same(plan.groupBy, ['model', 'environment']);
  t.equal(plan.groupLimit, 3);
  t.equal(plan.buckets, 2, 'a day from 12:30 touches two UTC days');
});

t.test('what each view offers', async (t) => {
  for (const view of VIEWS) {
    const plan = planMetrics(
      { view, measures: VIEW_MEASURES[view].join(','), group_by: VIEW_DIMENSIONS[view].slice(0, 2).join(',') },
      day,
    );
    t.same(plan.measures, VIEW_MEASURES[view], view);
  }
  t.ok(
    MEASURES.every((m) => VIEWS.some((v) => VIEW_MEASURES[v].includes(m))),
    'every measure is offered by some view',
  );
});

t.test('refusals name the parameter and what the view offers', async (t) => {
  t.match(refusal({ measures: 'count,nope' }), { measures: /unknown measure "nope"; view traces offers count, cost/ });
  t.match(refusal({ measures: 'input_tokens' }), {
    measures: /"input_tokens" is not offered by view traces \(it is by spans\)/,
  });
  t.match(refusal({ view: 'scores', measures: 'latency_p50' }), { measures: /it is by traces, spans/ });
  t.match(refusal({ measures: ' , ' }), { measures: /name at least one measure/ });
  t.match(refusal({ group_by: 'nope' }), { group_by: /unknown dimension "nope"/ });
  t.match(refusal({ group_by: 'model' }), { group_by: /not offered by view traces \(it is by spans\)/ });
  t.match(refusal({ view: 'spans', group_by: 'model,name,span_kind' }), { group_by: /at most 2 dimensions, got 3/ });
  t.match(refusal({ bucket: 'minute' }, { fromMs: to - 3 * DAY, toMs: to }), {
    bucket: /minute buckets over this window are 4320; at most 2500/,
  });
  t.same(
    Object.keys(refusal({ measures: 'x', group_by: 'y', bucket: 'minute' }, { fromMs: to - 3 * DAY, toMs: to })).sort(),
    ['bucket', 'group_by', 'measures'],
    'every mistake at once',
  );
});

t.test('buckets are aligned in UTC; weeks start on Monday', async (t) => {
  const monday = Date.parse('2026-11-23T00:00:00Z');
  t.equal(
    bucketStartMs('week', bucketIndex('week', Date.parse('2026-11-29T23:59:59Z'))),
    monday,
    'Sunday belongs to the week of the Monday before',
  );
  t.equal(bucketStartMs('week', bucketIndex('week', monday)), monday);
  t.equal(bucketStartMs('day', bucketIndex('day', to)), Date.parse('2026-11-24T00:00:00Z'));
  t.equal(bucketStartMs('hour', bucketIndex('hour', to)), Date.parse('2026-11-24T12:00:00Z'));
  t.equal(bucketStartMs('minute', bucketIndex('minute', to + 59_999)), to);
  for (const b of BUCKETS) t.equal(bucketsIn(b, { fromMs: to, toMs: to + 1 }), 1, `one instant is one ${b}`);
  t.equal(
    bucketsIn('hour', { fromMs: Date.parse('2026-11-24T12:00:00Z'), toMs: Date.parse('2026-11-24T14:00:00Z') }),
    2,
    'the end is exclusive',
  );
});
