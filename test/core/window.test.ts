import t from 'tap';
import { ApiError } from '../../src/core/errors.js';
import { DEFAULT_WINDOW_DAYS, MAX_WINDOW_DAYS, resolveWindow } from '../../src/core/window.js';

const DAY = 86_400_000;
const now = Date.parse('2026-11-21T12:00:00Z');

t.test('defaults: the last 7 days up to now', async (t) => {
  t.same(resolveWindow(undefined, undefined, now), { fromMs: now - DEFAULT_WINDOW_DAYS * DAY, toMs: now });
  t.same(
    resolveWindow(undefined, '2026-11-01T00:00:00Z', now),
    { fromMs: Date.parse('2026-10-25T00:00:00Z'), toMs: Date.parse('2026-11-01T00:00:00Z') },
    'a week before the end',
  );
  t.same(resolveWindow('2026-11-20T00:00:00Z', undefined, now), {
    fromMs: Date.parse('2026-11-20T00:00:00Z'),
    toMs: now,
  });
});

t.test('limits', async (t) => {
  t.same(
    resolveWindow('2026-08-23T12:00:00Z', '2026-11-21T12:00:00Z', now).toMs -
      resolveWindow('2026-08-23T12:00:00Z', '2026-11-21T12:00:00Z', now).fromMs,
    MAX_WINDOW_DAYS * DAY,
    'exactly 90 days is allowed',
  );
  const refuse = (start: string | undefined, end: string | undefined, pattern: RegExp) => {
    try {
      resolveWindow(start, end, now);
      t.fail('expected a refusal');
    } catch (e) {
      t.ok(e instanceof ApiError);
      t.equal((e as ApiError).code, 'invalid_time_window');
      t.match((e as ApiError).message, pattern);
    }
  };
  refuse('2026-08-23T11:59:59Z', '2026-11-21T12:00:00Z', /at most 90 days/);
  refuse('2026-11-21T12:00:00Z', '2026-11-21T12:00:00Z', /before end_date/);
  refuse('2026-11-22T00:00:00Z', undefined, /before end_date/);
  refuse('yesterday', undefined, /start_date is not an ISO 8601/);
  refuse(undefined, 'soon', /end_date is not an ISO 8601/);
});

t.test('the bounds are named as the endpoint names them', async (t) => {
  const names = { start: 'from', end: 'to' };
  t.same(resolveWindow('2026-11-20T00:00:00Z', undefined, now, names), {
    fromMs: Date.parse('2026-11-20T00:00:00Z'),
    toMs: now,
  });
  t.throws(() => resolveWindow('2026-11-22T00:00:00Z', undefined, now, names), /from must be before to/);
  t.throws(() => resolveWindow('later', undefined, now, names), /from is not an ISO 8601/);
});
