import t from 'tap';
import { parseFilter } from '../../../src/core/filter/index.js';
import { planMetrics, type MetricsRequest } from '../../../src/core/metrics/plan.js';
import { ROLLUP_DIMENSIONS, rollupHours, rollupsAnswer } from '../../../src/core/metrics/rollups.js';

const HOUR = 3_600_000;
const to = Date.parse('2026-11-24T12:30:00Z');
const month = { fromMs: to - 30 * 24 * HOUR, toMs: to };
const answers = (q: MetricsRequest, filter = '', window = month) =>
  rollupsAnswer(planMetrics(q, window), parseFilter(filter, 'spans'));

t.test('rollups answer spans bucketed by whole hours, grouped and filtered by what they keep', async (t) => {
  t.ok(answers({ view: 'spans', bucket: 'day', measures: 'cost,total_tokens', group_by: 'model' }));
  t.ok(answers({ view: 'spans', bucket: 'hour', measures: 'latency_p95' }, 'type = GENERATION'));
  t.ok(answers({ view: 'spans', bucket: 'week', group_by: 'environment,span_kind' }));
  t.ok(
    answers({ view: 'spans', bucket: 'day' }, 'model = "gpt-4o" and (status = ERROR or name starts with "chat")'),
    'OR-groups of kept fields',
  );
  for (const d of ROLLUP_DIMENSIONS) t.ok(answers({ view: 'spans', bucket: 'day', group_by: d }), d);
});

t.test('everything else is read from the spans', async (t) => {
  t.notOk(answers({ view: 'traces', bucket: 'day' }), 'trace summaries');
  t.notOk(answers({ view: 'scores', bucket: 'day' }), 'scores');
  t.notOk(
    answers({ view: 'spans', bucket: 'minute' }, '', { fromMs: to - 6 * HOUR, toMs: to }),
    'minutes are not whole hours',
  );
  t.notOk(answers({ view: 'spans', bucket: 'day', group_by: 'user_id' }), 'a grouping rollups do not keep');
  t.notOk(answers({ view: 'spans', bucket: 'day', group_by: 'model,session_id' }), 'one of two groupings');
  t.notOk(answers({ view: 'spans', bucket: 'day' }, 'cost > 0.5'), 'a measure as a filter');
  t.notOk(
    answers({ view: 'spans', bucket: 'day' }, 'model = x and (status = ERROR or tokens > 3)'),
    'inside an OR-group',
  );
  t.notOk(answers({ view: 'spans', bucket: 'day' }, 'metadata.customer = acme'), 'metadata');
});

t.test("a file's rollup hours in a window", async (t) => {
  const ns = (iso: string) => BigInt(Date.parse(iso)) * 1_000_000n;
  const hours = (min: string, max: string, from: string, to: string) => {
    const h = rollupHours({ minStartNs: ns(min), maxStartNs: ns(max) }, ns(from), ns(to));
    return h.fromNs < h.toNs
      ? [new Date(Number(h.fromNs / 1_000_000n)).toISOString(), new Date(Number(h.toNs / 1_000_000n)).toISOString()]
      : [];
  };
  const window = ['2026-11-24T10:17:00Z', '2026-11-24T13:05:00Z'] as const;
  t.same(
    hours('2026-11-24T09:00:00Z', '2026-11-24T14:00:00Z', ...window),
    ['2026-11-24T11:00:00.000Z', '2026-11-24T13:00:00.000Z'],
    'a file over the whole window: its whole hours',
  );
  t.same(
    hours('2026-11-24T10:20:00Z', '2026-11-24T13:01:00Z', ...window),
    ['2026-11-24T10:00:00.000Z', '2026-11-24T14:00:00.000Z'],
    'a file inside the window: its partial hours too',
  );
  t.same(
    hours('2026-11-24T10:20:00Z', '2026-11-24T14:00:00Z', ...window),
    ['2026-11-24T10:00:00.000Z', '2026-11-24T13:00:00.000Z'],
    'inside at the start only',
  );
  t.same(
    hours('2026-11-24T10:20:00Z', '2026-11-24T10:40:00Z', '2026-11-24T10:17:00Z', '2026-11-24T10:50:00Z'),
    ['2026-11-24T10:00:00.000Z', '2026-11-24T11:00:00.000Z'],
    'a window inside one hour, the file inside it',
  );
  t.same(
    hours('2026-11-24T10:10:00Z', '2026-11-24T10:40:00Z', '2026-11-24T10:17:00Z', '2026-11-24T10:50:00Z'),
    [],
    'a window inside one hour, the file across its start: none',
  );
  t.same(
    hours('2026-11-24T09:00:00Z', '2026-11-24T12:00:00Z', '2026-11-24T10:17:00Z', '2026-11-24T11:20:00Z'),
    [],
    'a window across one boundary, the file across both ends: none',
  );
  t.same(
    hours('2026-11-24T09:00:00Z', '2026-11-24T12:00:00Z', '2026-11-24T10:00:00Z', '2026-11-24T12:00:00Z'),
    ['2026-11-24T10:00:00.000Z', '2026-11-24T12:00:00.000Z'],
    'aligned ends are whole hours',
  );
});
