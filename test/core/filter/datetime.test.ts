import t from 'tap';
import { isoToNs } from '../../../src/core/filter/datetime.js';

t.test('ISO 8601 to epoch nanoseconds, exactly', async (t) => {
  t.equal(isoToNs('1970-01-01T00:00:00Z'), 0n);
  t.equal(isoToNs('1970-01-01'), 0n, 'a date is midnight UTC');
  t.equal(isoToNs('1970-01-01T00:00:00.000000001Z'), 1n);
  t.equal(isoToNs('1970-01-01T00:00:00.5'), 500_000_000n, 'no zone is UTC');
  t.equal(isoToNs('1970-01-01 01:00+01:00'), 0n);
  t.equal(isoToNs('1970-01-01T00:00:00-0130'), 5_400_000_000_000n);
  t.equal(isoToNs('1969-12-31T23:59:59.999999999z'), -1n);
  t.equal(isoToNs('2026-01-15T00:00:00.123456789Z'), 1768435200123456789n);
  t.equal(isoToNs('2262-04-11T23:47:16.854775807Z'), 2n ** 63n - 1n, 'the last BIGINT nanosecond');
  t.equal(isoToNs('1677-09-21T00:12:43.145224192Z'), -(2n ** 63n), 'the first');
});

t.test('anything else is null', async (t) => {
  for (const bad of [
    '',
    'now',
    '2026-1-1',
    '2026-02-29',
    '2026-13-01',
    '2026-01-01T24:00:00Z',
    '2026-01-01T00:60',
    '2026-01-01T00:00:61Z',
    '2026-01-01T00:00:00+24:00',
    '2026-01-01T00:00:00+01:60',
    '2262-04-11T23:47:16.854775808Z',
    '1677-09-21T00:12:43.145224191Z',
    '2026-01-01T00:00:00.Z',
    '2026-01-01Z',
  ]) {
    t.equal(isoToNs(bad), null, bad);
  }
  t.equal(isoToNs('2024-02-29'), 1709164800000000000n, 'a leap day');
});
