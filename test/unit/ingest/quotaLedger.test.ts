/** src/ingest/quotaLedger.ts: plan quotas as the coordinator keeps them — load once, reserve, keep, release. */
import t from 'tap';
import type { Plan } from '../../../src/core/plans.js';
import { QuotaLedger, type Usage } from '../../../src/ingest/quotaLedger.js';

// A pinned clock: with the wall clock, a test running across 00:00 UTC on the 1st would see the
// ledger start a new month between two of its calls.
const NOW = Date.parse('2026-11-15T12:00:00Z');
const clock = () => NOW;
const month = '2026-11';
const plan = { monthly_spans: 10, storage_bytes: 1000 } as Plan;

t.test('usage is loaded once per tenant; a failed load is tried again', async (t) => {
  const loads: string[] = [];
  let fail = true;
  const ledger = new QuotaLedger(async (tenantId) => {
    loads.push(tenantId);
    if (tenantId === 'flaky' && fail) throw new Error('store unavailable');
    return { month, monthSpans: 0, storedBytes: 0 };
  });
  await ledger.load('a');
  await ledger.load('a');
  t.same(loads, ['a'], 'once');
  await t.rejects(ledger.load('flaky'), /store unavailable/);
  fail = false;
  await ledger.load('flaky');
  t.same(loads, ['a', 'flaky', 'flaky'], 'again after a failure');
});

t.test('reserve within the quotas, refuse past them, keep or release', async (t) => {
  const usage: Usage = { month, monthSpans: 4, storedBytes: 100 };
  const ledger = new QuotaLedger(async () => usage, clock);
  t.equal(ledger.reserve(1, 'a', plan, 5, 10), null, 'not loaded: nothing to judge by');
  await ledger.load('a');
  t.equal(ledger.reserve(1, 'a', plan, 5, 100), null, 'within both');
  t.same(usage, { month, monthSpans: 9, storedBytes: 200 });
  t.same(ledger.reserve(2, 'a', plan, 2, 10), { code: 'span_limit_exceeded', current: 9, limit: 10 });
  t.same(ledger.reserve(3, 'a', plan, 1, 900), { code: 'storage_cap_exceeded', current: 200, limit: 1000 });
  t.same(usage, { month, monthSpans: 9, storedBytes: 200 }, 'a refusal reserves nothing');
  ledger.release(1);
  t.same(usage, { month, monthSpans: 4, storedBytes: 100 }, 'a failed request gives its reservation back');
  ledger.release(1);
  t.same(usage, { month, monthSpans: 4, storedBytes: 100 }, 'once');
  t.equal(ledger.reserve(4, 'a', plan, 6, 0), null);
  ledger.keep(4);
  ledger.release(4);
  t.same(usage, { month, monthSpans: 10, storedBytes: 100 }, 'a kept reservation is usage');
});

t.test('a new month starts the span count again', async (t) => {
  const usage: Usage = { month: '2000-01', monthSpans: 10, storedBytes: 0 };
  let now = NOW;
  const ledger = new QuotaLedger(
    async () => usage,
    () => now,
  );
  await ledger.load('a');
  t.equal(ledger.reserve(1, 'a', plan, 10, 0), null);
  t.same(usage, { month, monthSpans: 10, storedBytes: 0 });
  t.ok(ledger.reserve(2, 'a', plan, 1, 0), 'the month is full');
  now = Date.parse('2026-12-01T00:00:00Z');
  t.equal(ledger.reserve(3, 'a', plan, 1, 0), null, 'the clock passed into December');
  t.same(usage, { month: '2026-12', monthSpans: 1, storedBytes: 0 });
});
