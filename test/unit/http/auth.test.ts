/**
 * src/http/auth.ts: credentials from the headers, the permission check, and the Authenticator
 * against a store fake (the store thread answers `findKey`, `touchKey`, `selectEnvironment` and
 * `sessionScope`; the real one is driven by test/http/auth.test.ts).
 */
import t, { type Test } from 'tap';
import { hashKey } from '../../../src/auth/keys.js';
import { deriveSessionKey, sessionClaims, signSessionToken } from '../../../src/core/admin/jwt.js';
import { ApiError } from '../../../src/core/errors.js';
import { permissionsFor } from '../../../src/core/permissions.js';
import { Authenticator, authorize, readCredentials } from '../../../src/http/auth.js';
import type { StoreClient } from '../../../src/store/storeClient.js';
import type { KeyRecord } from '../../../src/store/admin/meta.js';

t.test('credentials', async (t) => {
  const app = '6f1c1c8e-1111-4222-8333-944455556666';
  t.same(readCredentials({ authorization: 'Bearer sk_service_a', 'x-service-app-id': app }, false), {
    key: 'sk_service_a',
    appId: app,
  });
  t.same(readCredentials({ authorization: 'sk_service_a', 'x-partner-app-id': app.toUpperCase() }, false), {
    key: 'sk_service_a',
    appId: app,
  });
  t.same(
    readCredentials({ authorization: 'sk_service_a', 'x-service-app-id': app }, true),
    { key: 'sk_service_a', appId: app },
    'raw key on OTLP',
  );
  t.throws(
    () => readCredentials({ authorization: 'Bearer sk_service_a', 'x-service-app-id': app }, true),
    /without the "Bearer " prefix/,
    'OTLP refuses Bearer',
  );
  t.throws(() => readCredentials({ authorization: '  ', 'x-service-app-id': app }, false), /Missing Authorization/);
  try {
    readCredentials({ authorization: 'x' }, false);
    t.fail('should throw');
  } catch (e) {
    t.ok(e instanceof ApiError && e.status === 401);
  }
});

t.test('credentials: Basic, the app id as user and the key as password (the Langfuse SDKs)', async (t) => {
  const app = '6f1c1c8e-1111-4222-8333-944455556666';
  const other = '7a2d2d9f-2222-4333-8444-a55566667777';
  const basic = (credentials: string) => `Basic ${Buffer.from(credentials).toString('base64')}`;
  t.same(readCredentials({ authorization: basic(`${app.toUpperCase()}:sk_service_a`) }, true), {
    key: 'sk_service_a',
    appId: app,
  });
  t.same(
    readCredentials({ authorization: basic(`${app}:sk_service_a`), 'x-service-app-id': app }, false),
    { key: 'sk_service_a', appId: app },
    'an app id header naming the same app',
  );
  t.throws(() => readCredentials({ authorization: basic(`${app}:sk_service_a`), 'x-service-app-id': other }, false), {
    code: 'unauthorized',
    message: 'The Basic user (the app id) and X-Service-App-Id name different apps',
  });
  t.throws(() => readCredentials({ authorization: basic('pk-lf-1:sk_service_a') }, false), {
    code: 'unauthorized',
    message: /Basic user\) must be a UUID/,
  });
  t.throws(() => readCredentials({ authorization: basic('sk_service_a') }, false), /must be a UUID/, 'no user');
});

t.test('credentials: the app id headers', async (t) => {
  const app = '6f1c1c8e-1111-4222-8333-944455556666';
  const other = '7a2d2d9f-2222-4333-8444-a55566667777';
  t.same(
    readCredentials({ authorization: 'bearer   k  ', 'x-service-app-id': ` ${app} ` }, false),
    { key: 'k', appId: app },
    'trimmed; Bearer in any case',
  );
  t.same(
    readCredentials({ authorization: 'k', 'x-service-app-id': app, 'x-partner-app-id': app.toUpperCase() }, false),
    { key: 'k', appId: app },
    'both, agreeing',
  );
  t.throws(() => readCredentials({ authorization: 'k', 'x-service-app-id': app, 'x-partner-app-id': other }, false), {
    code: 'unauthorized',
    message: /name different apps/,
  });
  t.throws(() => readCredentials({ authorization: 'k', 'x-service-app-id': 'app-1' }, false), {
    code: 'unauthorized',
    message: /must be a UUID/,
  });
  t.throws(
    () => readCredentials({ authorization: 'k', 'x-service-app-id': app, 'x-partner-app-id': 'nope' }, false),
    /must be a UUID/,
    'each header is checked',
  );
  t.throws(() => readCredentials({ authorization: 'k', 'x-service-app-id': ' ' }, false), {
    code: 'unauthorized',
    message: 'Missing X-Service-App-Id header',
  });
  t.throws(() => readCredentials({ 'x-service-app-id': app }, false), { message: 'Missing Authorization header' });
});

