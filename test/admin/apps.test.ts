/**
 * Integration: app updates and deletes (spec: Apps) on a real server — fields, `updated_by` and
 * `updated_at`, validation, the cascade of a delete to environments and keys, refusing to delete the
 * caller's own app, and 404 for apps that are not in the tenant.
 */
import { randomUUID } from 'node:crypto';
import t from 'tap';
import { call, createKey, rootCredentials, serverFor } from '../helpers/server.js';
import { clockPast } from '../helpers/until.js';

t.test('update an app', async (t) => {
  const server = await serverFor(t);
  const root = rootCredentials(server);
  const rootKeyId = (await call(server, 'GET', '/v1/api-keys', { auth: root })).body.data[0].id;
  const before = (await call(server, 'GET', `/v1/apps/${root.appId}`, { auth: root })).body.data;

  await clockPast(before.updated_at);
  const sha = 'ABCDEF0123456789abcdef0123456789ABCDEF01';
  const patched = await call(server, 'PATCH', `/v1/apps/${root.appId}`, {
    auth: root,
    body: { display_name: 'Checkout', entry_point: 'src/index.ts', runtime: 'python', commit_sha: sha },
  });
  t.equal(patched.status, 200);
  t.match(patched.body.data, {
    id: root.appId,
    name: before.name,
    display_name: 'Checkout',
    entry_point: 'src/index.ts',
    runtime: 'python',
    commit_sha: sha.toLowerCase(),
    created_at: before.created_at,
    created_by: before.created_by,
    updated_by: `key:${rootKeyId}`,
  });
  t.ok(patched.body.data.updated_at > before.updated_at, 'updated_at moves');
  t.same(
    (await call(server, 'GET', `/v1/apps/${root.appId}`, { auth: root })).body.data,
    patched.body.data,
    'a read shows the update',
  );

  const cleared = await call(server, 'PATCH', `/v1/apps/${root.appId}`, {
    auth: root,
    body: { display_name: null, commit_sha: null },
  });
  t.match(
    cleared.body.data,
    { display_name: null, commit_sha: null, entry_point: 'src/index.ts', runtime: 'python' },
    'null clears; others stay',
  );

  for (const [body, field] of [
    [{}, 'body'],
    [{ runtime: null }, 'runtime'],
    [{ runtime: '' }, 'runtime'],
    [{ commit_sha: 'xyz1234' }, 'commit_sha'],
    [{ commit_sha: 'abc12' }, 'commit_sha'],
    [{ name: 'renamed' }, 'name'],
    [{ display_name: 'x'.repeat(129) }, 'display_name'],
  ] as const) {
    const r = await call(server, 'PATCH', `/v1/apps/${root.appId}`, { auth: root, body });
    t.equal(r.status, 400, JSON.stringify(body));
    t.equal(r.body.error.code, 'invalid_request_body');
    t.ok(r.body.error.details[field], `details name ${field}`);
  }

  const other = await call(server, 'POST', '/v1/apps', { auth: root, body: { name: 'other' } });
  const theirs = await call(server, 'PATCH', `/v1/apps/${other.body.data.id}`, {
    auth: root,
    body: { entry_point: 'main.py' },
  });
  t.equal(theirs.status, 200, 'an admin of the tenant updates its other apps');
  t.equal(theirs.body.data.entry_point, 'main.py');

  const missing = await call(server, 'PATCH', `/v1/apps/${randomUUID()}`, { auth: root, body: { runtime: 'go' } });
  t.equal(missing.status, 404);
  t.equal(missing.body.error.code, 'not_found');
  t.equal((await call(server, 'PATCH', '/v1/apps/nope', { auth: root, body: { runtime: 'go' } })).status, 400);
});

t.test('delete an app with its environments and keys', async (t) => {
  const server = await serverFor(t);
  const root = rootCredentials(server);
  const own = await call(server, 'DELETE', `/v1/apps/${root.appId}`, { auth: root });
  t.equal(own.status, 409, 'not with its own credentials');
  t.equal(own.body.error.code, 'conflict');

  const app = (await call(server, 'POST', '/v1/apps', { auth: root, body: { name: 'doomed' } })).body.data;
  await call(server, 'POST', '/v1/environments', {
    auth: root,
    body: { name: 'staging', kind: 'preview', app_id: app.id },
  });
  const theirKeys = [
    await createKey(server, root, { name: 'a', role: 'Full Access', app_id: app.id }),
    await createKey(server, root, { name: 'b', role: 'SDK', app_id: app.id, environment_name: 'staging' }),
  ].map((k) => ({ ...k, appId: app.id as string }));
  t.equal((await call(server, 'GET', '/v1/api-keys', { auth: theirKeys[0]! })).status, 200, 'their key works before');

  const wrong = await call(server, 'DELETE', `/v1/apps/${app.id}`, {
    auth: root,
    body: { confirmation_name: 'other' },
  });
  t.equal(wrong.status, 400, 'a confirmation, when sent, must be the name');
  t.match(wrong.body.error.details, { confirmation_name: /doomed/ });
  t.equal(
    (await call(server, 'DELETE', `/v1/apps/${app.id}`, { auth: root, body: { confirmation: 'doomed' } })).status,
    400,
    'unknown fields',
  );

  const deleted = await call(server, 'DELETE', `/v1/apps/${app.id}`, {
    auth: root,
    body: { confirmation_name: 'doomed' },
  });
  t.equal(deleted.status, 200);
  t.same(deleted.body.data.cascade, {
    alerts_deleted: 0,
    api_keys_revoked: 2,
    deployments_deleted: 0,
    runtime_app_destroyed: false,
    environments_deleted: 2,
  });
  t.equal(deleted.body.data.id, app.id);
  t.match(deleted.body.data.deleted_at, /Z$/);
  for (const key of theirKeys)
    t.equal((await call(server, 'GET', '/v1/api-keys', { auth: key })).status, 401, 'its keys answer 401');
  t.equal((await call(server, 'GET', `/v1/apps/${app.id}`, { auth: root })).status, 404);
  t.equal((await call(server, 'GET', `/v1/environments?app_id=${app.id}`, { auth: root })).status, 404);
  t.equal((await call(server, 'DELETE', `/v1/apps/${app.id}`, { auth: root })).status, 404, 'a second delete');
  t.equal(
    (await call(server, 'POST', '/v1/apps', { auth: root, body: { name: 'doomed' } })).status,
    201,
    'the name is free again',
  );

  const quiet = (await call(server, 'POST', '/v1/apps', { auth: root, body: { name: 'no-body' } })).body.data;
  const noBody = await call(server, 'DELETE', `/v1/apps/${quiet.id}`, { auth: root });
  t.equal(noBody.status, 200, 'the body is optional');
  t.same(noBody.body.data.cascade, {
    alerts_deleted: 0,
    api_keys_revoked: 0,
    deployments_deleted: 0,
    runtime_app_destroyed: false,
    environments_deleted: 1,
  });
  t.equal((await call(server, 'DELETE', `/v1/apps/${randomUUID()}`, { auth: root })).status, 404);
  t.equal((await call(server, 'GET', '/v1/api-keys', { auth: root })).status, 200, 'the caller is untouched');
});
