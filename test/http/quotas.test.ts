/** Integration: plans (402 entitlements, 429 quotas with nothing stored) and per-tenant rate limits. */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import t from 'tap';
import { hex } from '../helpers/otlp.js';
import {
  call,
  createKey,
  rootCredentials,
  serverFor,
  tempDir,
  type Credentials,
  type TestServer,
} from '../helpers/server.js';
import { exportSpans } from '../helpers/exportSpans.js';

function plansFile(plan: Record<string, number | null>): string {
  const path = join(tempDir('tracelake-plans-'), 'plans.json');
  writeFileSync(
    path,
    JSON.stringify({
      default: 'self_hosted',
      upgrade_url: 'https://example.com/upgrade',
      plans: { self_hosted: { max_apps: null, max_keys: null, monthly_spans: null, storage_bytes: null, ...plan } },
    }),
  );
  return path;
}

function ingest(server: TestServer, auth: Credentials, spans: number, attributes: Record<string, string> = {}) {
  const traceId = hex(16);
  return exportSpans(
    server,
    auth,
    Array.from({ length: spans }, () => ({ traceId, attributes })),
  ).then((r) => ({ ...r, traceId }));
}

t.test('entitlements: apps and keys', async (t) => {
  const server = await serverFor(t, { args: ['--plans-file', plansFile({ max_apps: 2, max_keys: 2 })] });
  const root = rootCredentials(server);
  t.equal(
    (await call(server, 'POST', '/v1/apps', { auth: root, body: { name: 'second' } })).status,
    201,
    'the bootstrap app is the first of two',
  );
  const third = await call(server, 'POST', '/v1/apps', { auth: root, body: { name: 'third' } });
  t.equal(third.status, 402);
  t.same(third.body.error, {
    code: 'entitlement_required',
    message: 'The plan allows 2 apps; the tenant has 2',
    entitlement: 'max_apps',
    current: 2,
    limit: 2,
  });
  const apps = await call(server, 'GET', '/v1/apps', { auth: root });
  t.equal(apps.body.data.length, 2, 'nothing stored on refusal');

  const k = await createKey(server, root, { name: 'second key', role: 'SDK' });
  const over = await call(server, 'POST', '/v1/api-keys', { auth: root, body: { name: 'third key', role: 'SDK' } });
  t.equal(over.status, 402);
  t.equal(over.body.error.entitlement, 'max_keys');
  t.equal(over.body.error.current, 2);
  t.equal((await call(server, 'GET', '/v1/api-keys', { auth: root })).body.data.length, 2);
  // Revoked keys do not count.
  t.equal((await call(server, 'DELETE', `/v1/api-keys/${k.id}`, { auth: root })).status, 200);
  t.equal(
    (await call(server, 'POST', '/v1/api-keys', { auth: root, body: { name: 'replacement', role: 'SDK' } })).status,
    201,
  );
});

/**
 * Waits until the next UTC month has begun when it begins within `ms`: spans are counted by
 * month, and a test that straddled the first of a month would see its count start again.
 */
async function clearOfMonthStart(ms: number): Promise<void> {
  const now = Date.now();
  const date = new Date(now);
  const next = Date.UTC(date.getUTCFullYear(), date.getUTCMonth() + 1, 1);
  if (next - now < ms) await new Promise((resolve) => setTimeout(resolve, next - now + 1000));
}

t.test('monthly span quota: 429 with Retry-After, and nothing of the request stored', async (t) => {
  await clearOfMonthStart(120_000);
  const server = await serverFor(t, { args: ['--plans-file', plansFile({ monthly_spans: 5 })] });
  const root = rootCredentials(server);
  const first = await ingest(server, root, 3);
  t.equal(first.status, 200);
  const second = await ingest(server, root, 3);
  t.equal(second.status, 429);
  t.equal(second.body.error.code, 'span_limit_exceeded');
  t.equal(second.body.error.currentCount, 3);
  t.equal(second.body.error.limit, 5);
  t.equal(second.body.error.upgradeUrl, 'https://example.com/upgrade');
  const retry = Number(second.headers.get('retry-after'));
  t.ok(retry > 0 && retry <= 31 * 86400, 'Retry-After until the next month');
  t.equal(second.body.error.retry_after_seconds, retry);
  t.equal(
    (await call(server, 'GET', `/v1/traces/${second.traceId}`, { auth: root })).status,
    404,
    'the refused request stored nothing',
  );
  t.equal((await ingest(server, root, 2)).status, 200, 'exactly up to the quota is accepted');
  t.equal((await ingest(server, root, 1)).status, 429);
});