t.test('authorize', async (t) => {
  const p = {
    kind: 'key' as const,
    tenantId: 't',
    appId: 'a',
    environmentId: null,
    readEnvironmentId: null,
    keyId: 'k',
    role: 'sdk' as const,
    permissions: ['trace.write' as const],
    plan: null,
  };
  t.doesNotThrow(() => authorize(p, 'trace.write'));
  t.throws(() => authorize(p, 'score.delete'), { code: 'forbidden', fields: { required_permission: 'score.delete' } });
  t.throws(() => authorize(p, 'admin'), { code: 'forbidden', fields: { required_permission: 'full_access' } });
  t.doesNotThrow(() => authorize(p, 'none'));
  t.doesNotThrow(() => authorize({ ...p, role: 'full_access', permissions: [] }, 'admin'));
  t.doesNotThrow(
    () => authorize({ ...p, role: 'full_access', permissions: [] }, 'eval_run'),
    'admin credentials report for any run',
  );
  t.throws(() => authorize(p, 'eval_run'), { code: 'forbidden', fields: { required_permission: 'full_access' } });
  const runKey = { ...p, role: 'custom' as const, permissions: [], runId: 'run-1' };
  t.doesNotThrow(() => authorize(runKey, 'eval_run'), 'a run key reports for its run');
  t.throws(() => authorize(runKey, 'trace.read'), {
    code: 'forbidden',
    message: /eval run run-1 and does nothing else/,
  });
  t.throws(
    () => authorize({ ...runKey, role: 'full_access', permissions: permissionsFor('full_access') }, 'admin'),
    { code: 'forbidden' },
    'whatever its row says',
  );
});

// ---------------------------------------------------------------------------------------------------
// The Authenticator.

const SECRET = Buffer.alloc(32, 9);
const TENANT = '11111111-1111-4111-8111-111111111111';
const APP = '6f1c1c8e-1111-4222-8333-944455556666';
const OTHER_APP = '7a2d2d9f-2222-4333-8444-a55566667777';
const KEY = 'sk_service_' + 'A'.repeat(43);

interface Call {
  task: string;
  input: Record<string, unknown>;
}

/** A store answering from `answers`; every task run is recorded in `calls`. */
function fakeStore(answers: Partial<Record<string, (input: Record<string, unknown>) => unknown>>) {
  const calls: Call[] = [];
  const store = {
    run: async (task: string, input: Record<string, unknown>) => {
      calls.push({ task, input });
      const answer = answers[task];
      if (!answer) throw new Error(`unexpected task ${task}`);
      return answer(input);
    },
  } as unknown as StoreClient;
  return { store, calls, count: (task: string) => calls.filter((c) => c.task === task).length };
}

function keyRecord(over: Partial<KeyRecord> = {}): KeyRecord {
  return {
    id: 'key-1',
    tenantId: TENANT,
    appId: APP,
    environmentId: 'env-prod',
    role: 'sdk',
    permissions: permissionsFor('sdk'),
    keyHash: hashKey(SECRET, KEY),
    expiresAt: null,
    revokedAt: null,
    plan: 'free',
    allowedKinds: null,
    environmentKind: 'production',
    environmentName: 'production',
    runId: null,
    ...over,
  };
}

const headers = (key = KEY, extra: Record<string, string> = {}) => ({
  authorization: key,
  'x-service-app-id': APP,
  ...extra,
});
const noTouchErrors = (t: Test) => (e: unknown) => t.fail(`touch failed: ${String(e)}`);

