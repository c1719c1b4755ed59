/**
 * Integration: environments of an app (spec: Environments) on a real server — create, list, update,
 * the typed-name delete with its key cascade, the default environment's protections, and scoping:
 * an environment of another app answers 404 unless that app is named, an unknown app is 404.
 */
import { randomUUID } from 'node:crypto';
import t from 'tap';
import { atRest } from '../helpers/atRest.js';
import { hex } from '../helpers/otlp.js';
import { call, createKey, rootCredentials, serverFor } from '../helpers/server.js';
import { clockPast } from '../helpers/until.js';
import { exportSpans } from '../helpers/exportSpans.js';

const ISO = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;

t.test('create, list and update environments', async (t) => {
  const server = await serverFor(t);
  const root = rootCredentials(server);

  const initial = await call(server, 'GET', '/v1/environments', { auth: root });
  t.equal(initial.status, 200);
  t.equal(initial.body.data.length, 1, 'a new app has one environment');
  const production = initial.body.data[0];
  t.match(production, {
    app_id: root.appId,
    name: 'production',
    kind: 'production',
    is_default: true,
    created_at: ISO,
    updated_at: ISO,
  });
  t.same(Object.keys(production).sort(), ['app_id', 'created_at', 'id', 'is_default', 'kind', 'name', 'updated_at']);

  const created = await call(server, 'POST', '/v1/environments', {
    auth: root,
    body: { name: 'staging', kind: 'preview' },
  });
  t.equal(created.status, 201);
  t.match(created.body.data, {
    id: /^[0-9a-f-]{36}$/,
    app_id: root.appId,
    name: 'staging',
    kind: 'preview',
    is_default: false,
  });
  const staging = created.body.data;

  const dup = await call(server, 'POST', '/v1/environments', {
    auth: root,
    body: { name: 'staging', kind: 'development' },
  });
  t.equal(dup.status, 409);
  t.equal(dup.body.error.code, 'conflict');
  t.match(dup.body.error.message, /staging/);
  t.equal(
    (await call(server, 'POST', '/v1/environments', { auth: root, body: { name: 'production', kind: 'production' } }))
      .status,
    409,
    'the default name is taken',
  );

  for (const [body, field] of [
    [{ name: 'Staging', kind: 'preview' }, 'name'],
    [{ name: '-x', kind: 'preview' }, 'name'],
    [{ name: 'a'.repeat(64), kind: 'preview' }, 'name'],
    [{ name: 'ok', kind: 'qa' }, 'kind'],
    [{ kind: 'preview' }, 'name'],
    [{ name: 'ok', kind: 'preview', is_default: true }, 'is_default'],
    [{ name: 'ok', kind: 'preview', app_id: 'nope' }, 'app_id'],
  ] as const) {
    const r = await call(server, 'POST', '/v1/environments', { auth: root, body });
    t.equal(r.status, 400, JSON.stringify(body));
    t.equal(r.body.error.code, 'invalid_request_body');
    t.ok(r.body.error.details[field], `details name ${field}`);
  }
  t.equal(
    (
      await call(server, 'POST', '/v1/environments', {
        auth: root,
        body: { name: 'a'.repeat(63), kind: 'development' },
      })
    ).status,
    201,
    '63 characters is the limit',
  );

  const pr = await call(server, 'POST', '/v1/environments', { auth: root, body: { name: 'pr-42', kind: 'preview' } });
  const listed = await call(server, 'GET', '/v1/environments', { auth: root });
  t.same(
    listed.body.data.map((e: { name: string }) => e.name),
    ['production', 'staging', 'a'.repeat(63), 'pr-42'],
    'default first, then by creation',
  );

  // Update: rename and change kind; updated_at moves, created_at does not.
  await clockPast(staging.updated_at);
  const renamed = await call(server, 'PATCH', `/v1/environments/${staging.id}`, {
    auth: root,
    body: { name: 'qa', kind: 'development' },
  });
  t.equal(renamed.status, 200);
  t.match(renamed.body.data, {
    id: staging.id,
    name: 'qa',
    kind: 'development',
    is_default: false,
    created_at: staging.created_at,
  });
  t.ok(renamed.body.data.updated_at > staging.updated_at, 'updated_at moves');
  t.equal(
    (
      await call(server, 'PATCH', `/v1/environments/${staging.id.toUpperCase()}`, {
        auth: root,
        body: { kind: 'preview' },
      })
    ).body.data.kind,
    'preview',
    'ids in any case',
  );
  const same = await call(server, 'PATCH', `/v1/environments/${staging.id}`, { auth: root, body: { name: 'qa' } });
  t.equal(same.status, 200, 'a patch to the current values is a no-op');

  const clash = await call(server, 'PATCH', `/v1/environments/${staging.id}`, { auth: root, body: { name: 'pr-42' } });
  t.equal(clash.status, 409, 'renaming onto a taken name');
  t.equal(clash.body.error.code, 'conflict');
  t.equal(
    (await call(server, 'PATCH', `/v1/environments/${pr.body.data.id}`, { auth: root, body: {} })).status,
    400,
    'an empty patch',
  );
  const unknownField = await call(server, 'PATCH', `/v1/environments/${pr.body.data.id}`, {
    auth: root,
    body: { is_default: true },
  });
  t.equal(unknownField.status, 400);
  t.ok(unknownField.body.error.details.is_default);

  // The default environment keeps its name and stays production.
  const toPreview = await call(server, 'PATCH', `/v1/environments/${production.id}`, {
    auth: root,
    body: { kind: 'preview' },
  });
  t.equal(toPreview.status, 409);
  t.equal(toPreview.body.error.code, 'conflict');
  t.equal(
    (await call(server, 'PATCH', `/v1/environments/${production.id}`, { auth: root, body: { name: 'prod' } })).status,
    409,
  );
  t.equal(
    (await call(server, 'PATCH', `/v1/environments/${production.id}`, { auth: root, body: { kind: 'production' } }))
      .status,
    200,
    'production stays production',
  );

  const missing = await call(server, 'PATCH', `/v1/environments/${randomUUID()}`, {
    auth: root,
    body: { kind: 'preview' },
  });
  t.equal(missing.status, 404);
  t.equal(missing.body.error.code, 'not_found');
  const badId = await call(server, 'PATCH', '/v1/environments/not-a-uuid', { auth: root, body: { kind: 'preview' } });
  t.equal(badId.status, 400);
  t.equal(badId.body.error.code, 'invalid_path_parameters');
});

