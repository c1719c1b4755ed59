import { readFileSync } from 'node:fs';
import t from 'tap';
import { ApiError } from '../../src/core/errors.js';
import {
  checkEntitlement,
  monthOf,
  parsePlans,
  planOf,
  quotaError,
  quotaPlan,
  quotaRefusal,
  STORAGE_RETRY_SECONDS,
} from '../../src/core/plans.js';

const shipped = parsePlans(JSON.parse(readFileSync(new URL('../../../data/plans.json', import.meta.url), 'utf8')));

t.test('the shipped plans', async (t) => {
  t.equal(shipped.default, 'self_hosted');
  t.same(
    planOf(shipped, 'self_hosted'),
    {
      max_apps: null,
      max_keys: null,
      monthly_spans: null,
      storage_bytes: null,
      agents_tier: 'full',
      agents_blob_cap_bytes: null,
      max_concurrent_worker_runs: null,
      max_environments_per_app: 1000,
    },
    'self-hosted is unlimited but for a runaway of preview environments, and keeps agent sessions whole',
  );
  t.equal(planOf(shipped, 'free').agents_tier, 'metrics');
  t.equal(planOf(shipped, 'team').agents_tier, 'transcripts');
  t.equal(planOf(shipped, 'team').agents_blob_cap_bytes, 1048576);
  t.equal(planOf(shipped, 'free').max_concurrent_worker_runs, 0, 'the free plan runs no workers');
  t.equal(planOf(shipped, 'team').max_concurrent_worker_runs, 5);
  t.equal(planOf(shipped, 'free').max_apps, 1);
  t.same(planOf(shipped, 'no-such-plan'), planOf(shipped, 'self_hosted'), 'unknown plans fall back to the default');
  t.same(planOf(shipped, null), planOf(shipped, 'self_hosted'));
});

t.test('bad plan files are refused with the entry named', async (t) => {
  t.throws(() => parsePlans(null), /expected/);
  t.throws(() => parsePlans({ plans: {}, default: 'x', upgrade_url: 1 }), /upgrade_url/);
  t.throws(() => parsePlans({ plans: {}, default: 'x', upgrade_url: 'u' }), /default must name a plan/);
  t.throws(
    () =>
      parsePlans({
        plans: { a: { max_apps: -1, max_keys: null, monthly_spans: null, storage_bytes: null } },
        default: 'a',
        upgrade_url: 'u',
      }),
    /plans\.a\.max_apps/,
  );
  t.throws(() => parsePlans({ plans: { a: null }, default: 'a', upgrade_url: 'u' }), /plans\.a\.max_apps/);
  t.throws(
    () =>
      parsePlans({
        plans: {
          a: { max_apps: 1, max_keys: null, monthly_spans: null, storage_bytes: null, agents_tier: 'everything' },
        },
        default: 'a',
        upgrade_url: 'u',
      }),
    /plans\.a\.agents_tier/,
  );
  t.throws(
    () =>
      parsePlans({
        plans: {
          a: { max_apps: 1, max_keys: null, monthly_spans: null, storage_bytes: null, agents_blob_cap_bytes: 1.5 },
        },
        default: 'a',
        upgrade_url: 'u',
      }),
    /plans\.a\.agents_blob_cap_bytes/,
  );
  const older = parsePlans({
    plans: { a: { max_apps: 1, max_keys: null, monthly_spans: null, storage_bytes: null } },
    default: 'a',
    upgrade_url: 'u',
  });
  t.same(
    [
      older.plans.a!.agents_tier,
      older.plans.a!.agents_blob_cap_bytes,
      older.plans.a!.max_concurrent_worker_runs,
      older.plans.a!.max_environments_per_app,
    ],
    ['full', null, null, null],
    'a plans file from before agent sync, workers and the environment cap: full tier, no caps',
  );
  t.throws(
    () =>
      parsePlans({
        plans: {
          a: { max_apps: 1, max_keys: null, monthly_spans: null, storage_bytes: null, max_concurrent_worker_runs: -1 },
        },
        default: 'a',
        upgrade_url: 'u',
      }),
    /plans\.a\.max_concurrent_worker_runs/,
  );
});