t.test('a key: its record, pinned', async (t) => {
  const { store, calls } = fakeStore({ findKey: () => keyRecord(), touchKey: () => null });
  const auth = new Authenticator(store, SECRET, null, noTouchErrors(t));
  const p = await auth.authenticate(headers(), false, 1_000_000);
  t.strictSame(p, {
    kind: 'key',
    tenantId: TENANT,
    appId: APP,
    environmentId: 'env-prod',
    readEnvironmentId: 'env-prod',
    keyId: 'key-1',
    role: 'sdk',
    permissions: permissionsFor('sdk'),
    plan: 'free',
    pin: { environmentId: 'env-prod', kind: 'production', name: 'production' },
  });
  t.same(calls[0], { task: 'findKey', input: { keyHash: hashKey(SECRET, KEY) } }, 'looked up by its hash');
  t.same(calls[1], { task: 'touchKey', input: { id: 'key-1', atMs: 1_000_000 } }, 'last use recorded');
});

t.test('a run-scoped key carries its run', async (t) => {
  const { store } = fakeStore({
    findKey: () => keyRecord({ role: 'custom', permissions: [], runId: 'run-1' }),
    touchKey: () => null,
  });
  const p = await new Authenticator(store, SECRET, null, noTouchErrors(t)).authenticate(headers(), false, 1_000_000);
  t.equal(p.runId, 'run-1');
  t.equal(p.readEnvironmentId, 'env-prod', 'confined to its pin');
});

t.test('pinned keys: a header naming another environment is 403; a tenant admin reads every environment', async (t) => {
  const environments: Record<string, { id: string; kind: string }> = {
    production: { id: 'env-prod', kind: 'production' },
    staging: { id: 'env-stg', kind: 'production' },
    'pr-4': { id: 'env-pr4', kind: 'preview' },
  };
  const fake = (record: KeyRecord) =>
    fakeStore({
      findKey: () => record,
      touchKey: () => null,
      selectEnvironment: ({ name }) => environments[name as string] ?? null,
    });
  const sdk = new Authenticator(fake(keyRecord()).store, SECRET, null, noTouchErrors(t));
  await t.rejects(sdk.authenticate(headers(KEY, { 'x-service-environment': 'staging' }), false, 0), {
    code: 'forbidden',
    message: /pinned to another environment than "staging"/,
  });
  await t.rejects(
    sdk.authenticate(headers(KEY, { 'x-service-environment': 'nowhere' }), false, 0),
    { code: 'forbidden' },
    'an unknown name too',
  );
  await t.rejects(sdk.authenticate(headers(KEY, { 'x-service-pull-request': '4' }), false, 0), {
    code: 'forbidden',
    message: /than "pr-4"/,
  });
  const own = await sdk.authenticate(headers(KEY, { 'x-service-environment': 'production' }), false, 0);
  t.same(
    [own.environmentId, own.readEnvironmentId],
    ['env-prod', 'env-prod'],
    'its own name is fine; an SDK key reads its own environment',
  );

  const admin = await new Authenticator(
    fake(keyRecord({ role: 'full_access', permissions: permissionsFor('full_access') })).store,
    SECRET,
    null,
    noTouchErrors(t),
  ).authenticate(headers(), false, 0);
  t.same(
    [admin.environmentId, admin.readEnvironmentId],
    ['env-prod', null],
    "the tenant admin's Full Access key writes to its pin and reads every environment",
  );
  const previewAdmin = await new Authenticator(
    fake(
      keyRecord({
        role: 'full_access',
        permissions: permissionsFor('full_access'),
        environmentId: 'env-pr4',
        environmentKind: 'preview',
      }),
    ).store,
    SECRET,
    null,
    noTouchErrors(t),
  ).authenticate(headers(), false, 0);
  t.equal(
    previewAdmin.readEnvironmentId,
    'env-pr4',
    'a Full Access key pinned to a preview reads its own environment only',
  );
  const readOnly = await new Authenticator(
    fake(keyRecord({ role: 'read_only', permissions: permissionsFor('read_only') })).store,
    SECRET,
    null,
    noTouchErrors(t),
  ).authenticate(headers(), false, 0);
  t.equal(readOnly.readEnvironmentId, 'env-prod', 'so does a Read-Only key pinned to production');
});

