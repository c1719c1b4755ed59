/** Integration: every authentication rule of the spec against a real server. */
import { randomUUID } from 'node:crypto';
import t, { type Test } from 'tap';
import { opsMetric } from '../helpers/opsMetrics.js';
import { call, createKey, rootCredentials, serverFor } from '../helpers/server.js';
import { clockPast } from '../helpers/until.js';

t.test('authentication rules', async (t) => {
  const server = await serverFor(t, { args: ['--metrics-listen', 'api'] });
  const root = rootCredentials(server);

  const expect401 = async (t: Test, headers: Record<string, string>, pattern: RegExp) => {
    const r = await call(server, 'GET', '/v1/api-keys', { headers });
    t.equal(r.status, 401, `401 for ${JSON.stringify(headers)}`);
    t.equal(r.body.error.code, 'unauthorized');
    t.match(r.body.error.message, pattern);
  };

  t.test('a missing or invalid key or app id is 401', async (t) => {
    await expect401(t, { 'x-service-app-id': root.appId }, /Missing Authorization/);
    await expect401(t, { authorization: root.key }, /Missing X-Service-App-Id/);
    await expect401(t, { authorization: root.key, 'x-service-app-id': 'not-a-uuid' }, /must be a UUID/);
    await expect401(
      t,
      { authorization: 'sk_service_' + 'x'.repeat(43), 'x-service-app-id': root.appId },
      /Invalid API key/,
    );
    await expect401(t, { authorization: 'Bearer not-a-key', 'x-service-app-id': root.appId }, /Invalid API key/);
    // A valid key naming an app it does not belong to.
    await expect401(t, { authorization: root.key, 'x-service-app-id': randomUUID() }, /does not belong/);
    // Both app id headers, disagreeing.
    await expect401(
      t,
      { authorization: root.key, 'x-service-app-id': root.appId, 'x-partner-app-id': randomUUID() },
      /different apps/,
    );
  });

  t.test('Bearer is optional and both app id headers are accepted', async (t) => {
    for (const authorization of [`Bearer ${root.key}`, root.key, `bearer ${root.key}`]) {
      for (const header of ['x-service-app-id', 'x-partner-app-id']) {
        const r = await call(server, 'GET', '/v1/api-keys', { headers: { authorization, [header]: root.appId } });
        t.equal(r.status, 200, `${authorization.slice(0, 7)}… with ${header}`);
      }
    }
    const both = await call(server, 'GET', '/v1/api-keys', {
      headers: {
        authorization: root.key,
        'x-service-app-id': root.appId,
        'x-partner-app-id': root.appId.toUpperCase(),
      },
    });
    t.equal(both.status, 200, 'both headers naming the same app');
  });

  t.test('role presets carry exactly their permissions, and admin endpoints need Full Access', async (t) => {
    const sdk = await createKey(server, root, { name: 'sdk', role: 'SDK' });
    t.same(sdk.answer.body.data.permissions, ['trace.write', 'score.write', 'template.read']);
    const ro = await createKey(server, root, { name: 'ro', role: 'Read-Only' });
    t.same(ro.answer.body.data.permissions, [
      'trace.read',
      'span.read',
      'session.read',
      'score.read',
      'score_config.read',
      'metrics.read',
      'experiment.read',
      'template.read',
    ]);
    const custom = await createKey(server, root, { name: 'custom', permissions: ['score.read', 'trace.read'] });
    t.same(custom.answer.body.data.permissions, ['trace.read', 'score.read'], 'custom keeps exactly the listed ones');
    t.equal(custom.answer.body.data.role, 'custom');

    for (const key of [sdk, ro, custom]) {
      const r = await call(server, 'GET', '/v1/api-keys', { auth: key });
      t.equal(r.status, 403);
      t.equal(r.body.error.code, 'forbidden');
      t.equal(r.body.error.required_permission, 'full_access');
      t.match(r.body.error.message, /full_access/);
    }
    // A permission-gated endpoint: whoami needs trace.read and exists locally only, so on the cloud
    // it is refused by surface before auth; permission names are checked in the local-mode test.
  });

  t.test('keys are pinned to an environment', async (t) => {
    const k = await createKey(server, root, { name: 'pinned', role: 'SDK', environment_name: 'production' });
    t.match(k.answer.body.data.environment_id, /^[0-9a-f-]{36}$/);
    t.equal(k.answer.body.data.environment_name, 'production');
    const missing = await call(server, 'POST', '/v1/api-keys', {
      auth: root,
      body: { name: 'x', role: 'SDK', environment_name: 'staging' },
    });
    t.equal(missing.status, 404);
    t.equal(missing.body.error.code, 'not_found');
  });

  t.test('a revoked key is refused on the very next request', async (t) => {
    const k = await createKey(server, root, { name: 'to-revoke', role: 'Full Access' });
    t.equal(
      (await call(server, 'GET', '/v1/api-keys', { auth: k })).status,
      200,
      'works before revocation (and is cached)',
    );
    const revoked = await call(server, 'DELETE', `/v1/api-keys/${k.id}`, { auth: root });
    t.equal(revoked.status, 200);
    t.match(revoked.body.data.revoked_at, /^\d{4}-\d\d-\d\dT/);
    const after = await call(server, 'GET', '/v1/api-keys', { auth: k });
    t.equal(after.status, 401);
    t.match(after.body.error.message, /revoked/);
    const again = await call(server, 'DELETE', `/v1/api-keys/${randomUUID()}`, { auth: root });
    t.equal(again.status, 404, 'revoking an unknown key is 404');
  });

  t.test('requests that arrive together with a key not yet cached look it up once', async (t) => {
    const k = await createKey(server, root, { name: 'together', role: 'Full Access' });
    const lookups = () =>
      opsMetric(server, 'tracelake_store_task_duration_seconds_count{task="findKey",outcome="ok"}', 0);
    const before = await lookups();
    const answers = await Promise.all(
      Array.from({ length: 20 }, () => call(server, 'GET', '/v1/api-keys', { auth: k })),
    );
    t.same(
      answers.map((a) => a.status),
      Array(20).fill(200),
    );
    t.equal((await lookups()) - before, 1, 'one lookup served the twenty requests');
  });

  t.test('an expired key is refused', async (t) => {
    // A key that lives long enough for its creation and one request: a quarter second, doubled
    // each time a busy machine took longer than that (the key was born expired, or died before the request).
    let k: Awaited<ReturnType<typeof createKey>> | undefined;
    let expiresAt = '';
    for (let lifeMs = 250; lifeMs <= 16_000 && k === undefined; lifeMs *= 2) {
      expiresAt = new Date(Date.now() + lifeMs).toISOString();
      const made = await createKey(server, root, {
        name: `short-lived-${lifeMs}`,
        role: 'Full Access',
        expires_at: expiresAt,
      }).catch(() => undefined);
      if (made && (await call(server, 'GET', '/v1/api-keys', { auth: made })).status === 200) k = made;
    }
    if (!k) return void t.fail('no key lived long enough for one request');
    t.equal(k.answer.body.data.expires_at, expiresAt);
    t.pass('valid before expiry');
    await clockPast(expiresAt);
    const after = await call(server, 'GET', '/v1/api-keys', { auth: k });
    t.equal(after.status, 401);
    t.match(after.body.error.message, /expired/);
    const past = await call(server, 'POST', '/v1/api-keys', {
      auth: root,
      body: { name: 'x', role: 'SDK', expires_at: '2020-01-01T00:00:00Z' },
    });
    t.equal(past.status, 400);
    t.same(past.body.error.details, { expires_at: 'must be in the future' });
  });

  t.test('the plaintext key is shown once; listings show metadata only', async (t) => {
    const k = await createKey(server, root, { name: 'once', role: 'SDK' });
    t.match(k.key, /^sk_service_[0-9A-Za-z]{43}$/);
    t.equal(k.answer.body.data.key_prefix, k.key.slice(0, 12));
    const list = await call(server, 'GET', '/v1/api-keys', { auth: root });
    t.notOk(list.text.includes(k.key), 'the listing does not contain the plaintext');
    t.notOk(list.body.data.some((x: Record<string, unknown>) => 'plaintext_key' in x));
    const listed = list.body.data.find((x: { id: string }) => x.id === k.id);
    t.equal(listed.name, 'once');
    t.equal(listed.revoked_at, null);
  });
});