t.test('storage cap', async (t) => {
  const server = await serverFor(t, { args: ['--plans-file', plansFile({ storage_bytes: 5000 })] });
  const root = rootCredentials(server);
  t.equal((await ingest(server, root, 2, { 'input.value': 'x'.repeat(1000) })).status, 200);
  const over = await ingest(server, root, 2, { 'input.value': 'y'.repeat(3000) });
  t.equal(over.status, 429);
  t.equal(over.body.error.code, 'storage_cap_exceeded');
  t.equal(over.body.error.limit, 5000);
  t.ok(over.body.error.currentCount > 2000);
  t.ok(Number(over.headers.get('retry-after')) > 0);
  t.equal((await call(server, 'GET', `/v1/traces/${over.traceId}`, { auth: root })).status, 404);
});

t.test('rate limiting per tenant', async (t) => {
  // A token every 20 s: the four requests below take far less on any machine, and the wait the
  // server names is 20 s less what the bucket refilled meanwhile (a rate of one every 2 s failed
  // whenever they took over a second).
  const server = await serverFor(t, { args: ['--rate-limit', '0.05', '--rate-burst', '3'] });
  const root = rootCredentials(server);
  const started = performance.now();
  for (let i = 0; i < 3; i++)
    t.equal((await call(server, 'GET', '/v1/api-keys', { auth: root })).status, 200, `burst request ${i + 1}`);
  const limited = await call(server, 'GET', '/v1/api-keys', { auth: root });
  const elapsedSeconds = (performance.now() - started) / 1000;
  t.equal(limited.status, 429);
  t.equal(limited.body.error.code, 'rate_limited');
  const wait = limited.body.error.retry_after_seconds;
  t.ok(
    wait <= 20 && wait >= Math.ceil(20 - elapsedSeconds),
    `the wait, ${wait} s, is 20 s less the refill of ${elapsedSeconds.toFixed(2)} s`,
  );
  t.equal(limited.headers.get('retry-after'), String(wait));
  t.equal((await call(server, 'GET', '/health')).status, 200, 'unauthenticated endpoints are not a tenant’s');
  t.equal(
    (
      await call(server, 'GET', '/v1/api-keys', {
        headers: { authorization: 'sk_service_nope', 'x-service-app-id': root.appId },
      })
    ).status,
    401,
    'auth is judged before the rate',
  );
});

t.test('environments: a cap per app from the plan, and pull-request previews made at most 10 a minute', async (t) => {
  const token = `op-${hex(24)}`;
  const server = await serverFor(t, {
    args: ['--plans-file', plansFile({ max_environments_per_app: 11 })],
    env: { TRACELAKE_OPERATOR_TOKEN: token },
  });
  const root = rootCredentials(server);
  const minted = await call(server, 'POST', `/v1/operator/apps/${root.appId}/keys`, {
    headers: { authorization: `Bearer ${token}` },
    body: { name: 'previews', role: 'read_only', kinds: ['preview'] },
  });
  t.equal(minted.status, 201);
  const preview: Credentials = { key: minted.body.data.plaintext_key, appId: root.appId };
  const pullRequest = (n: number) =>
    call(server, 'GET', '/v1/traces', { auth: preview, headers: { 'x-service-pull-request': String(n) } });
  const environments = async () =>
    (await call(server, 'GET', '/v1/environments', { auth: root })).body.data.map((e: { name: string }) => e.name);

  // The production environment was made at start, within the minute: nine previews fill it.
  for (let n = 1; n <= 9; n++) t.equal((await pullRequest(n)).status, 200, `pr-${n} made`);
  const fast = await pullRequest(10);
  t.equal(fast.status, 429, 'the tenth environment of the minute waits');
  t.match(fast.body.error, { code: 'rate_limited', message: /made 10 environments in the last minute/ });
  t.ok(fast.body.error.retry_after_seconds >= 1 && fast.body.error.retry_after_seconds <= 60);
  t.equal(fast.headers.get('retry-after'), String(fast.body.error.retry_after_seconds));
  t.equal((await pullRequest(3)).status, 200, 'a preview made before is still selected');
  t.equal((await environments()).length, 10, 'nothing made on refusal');

  // An admin's environment is not rate-limited, but counts against the cap, as previews do.
  t.equal(
    (await call(server, 'POST', '/v1/environments', { auth: root, body: { name: 'staging', kind: 'preview' } })).status,
    201,
  );
  const capped = await pullRequest(10);
  t.equal(capped.status, 402, 'the plan allows 11 environments per app');
  t.same(capped.body.error, {
    code: 'entitlement_required',
    message: 'The plan allows 11 environments per app; the app has 11',
    entitlement: 'max_environments_per_app',
    current: 11,
    limit: 11,
  });
  const overByAdmin = await call(server, 'POST', '/v1/environments', {
    auth: root,
    body: { name: 'qa', kind: 'preview' },
  });
  t.equal(overByAdmin.status, 402);
  t.equal(overByAdmin.body.error.entitlement, 'max_environments_per_app');
  t.equal((await environments()).length, 11);
});
