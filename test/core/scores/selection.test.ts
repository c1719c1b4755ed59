import t from 'tap';
import { ApiError } from '../../../src/core/errors.js';
import { planAggregation, planList } from '../../../src/core/scores/selection.js';

const DAY = 86_400_000;
const now = Date.parse('2026-11-21T12:00:00Z');

function code(fn: () => unknown): { code: string; fields: unknown } {
  try {
    fn();
  } catch (e) {
    if (e instanceof ApiError) return { code: e.code, fields: e.fields };
    throw e;
  }
  throw new Error('expected a refusal');
}

t.test('a list has no default window and optional bounds', async (t) => {
  t.same(planList({}), { equals: [], fromMs: null, toMs: null });
  t.same(planList({ start_date: '2020-01-01T00:00:00Z' }), {
    equals: [],
    fromMs: Date.parse('2020-01-01T00:00:00Z'),
    toMs: null,
  });
  t.same(planList({ end_date: '2026-01-01T00:00:00Z' }), {
    equals: [],
    fromMs: null,
    toMs: Date.parse('2026-01-01T00:00:00Z'),
  });
  t.same(
    planList({ start_date: '2020-01-01T00:00:00Z', end_date: '2026-01-01T00:00:00Z' }).toMs,
    Date.parse('2026-01-01T00:00:00Z'),
    'longer than 90 days is fine for a list',
  );
  t.equal(
    code(() => planList({ start_date: '2026-01-01T00:00:00Z', end_date: '2026-01-01T00:00:00Z' })).code,
    'invalid_time_window',
  );
  t.same(
    planList({ from: '2020-01-01T00:00:00Z', to: '2026-01-01T00:00:00Z' }),
    planList({ start_date: '2020-01-01T00:00:00Z', end_date: '2026-01-01T00:00:00Z' }),
    'from and to are the same bounds',
  );
  t.throws(() => planList({ from: '2026-01-02T00:00:00Z', to: '2026-01-01T00:00:00Z' }), /from must be before to/);
  t.equal(
    code(() => planList({ start_date: '2026-01-01T00:00:00Z', from: '2025-01-01T00:00:00Z' })).code,
    'invalid_time_window',
  );
});

t.test('equalities, canonicalised', async (t) => {
  t.same(
    planList({
      name: 'q',
      source: 'EVAL',
      data_type: 'boolean',
      session_id: 'S',
      trace_id: 'AB'.repeat(16),
      resource_id: 'CD'.repeat(8),
      user_id: 'U',
    }).equals,
    [
      { column: 'name', value: 'q' },
      { column: 'source', value: 'eval' },
      { column: 'data_type', value: 'BOOLEAN' },
      { column: 'session_id', value: 'S' },
      { column: 'trace_id', value: 'ab'.repeat(16) },
      { column: 'resource_id', value: 'cd'.repeat(8) },
      { column: 'user_id', value: 'U' },
    ],
  );
  t.same(
    code(() => planList({ source: 'human' })),
    {
      code: 'invalid_query_parameters',
      fields: { details: { source: 'must be one of api, annotation, eval, sdk, got "human"' } },
    },
  );
  t.same(
    code(() => planList({ data_type: 'text' })),
    {
      code: 'invalid_query_parameters',
      fields: { details: { data_type: 'must be one of NUMERIC, BOOLEAN, CATEGORICAL, got "text"' } },
    },
  );
});

t.test('an aggregation follows the search window rules', async (t) => {
  t.same(planAggregation({}, now), { equals: [], fromMs: now - 7 * DAY, toMs: now, groupBy: 'name' });
  t.same(
    planAggregation(
      { name: 'q', source: 'api', start_date: '2026-11-01T00:00:00Z', end_date: '2026-11-02T00:00:00Z' },
      now,
    ),
    {
      equals: [
        { column: 'name', value: 'q' },
        { column: 'source', value: 'api' },
      ],
      fromMs: Date.parse('2026-11-01T00:00:00Z'),
      toMs: Date.parse('2026-11-02T00:00:00Z'),
      groupBy: 'name',
    },
  );
  t.equal(
    code(() => planAggregation({ start_date: '2026-01-01T00:00:00Z', end_date: '2026-11-01T00:00:00Z' }, now)).code,
    'invalid_time_window',
    'at most 90 days',
  );
});
