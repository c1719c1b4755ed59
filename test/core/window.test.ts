import t, { type Test } from 'tap';
import { ApiError } from '../../src/core/errors.js';
import { DEFAULT_WINDOW_DAYS, MAX_WINDOW_DAYS, resolveWindow, type WindowBounds } from '../../src/core/window.js';

const DAY = 86_400_000;
const now = Date.parse('2026-11-21T12:00:00Z');

/** The refusal `resolveWindow(q)` throws (the test fails when it throws none). */
function refusal(t: Test, q: WindowBounds): ApiError {
  try {
    resolveWindow(q, now);
  } catch (e) {
    t.ok(e instanceof ApiError);
    t.equal((e as ApiError).code, 'invalid_time_window');
    return e as ApiError;
  }
  t.fail('expected a refusal');
  return new ApiError('invalid_time_window');
}

t.test('defaults: the last 7 days up to now', async (t) => {
  t.same(resolveWindow({}, now), { fromMs: now - DEFAULT_WINDOW_DAYS * DAY, toMs: now });
  t.same(
    resolveWindow({ end_date: '2026-11-01T00:00:00Z' }, now),
    { fromMs: Date.parse('2026-10-25T00:00:00Z'), toMs: Date.parse('2026-11-01T00:00:00Z') },
    'a week before the end',
  );
  t.same(resolveWindow({ start_date: '2026-11-20T00:00:00Z' }, now), {
    fromMs: Date.parse('2026-11-20T00:00:00Z'),
    toMs: now,
  });
});

t.test('limits', async (t) => {
  const ninety = resolveWindow({ start_date: '2026-08-23T12:00:00Z', end_date: '2026-11-21T12:00:00Z' }, now);
  t.same(ninety.toMs - ninety.fromMs, MAX_WINDOW_DAYS * DAY, 'exactly 90 days is allowed');
  const refuse = (q: WindowBounds, pattern: RegExp) => t.match(refusal(t, q).message, pattern);
  refuse({ start_date: '2026-08-23T11:59:59Z', end_date: '2026-11-21T12:00:00Z' }, /at most 90 days/);
  refuse({ start_date: '2026-11-21T12:00:00Z', end_date: '2026-11-21T12:00:00Z' }, /before end_date/);
  refuse({ start_date: '2026-11-22T00:00:00Z' }, /start_date must be before end_date/);
  refuse({ end_date: '2026-11-01T00:00:00Z', start_date: '2026-11-02T00:00:00Z' }, /before end_date/);
  refuse({ start_date: 'yesterday' }, /start_date is not an ISO 8601/);
  refuse({ end_date: 'soon' }, /end_date is not an ISO 8601/);
});

t.test('from and to are the same bounds, and the refusals use the names given', async (t) => {
  t.same(resolveWindow({ from: '2026-11-20T00:00:00Z', to: '2026-11-21T00:00:00Z' }, now), {
    fromMs: Date.parse('2026-11-20T00:00:00Z'),
    toMs: Date.parse('2026-11-21T00:00:00Z'),
  });
  t.same(
    resolveWindow({ from: '2026-11-20T00:00:00Z', end_date: '2026-11-21T00:00:00Z' }, now),
    resolveWindow({ start_date: '2026-11-20T00:00:00Z', to: '2026-11-21T00:00:00Z' }, now),
    'the names mix',
  );
  t.match(refusal(t, { from: '2026-11-22T00:00:00Z' }).message, /from must be before to/);
  t.match(refusal(t, { to: '2026-11-01T00:00:00Z', from: '2026-11-02T00:00:00Z' }).message, /from must be before to/);
  t.match(
    refusal(t, { to: '2026-11-01T00:00:00Z', start_date: '2026-11-02T00:00:00Z' }).message,
    /start_date must be before to/,
  );
  t.match(refusal(t, { from: 'later' }).message, /from is not an ISO 8601/);
});

t.test('both names of one bound: the same instant is that bound, different ones a 400 naming both', async (t) => {
  t.same(
    resolveWindow({ start_date: '2026-11-20T00:00:00Z', from: '2026-11-20T01:00:00+01:00' }, now).fromMs,
    Date.parse('2026-11-20T00:00:00Z'),
    'one instant spelt two ways',
  );
  t.match(
    refusal(t, { end_date: 'soon', to: 'soon' }).message,
    /end_date is not an ISO 8601/,
    'the same text, checked once',
  );
  const start = refusal(t, { start_date: '2026-11-20T00:00:00Z', from: '2026-11-19T00:00:00Z' });
  t.match(start.message, /start_date and from disagree/);
  t.same(Object.keys(start.fields.details as object).sort(), ['from', 'start_date']);
  const end = refusal(t, { end_date: '2026-11-20T00:00:00Z', to: 'soon' });
  t.same(Object.keys(end.fields.details as object).sort(), ['end_date', 'to']);
});
