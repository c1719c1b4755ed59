import t from 'tap';
import { parseFilter } from '../../../src/core/filter/index.js';
import { planMetrics, type MetricsRequest } from '../../../src/core/metrics/plan.js';
import { ROLLUP_DIMENSIONS, rollupsAnswer, wholeHours } from '../../../src/core/metrics/rollups.js';

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

t.test('whole hours of a window', async (t) => {
  const at = (iso: string) => Date.parse(iso);
  t.same(wholeHours(at('2026-11-24T10:17:00Z'), at('2026-11-24T13:05:00Z')), {
    fromMs: at('2026-11-24T11:00:00Z'),
    toMs: at('2026-11-24T13:00:00Z'),
  });
  t.same(
    wholeHours(at('2026-11-24T10:00:00Z'), at('2026-11-24T12:00:00Z')),
    { fromMs: at('2026-11-24T10:00:00Z'), toMs: at('2026-11-24T12:00:00Z') },
    'aligned ends are whole hours',
  );
  const none = wholeHours(at('2026-11-24T10:17:00Z'), at('2026-11-24T10:59:00Z'));
  t.equal(none.toMs - none.fromMs, 0, 'inside one hour: none');
  const crossing = wholeHours(at('2026-11-24T10:17:00Z'), at('2026-11-24T11:20:00Z'));
  t.equal(crossing.toMs - crossing.fromMs, 0, 'across one boundary: none');
});