t.test('a key whose environment kind is unknown carries no pin', async (t) => {
  const { store } = fakeStore({ findKey: () => keyRecord({ environmentKind: null }), touchKey: () => null });
  const p = await new Authenticator(store, SECRET, null, noTouchErrors(t)).authenticate(headers(), false, 0);
  t.equal(p.environmentId, 'env-prod');
  t.notOk('pin' in p);
});

t.test('key records are cached for 30 s, not when missing, and forgotten on demand', async (t) => {
  const { store, count } = fakeStore({ findKey: () => keyRecord(), touchKey: () => null });
  const auth = new Authenticator(store, SECRET, null, noTouchErrors(t));
  await auth.authenticate(headers(), false, 0);
  await auth.authenticate(headers(), false, 29_999);
  t.equal(count('findKey'), 1, 'a cached record');
  await auth.authenticate(headers(), false, 30_000);
  t.equal(count('findKey'), 2, 'read again once 30 s old');
  auth.forget(hashKey(SECRET, KEY));
  await auth.authenticate(headers(), false, 30_001);
  t.equal(count('findKey'), 3, 'read again once forgotten');

  const missing = fakeStore({ findKey: () => null });
  const none = new Authenticator(missing.store, SECRET, null, noTouchErrors(t));
  await t.rejects(none.authenticate(headers(), false, 0), { code: 'unauthorized', message: 'Invalid API key' });
  await t.rejects(none.authenticate(headers(), false, 1), { code: 'unauthorized' });
  t.equal(missing.count('findKey'), 2, 'an unknown key is not cached');
});

t.test('cached keys are forgotten by id and by tenant (operator revocations and plan changes)', async (t) => {
  const other = 'sk_service_' + 'B'.repeat(43);
  const otherTenant = '22222222-2222-4222-8222-222222222222';
  const { store, count } = fakeStore({
    findKey: ({ keyHash }) =>
      keyHash === hashKey(SECRET, KEY)
        ? keyRecord()
        : keyRecord({ id: 'key-2', tenantId: otherTenant, keyHash: keyHash as string }),
    touchKey: () => null,
  });
  const auth = new Authenticator(store, SECRET, null, noTouchErrors(t));
  const both = async (now: number) => {
    await auth.authenticate(headers(), false, now);
    await auth.authenticate(headers(other), false, now);
  };
  await both(0);
  t.equal(count('findKey'), 2);
  auth.forgetKeyId('key-2');
  await both(1);
  t.equal(count('findKey'), 3, 'only key-2 is read again');
  auth.forgetTenant(TENANT);
  await both(2);
  t.equal(count('findKey'), 4, "only the tenant's key is read again");
  auth.forgetKeyId('key-9');
  auth.forgetTenant('33333333-3333-4333-8333-333333333333');
  await both(3);
  t.equal(count('findKey'), 4, 'unknown ids forget nothing');
});

t.test('the cache holds 10 000 records, dropping the oldest', async (t) => {
  const keys = Array.from({ length: 10_001 }, (_, i) => 'sk_service_' + String(i).padStart(43, '0'));
  const byHash = new Map(keys.map((k) => [hashKey(SECRET, k), k]));
  const { store, count } = fakeStore({
    findKey: ({ keyHash }) => keyRecord({ keyHash: keyHash as string, id: byHash.get(keyHash as string)! }),
    touchKey: () => null,
  });
  const auth = new Authenticator(store, SECRET, null, noTouchErrors(t));
  for (const k of keys) await auth.authenticate(headers(k), false, 0);
  t.equal(count('findKey'), 10_001);
  await auth.authenticate(headers(keys[10_000]), false, 0);
  await auth.authenticate(headers(keys[1]), false, 0);
  t.equal(count('findKey'), 10_001, 'the newest and the second oldest are still cached');
  await auth.authenticate(headers(keys[0]), false, 0);
  t.equal(count('findKey'), 10_002, 'the oldest was dropped');
});