t.test('another app of the tenant: named by app_id, else 404', async (t) => {
  const server = await serverFor(t);
  const root = rootCredentials(server);
  const app = await call(server, 'POST', '/v1/apps', { auth: root, body: { name: 'second' } });
  const appId: string = app.body.data.id;

  const created = await call(server, 'POST', '/v1/environments', {
    auth: root,
    body: { name: 'dev', kind: 'development', app_id: appId },
  });
  t.equal(created.status, 201);
  t.equal(created.body.data.app_id, appId);
  const env = created.body.data;

  const theirs = await call(server, 'GET', `/v1/environments?app_id=${appId}`, { auth: root });
  t.same(
    theirs.body.data.map((e: { name: string }) => e.name),
    ['production', 'dev'],
  );
  const ours = await call(server, 'GET', '/v1/environments', { auth: root });
  t.notOk(
    ours.body.data.some((e: { id: string }) => e.id === env.id),
    "not listed with the caller's app",
  );

  t.equal(
    (await call(server, 'PATCH', `/v1/environments/${env.id}`, { auth: root, body: { kind: 'preview' } })).status,
    404,
    'without app_id: 404',
  );
  t.equal(
    (await call(server, 'DELETE', `/v1/environments/${env.id}`, { auth: root, body: { confirmation_name: 'dev' } }))
      .status,
    404,
  );
  t.equal(
    (
      await call(server, 'PATCH', `/v1/environments/${env.id}`, {
        auth: root,
        body: { kind: 'preview', app_id: appId },
      })
    ).status,
    200,
    'with app_id: found',
  );

  const other = randomUUID();
  for (const r of [
    await call(server, 'GET', `/v1/environments?app_id=${other}`, { auth: root }),
    await call(server, 'POST', '/v1/environments', { auth: root, body: { name: 'x', kind: 'preview', app_id: other } }),
    await call(server, 'PATCH', `/v1/environments/${env.id}`, { auth: root, body: { kind: 'preview', app_id: other } }),
  ]) {
    t.equal(r.status, 404, 'an app that is not in the tenant');
    t.equal(r.body.error.code, 'not_found');
  }
  const badQuery = await call(server, 'GET', '/v1/environments?app_id=nope', { auth: root });
  t.equal(badQuery.status, 400);
  t.equal(badQuery.body.error.code, 'invalid_query_parameters');

  const deleted = await call(server, 'DELETE', `/v1/environments/${env.id}`, {
    auth: root,
    body: { confirmation_name: 'dev', app_id: appId },
  });
  t.equal(deleted.status, 200);
});