t.test('entitlements: 402 with entitlement, current and limit', async (t) => {
  t.doesNotThrow(() => checkEntitlement('max_apps', 0, 1));
  t.doesNotThrow(() => checkEntitlement('max_keys', 100, null));
  try {
    checkEntitlement('max_apps', 1, 1);
    t.fail('should refuse');
  } catch (e) {
    t.ok(e instanceof ApiError);
    t.same((e as ApiError).toBody(), {
      error: {
        code: 'entitlement_required',
        message: 'The plan allows 1 apps; the tenant has 1',
        entitlement: 'max_apps',
        current: 1,
        limit: 1,
      },
    });
  }
  t.throws(() => checkEntitlement('max_environments_per_app', 3, 3), {
    code: 'entitlement_required',
    message: 'The plan allows 3 environments per app; the app has 3',
    fields: { entitlement: 'max_environments_per_app', current: 3, limit: 3 },
  });
  t.throws(() => checkEntitlement('max_keys', 6, 5), {
    code: 'entitlement_required',
    fields: { entitlement: 'max_keys', current: 6, limit: 5 },
  });
});

t.test('quotas', async (t) => {
  const plan = {
    max_apps: null,
    max_keys: null,
    monthly_spans: 10,
    storage_bytes: 1000,
    agents_tier: 'full' as const,
    agents_blob_cap_bytes: null,
    max_concurrent_worker_runs: null,
    max_environments_per_app: null,
  };
  t.equal(quotaRefusal(plan, { monthSpans: 5, storedBytes: 0 }, 5, 10), null, 'exactly at the limit is allowed');
  t.same(quotaRefusal(plan, { monthSpans: 5, storedBytes: 0 }, 6, 10), {
    code: 'span_limit_exceeded',
    current: 5,
    limit: 10,
  });
  t.same(quotaRefusal(plan, { monthSpans: 0, storedBytes: 990 }, 1, 11), {
    code: 'storage_cap_exceeded',
    current: 990,
    limit: 1000,
  });
  t.equal(quotaRefusal(planOf(shipped, 'self_hosted'), { monthSpans: 1e12, storedBytes: 1e15 }, 1e6, 1e9), null);
  const now = Date.parse('2026-11-30T23:59:00Z');
  const spans = quotaError({ code: 'span_limit_exceeded', current: 10, limit: 10 }, 'https://u', now);
  t.equal(spans.status, 429);
  t.same(spans.headers, { 'Retry-After': '60' }, 'until the next month');
  t.same(spans.toBody().error, {
    code: 'span_limit_exceeded',
    message: 'Monthly span quota of 10 reached',
    currentCount: 10,
    limit: 10,
    upgradeUrl: 'https://u',
    retry_after_seconds: 60,
  });
  const storage = quotaError({ code: 'storage_cap_exceeded', current: 5, limit: 4 }, 'https://u', now);
  t.same(storage.headers, { 'Retry-After': String(STORAGE_RETRY_SECONDS) });
  t.match(storage.message, /Storage cap of 4 bytes/);
  t.equal(monthOf(now), '2026-11');
});

t.test('a plan matters to the span writer only when it limits spans or storage', async (t) => {
  const unlimited = planOf(shipped, 'self_hosted');
  t.equal(quotaPlan(unlimited), null, 'no span or storage limit: no plan to check');
  t.same(quotaPlan({ ...unlimited, monthly_spans: 10 }), { ...unlimited, monthly_spans: 10 }, 'a span limit');
  t.same(quotaPlan({ ...unlimited, storage_bytes: 10 }), { ...unlimited, storage_bytes: 10 }, 'a storage limit');
});