t.test('last use is written at most once a minute per key; a failed write is reported, not thrown', async (t) => {
  const errors: unknown[] = [];
  let failTouch = false;
  const { store, count } = fakeStore({
    findKey: () => keyRecord(),
    touchKey: () => {
      if (failTouch) throw new Error('disk full');
      return null;
    },
  });
  const auth = new Authenticator(store, SECRET, null, (e) => errors.push(e));
  const at = 1_700_000_000_000;
  await auth.authenticate(headers(), false, at);
  await auth.authenticate(headers(), false, at + 59_999);
  t.equal(count('touchKey'), 1);
  failTouch = true;
  const p = await auth.authenticate(headers(), false, at + 60_000);
  t.equal(p.keyId, 'key-1', 'authenticated all the same');
  t.equal(count('touchKey'), 2);
  await new Promise((resolve) => setImmediate(resolve));
  t.match(errors, [{ message: 'disk full' }]);
});

t.test('refused keys', async (t) => {
  const refuse = async (record: KeyRecord | null, pattern: RegExp, h = headers(), now = 1000) => {
    const { store } = fakeStore({ findKey: () => record, touchKey: () => null });
    await t.rejects(
      new Authenticator(store, SECRET, null, noTouchErrors(t)).authenticate(h, false, now),
      { code: 'unauthorized', message: pattern },
      pattern.source,
    );
  };
  await refuse(keyRecord({ keyHash: hashKey(SECRET, 'sk_service_other') }), /^Invalid API key$/);
  await refuse(keyRecord({ revokedAt: 5 }), /has been revoked/);
  await refuse(keyRecord({ expiresAt: 1000 }), /has expired/);
  await refuse(keyRecord(), /does not belong to the app/, headers(KEY, { 'x-service-app-id': OTHER_APP }));
  await refuse(null, /^Invalid API key$/, headers('not-a-key'));
  await refuse(null, /^Invalid API key$/, headers('a.b'));
  const { store } = fakeStore({ findKey: () => keyRecord({ expiresAt: 1001 }), touchKey: () => null });
  t.equal(
    (await new Authenticator(store, SECRET, null, noTouchErrors(t)).authenticate(headers(), false, 1000)).keyId,
    'key-1',
    'not expired until its time',
  );
});

t.test('local mode: key-less requests act as the local app; a key is still checked', async (t) => {
  const local = { tenantId: TENANT, appId: APP, environmentId: 'env-local', plan: 'local' };
  const { store, count } = fakeStore({ findKey: () => keyRecord(), touchKey: () => null });
  const auth = new Authenticator(store, SECRET, local, noTouchErrors(t));
  t.strictSame(await auth.authenticate({}, false), {
    kind: 'local',
    tenantId: TENANT,
    appId: APP,
    environmentId: 'env-local',
    plan: 'local',
    readEnvironmentId: 'env-local',
    keyId: null,
    role: 'full_access',
    permissions: permissionsFor('full_access'),
  });
  t.equal(count('findKey'), 0);
  t.equal((await auth.authenticate(headers(), false, 0)).kind, 'key');
  t.equal(count('findKey'), 1);
});

t.test('a kind-scoped key that may use production stays unpinned', async (t) => {
  const scoped = keyRecord({ environmentId: null, environmentKind: null, allowedKinds: ['production', 'preview'] });
  const { store } = fakeStore({
    findKey: () => scoped,
    touchKey: () => null,
    selectEnvironment: () => ({ id: 'env-prod', kind: 'production' }),
  });
  const auth = new Authenticator(store, SECRET, null, noTouchErrors(t));
  const prod = await auth.authenticate(headers(KEY, { 'x-service-environment': 'prod' }), false, 0);
  t.equal(prod.environmentId, 'env-prod');
  t.notOk('pin' in prod, 'not pinned: a tenant admin, as the operator made it');
});