t.test('delete: typed-name confirmation, default refused, keys removed with it, spans kept', async (t) => {
  const server = await serverFor(t);
  const root = rootCredentials(server);
  const doomed = (
    await call(server, 'POST', '/v1/environments', { auth: root, body: { name: 'doomed', kind: 'preview' } })
  ).body.data;
  const kept = (await call(server, 'POST', '/v1/environments', { auth: root, body: { name: 'kept', kind: 'preview' } }))
    .body.data;

  const full = await createKey(server, root, { name: 'full', role: 'Full Access', environment_name: 'doomed' });
  const sdk = await createKey(server, root, { name: 'sdk', role: 'SDK', environment_name: 'doomed' });
  const revoked = await createKey(server, root, { name: 'revoked', role: 'SDK', environment_name: 'doomed' });
  t.equal((await call(server, 'DELETE', `/v1/api-keys/${revoked.id}`, { auth: root })).status, 200);
  const elsewhere = await createKey(server, root, { name: 'elsewhere', role: 'Full Access', environment_name: 'kept' });
  t.equal((await call(server, 'GET', '/v1/api-keys', { auth: full })).status, 200, 'the pinned key works before');

  const traceId = hex(16);
  const ingest = await exportSpans(server, sdk, [{ traceId, name: 'in-doomed' }]);
  t.equal(ingest.status, 200, 'a span lands in the environment');

  const wrong = await call(server, 'DELETE', `/v1/environments/${doomed.id}`, {
    auth: root,
    body: { confirmation_name: 'Doomed' },
  });
  t.equal(wrong.status, 400);
  t.equal(wrong.body.error.code, 'invalid_request_body');
  t.match(wrong.body.error.details, { confirmation_name: /doomed/ });
  const empty = await call(server, 'DELETE', `/v1/environments/${doomed.id}`, {
    auth: root,
    body: { confirmation_name: '' },
  });
  t.equal(empty.status, 400);
  const noBody = await call(server, 'DELETE', `/v1/environments/${doomed.id}`, { auth: root });
  t.equal(noBody.status, 400, 'the confirmation is required');
  t.equal(noBody.body.error.code, 'invalid_request_body');
  const missingField = await call(server, 'DELETE', `/v1/environments/${doomed.id}`, { auth: root, body: {} });
  t.ok(missingField.body.error.details.confirmation_name);
  t.equal((await call(server, 'GET', '/v1/api-keys', { auth: full })).status, 200, 'refusals change nothing');

  const [production] = (await call(server, 'GET', '/v1/environments', { auth: root })).body.data;
  const refused = await call(server, 'DELETE', `/v1/environments/${production.id}`, {
    auth: root,
    body: { confirmation_name: 'production' },
  });
  t.equal(refused.status, 409, 'the default environment cannot be deleted');
  t.equal(refused.body.error.code, 'conflict');
  t.equal(
    (
      await call(server, 'DELETE', `/v1/environments/${production.id}`, {
        auth: root,
        body: { confirmation_name: 'nope' },
      })
    ).status,
    409,
    'refused before the confirmation is judged',
  );

  const before = Date.now();
  const deleted = await call(server, 'DELETE', `/v1/environments/${doomed.id}`, {
    auth: root,
    body: { confirmation_name: 'doomed' },
  });
  t.equal(deleted.status, 200);
  t.same(
    deleted.body,
    {
      data: {
        id: doomed.id,
        deleted_at: deleted.body.data.deleted_at,
        cascade: { alerts_deleted: 0, api_keys_revoked: 3, deployments_deleted: 0, runtime_app_destroyed: false },
      },
    },
    "exactly the spec's shape; every key row of the environment counted, the revoked one too",
  );
  t.match(deleted.body.data.deleted_at, ISO);
  t.ok(Date.parse(deleted.body.data.deleted_at) >= before - 1000);

  for (const key of [full, sdk, revoked]) {
    const r = await call(server, 'GET', '/v1/api-keys', { auth: key });
    t.equal(r.status, 401, `key ${key.id} answers 401`);
    t.equal(r.body.error.code, 'unauthorized');
  }
  const left = (await call(server, 'GET', '/v1/api-keys', { auth: root })).body.data.map((k: { id: string }) => k.id);
  t.notOk(
    left.includes(full.id) || left.includes(sdk.id) || left.includes(revoked.id),
    'the keys are gone from the listing',
  );
  t.ok(left.includes(elsewhere.id));
  t.equal(
    (await call(server, 'GET', '/v1/api-keys', { auth: elsewhere })).status,
    200,
    'keys of other environments keep working',
  );
  t.same(
    (await call(server, 'GET', '/v1/environments', { auth: root })).body.data.map((e: { name: string }) => e.name),
    ['production', 'kept'],
  );
  t.equal(
    (
      await call(server, 'DELETE', `/v1/environments/${doomed.id}`, {
        auth: root,
        body: { confirmation_name: 'doomed' },
      })
    ).status,
    404,
    'a second delete',
  );
  t.equal(
    (await call(server, 'POST', '/v1/environments', { auth: root, body: { name: 'doomed', kind: 'development' } }))
      .status,
    201,
    'the name is free again',
  );

  const keptDeleted = await call(server, 'DELETE', `/v1/environments/${kept.id}`, {
    auth: root,
    body: { confirmation_name: 'kept' },
  });
  t.equal(keptDeleted.body.data.cascade.api_keys_revoked, 1);

  // Traces are immutable: the span recorded in the deleted environment is still stored.
  t.equal(await server.stop('SIGTERM'), 0);
  const rows = await atRest(server.dataDir, async (c) =>
    (
      await c.runAndReadAll('SELECT count(*)::INTEGER AS n FROM spans WHERE trace_id = $1 AND environment_id = $2', [
        traceId,
        doomed.id,
      ])
    ).getRowObjectsJson(),
  );
  t.same(rows, [{ n: 1 }], 'spans stay');
});