t.test('kind-scoped keys name their environment per request', async (t) => {
  const scoped = keyRecord({ environmentId: null, environmentKind: null, allowedKinds: ['development', 'preview'] });
  const environments: Record<string, { id: string; kind: string } | null> = {
    dev: { id: 'env-dev', kind: 'development' },
    prod: { id: 'env-prod', kind: 'production' },
    'pr-12': { id: 'env-pr12', kind: 'preview' },
  };
  const { store, calls } = fakeStore({
    findKey: () => scoped,
    touchKey: () => null,
    selectEnvironment: ({ name }) => environments[name as string] ?? null,
  });
  const auth = new Authenticator(store, SECRET, null, noTouchErrors(t));
  const selects = () => calls.filter((c) => c.task === 'selectEnvironment').map((c) => c.input);

  const dev = await auth.authenticate(headers(KEY, { 'x-service-environment': ' dev ' }), false, 0);
  t.equal(dev.environmentId, 'env-dev');
  t.same(
    dev.pin,
    { environmentId: 'env-dev', kind: 'development', name: 'dev' },
    'its kinds leave production out: pinned, for this request, to the environment it names',
  );
  t.same(selects().at(-1), { tenantId: TENANT, appId: APP, name: 'dev', createPreview: false });

  const pr = await auth.authenticate(
    headers(KEY, { 'x-service-pull-request': '12', 'x-service-environment': 'dev' }),
    false,
    0,
  );
  t.equal(pr.environmentId, 'env-pr12', 'a pull request wins over a name');
  t.same(pr.pin, { environmentId: 'env-pr12', kind: 'preview', name: 'pr-12' });
  t.same(
    selects().at(-1),
    { tenantId: TENANT, appId: APP, name: 'pr-12', createPreview: true, maxEnvironments: null },
    'created on first use, as the key allows previews',
  );

  await t.rejects(auth.authenticate(headers(KEY, { 'x-service-environment': 'prod' }), false, 0), {
    code: 'forbidden',
    message: 'This key may not use production environments (allowed: development, preview)',
  });
  await t.rejects(auth.authenticate(headers(KEY, { 'x-service-environment': 'staging' }), false, 0), {
    code: 'forbidden',
    message: 'No environment "staging" in this app',
  });
  await t.rejects(auth.authenticate(headers(KEY), false, 0), {
    code: 'forbidden',
    message: /scoped to environment kinds \(development, preview\): name the environment/,
  });
  await t.rejects(auth.authenticate(headers(KEY, { 'x-service-environment': '  ' }), false, 0), {
    code: 'forbidden',
    message: /name the environment/,
  });
  for (const bad of ['0', '012', '12a', '-1', '12345678901', '']) {
    await t.rejects(
      auth.authenticate(headers(KEY, { 'x-service-pull-request': bad }), false, 0),
      {
        code: 'invalid_request_headers',
        fields: { details: { 'x-service-pull-request': 'must be a pull request number (1 to 9999999999)' } },
      },
      `pull request ${JSON.stringify(bad)}`,
    );
  }
  for (const bad of ['Dev', 'dev env', '-dev', 'é', 'x'.repeat(64), 'x'.repeat(5000)]) {
    const refused = await auth.authenticate(headers(KEY, { 'x-service-environment': bad }), false, 0).then(
      () => null,
      (e: unknown) => e as ApiError,
    );
    t.equal(
      refused?.code,
      'invalid_request_headers',
      `environment ${JSON.stringify(bad.slice(0, 20))}: the header is wrong, not the key`,
    );
    t.same(refused?.fields, {
      details: {
        'x-service-environment': 'must be an environment name (lowercase letters, digits and "-", at most 63)',
      },
    });
    t.notMatch(refused?.message ?? '', bad, 'the value is not echoed');
  }
  await t.rejects(
    auth.authenticate(headers(KEY, { 'x-service-environment': 'd'.repeat(63) }), false, 0),
    { code: 'forbidden', message: /^No environment "d{63}"/ },
    'a name of 63 passes the header check',
  );
  t.equal(selects().length, 5, 'refused headers never reach the store');
});

t.test(
  'a key allowing no kinds (or only development) refuses every environment, and never creates a preview',
  async (t) => {
    const none = keyRecord({ environmentId: null, environmentKind: null, allowedKinds: null });
    const a = fakeStore({
      findKey: () => none,
      touchKey: () => null,
      selectEnvironment: () => ({ id: 'env-dev', kind: 'development' }),
    });
    await t.rejects(
      new Authenticator(a.store, SECRET, null, noTouchErrors(t)).authenticate(
        headers(KEY, { 'x-service-environment': 'dev' }),
        false,
        0,
      ),
      {
        message: 'This key may not use development environments (allowed: none)',
      },
    );
    const dev = keyRecord({ environmentId: null, environmentKind: null, allowedKinds: ['development'] });
    const b = fakeStore({ findKey: () => dev, touchKey: () => null, selectEnvironment: () => null });
    await t.rejects(
      new Authenticator(b.store, SECRET, null, noTouchErrors(t)).authenticate(
        headers(KEY, { 'x-service-pull-request': '7' }),
        false,
        0,
      ),
      { message: 'No environment "pr-7" in this app' },
    );
    t.same(b.calls.find((c) => c.task === 'selectEnvironment')?.input, {
      tenantId: TENANT,
      appId: APP,
      name: 'pr-7',
      createPreview: false,
    });
  },
);

t.test('session tokens', async (t) => {
  const sessionKey = deriveSessionKey(SECRET);
  const nowSec = 1_800_000_000;
  const token = signSessionToken(
    sessionClaims({ tenantId: TENANT, appId: APP, subject: 'alice', nowSec, ttlSec: 3600 }),
    sessionKey,
  );
  const { store, calls } = fakeStore({
    sessionScope: ({ appId }) => (appId === APP ? { environmentId: 'env-prod', plan: 'team' } : null),
  });
  const auth = new Authenticator(store, SECRET, null, noTouchErrors(t));
  t.strictSame(await auth.authenticate(headers(`Bearer ${token}`), false, nowSec * 1000), {
    kind: 'session',
    tenantId: TENANT,
    appId: APP,
    environmentId: 'env-prod',
    readEnvironmentId: null,
    keyId: null,
    role: 'full_access',
    permissions: permissionsFor('full_access'),
    plan: 'team',
    subject: 'alice',
  });
  t.same(
    calls,
    [{ task: 'sessionScope', input: { tenantId: TENANT, appId: APP } }],
    'every environment read, the default one written',
  );

  await t.rejects(auth.authenticate(headers(token), false, (nowSec + 3600) * 1000), {
    code: 'unauthorized',
    message: 'Invalid session token: expired',
  });
  const forged = signSessionToken(
    sessionClaims({ tenantId: TENANT, appId: APP, subject: 'alice', nowSec, ttlSec: 3600 }),
    Buffer.alloc(32, 1),
  );
  await t.rejects(auth.authenticate(headers(forged), false, nowSec * 1000), {
    code: 'unauthorized',
    message: /^Invalid session token: /,
  });
  await t.rejects(auth.authenticate(headers(token, { 'x-service-app-id': OTHER_APP }), false, nowSec * 1000), {
    message: /for another app than X-Service-App-Id/,
  });
  const gone = signSessionToken(
    sessionClaims({ tenantId: TENANT, appId: OTHER_APP, subject: 'alice', nowSec, ttlSec: 3600 }),
    sessionKey,
  );
  await t.rejects(auth.authenticate(headers(gone, { 'x-service-app-id': OTHER_APP }), false, nowSec * 1000), {
    code: 'unauthorized',
    message: /no longer exists/,
  });
  t.equal(calls.length, 2, 'only verified tokens for the named app reach the store');
});

t.test('session tokens: a header names the environment to read and write', async (t) => {
  const sessionKey = deriveSessionKey(SECRET);
  const nowSec = 1_800_000_000;
  const token = signSessionToken(
    sessionClaims({ tenantId: TENANT, appId: APP, subject: 'alice', nowSec, ttlSec: 3600 }),
    sessionKey,
  );
  const { store } = fakeStore({
    sessionScope: () => ({ environmentId: 'env-prod', plan: 'team' }),
    selectEnvironment: ({ name }) => (name === 'staging' ? { id: 'env-stg', kind: 'production' } : null),
  });
  const auth = new Authenticator(store, SECRET, null, noTouchErrors(t));
  const p = await auth.authenticate(headers(token, { 'x-service-environment': 'staging' }), false, nowSec * 1000);
  t.same([p.environmentId, p.readEnvironmentId], ['env-stg', 'env-stg']);
  await t.rejects(auth.authenticate(headers(token, { 'x-service-environment': 'nope' }), false, nowSec * 1000), {
    code: 'forbidden',
    message: 'No environment "nope" in this app',
  });
});

t.test('appOf: the app of a key or session token sent without an app id', async (t) => {
  const sessionKey = deriveSessionKey(SECRET);
  const nowSec = 1_800_000_000;
  const { store, calls } = fakeStore({
    findKey: ({ keyHash }) =>
      keyHash === hashKey(SECRET, KEY)
        ? keyRecord({ environmentId: null, environmentKind: null, allowedKinds: ['preview'] })
        : null,
    touchKey: () => null,
    sessionScope: ({ appId }) => (appId === APP ? { environmentId: 'env-prod', plan: 'team' } : null),
  });
  const auth = new Authenticator(store, SECRET, null, noTouchErrors(t));
  t.same(
    await auth.appOf({ authorization: `Bearer ${KEY}` }, 1_000_000),
    { tenantId: TENANT, appId: APP },
    'a kind-scoped key too: no environment is selected',
  );
  t.same(
    calls.map((c) => c.task),
    ['findKey', 'touchKey'],
    'its use is recorded',
  );
  t.same(
    await auth.appOf({ authorization: KEY, 'x-service-app-id': OTHER_APP }, 2_000_000),
    { tenantId: TENANT, appId: APP },
    'an app id header is not read',
  );

  const token = signSessionToken(
    sessionClaims({ tenantId: TENANT, appId: APP, subject: 'alice', nowSec, ttlSec: 3600 }),
    sessionKey,
  );
  t.same(
    await auth.appOf({ authorization: `Bearer ${token}` }, nowSec * 1000),
    { tenantId: TENANT, appId: APP },
    'the app a session token names',
  );
  const gone = signSessionToken(
    sessionClaims({ tenantId: TENANT, appId: OTHER_APP, subject: 'alice', nowSec, ttlSec: 3600 }),
    sessionKey,
  );
  await t.rejects(auth.appOf({ authorization: gone }, nowSec * 1000), {
    code: 'unauthorized',
    message: /no longer exists/,
  });
  await t.rejects(auth.appOf({ authorization: token }, (nowSec + 3600) * 1000), {
    code: 'unauthorized',
    message: 'Invalid session token: expired',
  });

  await t.rejects(auth.appOf({}, 0), { code: 'unauthorized', message: 'Missing Authorization header' });
  await t.rejects(auth.appOf({ authorization: 'sk_service_unknown' }, 0), {
    code: 'unauthorized',
    message: 'Invalid API key',
  });
  await t.rejects(auth.appOf({ authorization: 'not-a-key' }, 0), { code: 'unauthorized', message: 'Invalid API key' });
});

t.test(
  'appOf: revoked, expired and run-scoped keys are refused; local mode without a key is the local app',
  async (t) => {
    const refused = async (record: KeyRecord, expected: { code: string; message: RegExp }) => {
      const { store, count } = fakeStore({ findKey: () => record, touchKey: () => null });
      await t.rejects(
        new Authenticator(store, SECRET, null, noTouchErrors(t)).appOf({ authorization: KEY }, 1_000_000),
        expected,
      );
      t.equal(count('touchKey'), 0, 'a refused key is not recorded as used');
    };
    await refused(keyRecord({ revokedAt: 5 }), { code: 'unauthorized', message: /has been revoked/ });
    await refused(keyRecord({ expiresAt: 1000 }), { code: 'unauthorized', message: /has expired/ });
    await refused(keyRecord({ role: 'custom', permissions: [], runId: 'run-1' }), {
      code: 'forbidden',
      message: /eval run run-1 and does nothing else/,
    });

    const local = { tenantId: TENANT, appId: APP, environmentId: 'env-local', plan: 'local' };
    const { store, count } = fakeStore({ findKey: () => keyRecord({ appId: OTHER_APP }), touchKey: () => null });
    const auth = new Authenticator(store, SECRET, local, noTouchErrors(t));
    t.same(await auth.appOf({}, 0), { tenantId: TENANT, appId: APP });
    t.equal(count('findKey'), 0);
    t.same(
      await auth.appOf({ authorization: KEY }, 0),
      { tenantId: TENANT, appId: OTHER_APP },
      "a key sent is still the key's app",
    );
  },
);
