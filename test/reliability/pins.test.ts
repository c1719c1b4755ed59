/**
 * Environment pins inside one app are a boundary (issue 10, defect 8): a staging-pinned admin
 * manages staging keys only; a trace or span id reused in another environment is another trace
 * (neither dropped as a duplicate nor counted against the other's per-trace bound); a blob is read
 * through the pin of the spans that name it. A development pin, with no kinds below it, lists and
 * revokes its keys (issue 53, item 10). A trace id reused by a lower environment does not stand in
 * for production's, in reads or scores (item 9).
 */
import { createHash } from 'node:crypto';
import t from 'tap';
import { exportRequest, hex } from '../helpers/otlp.js';
import { call, createKey, rootCredentials, serverFor, type Credentials, type TestServer } from '../helpers/server.js';
import { devEnvironment, devWithAdmin } from '../helpers/environments.js';

async function withStaging(
  server: TestServer,
): Promise<{ root: Credentials; prod: Credentials; staging: Credentials; stagingAdmin: Credentials & { id: string } }> {
  const root = rootCredentials(server);
  t.equal(
    (await call(server, 'POST', '/v1/environments', { auth: root, body: { name: 'staging', kind: 'preview' } })).status,
    201,
  );
  const permissions = ['trace.write', 'trace.read', 'span.read'];
  const prod = await createKey(server, root, { name: 'prod', permissions, environment_name: 'production' });
  const staging = await createKey(server, root, { name: 'staging', permissions, environment_name: 'staging' });
  const stagingAdmin = await createKey(server, root, {
    name: 'staging-admin',
    role: 'Full Access',
    environment_name: 'staging',
  });
  return { root, prod, staging, stagingAdmin };
}

function ingest(server: TestServer, auth: Credentials, body: unknown) {
  return call(server, 'POST', '/v1/traces', {
    rawBody: JSON.stringify(body),
    headers: { authorization: auth.key, 'x-service-app-id': auth.appId, 'content-type': 'application/json' },
  });
}

t.test('a staging-pinned admin manages staging keys only', async (t) => {
  const server = await serverFor(t);
  const { root, stagingAdmin } = await withStaging(server);

  const mintProd = await call(server, 'POST', '/v1/api-keys', {
    auth: stagingAdmin,
    body: { name: 'escalate', role: 'Full Access', environment_name: 'production' },
  });
  t.equal(mintProd.status, 403, 'it cannot mint a production key');
  t.equal(mintProd.body.error.code, 'forbidden');
  const mintOwn = await call(server, 'POST', '/v1/api-keys', {
    auth: stagingAdmin,
    body: { name: 'own', role: 'SDK' },
  });
  t.equal(mintOwn.status, 201, 'it mints staging keys');
  t.equal(mintOwn.body.data.environment_name, 'staging', 'its keys default to its environment');

  const listed = await call(server, 'GET', '/v1/api-keys', { auth: stagingAdmin });
  t.equal(listed.status, 200);
  t.same(
    [...new Set(listed.body.data.map((k: { environment_name?: string }) => k.environment_name))],
    ['staging'],
    'it lists staging keys only',
  );

  const rootKeys = (await call(server, 'GET', '/v1/api-keys', { auth: root })).body.data as {
    id: string;
    name: string;
  }[];
  const bootstrap = rootKeys.find((k) => k.name === 'bootstrap')!;
  const revoke = await call(server, 'DELETE', `/v1/api-keys/${bootstrap.id}`, { auth: stagingAdmin });
  t.equal(revoke.status, 404, 'it cannot revoke the production bootstrap key (not one of its keys)');
  t.equal((await call(server, 'GET', '/v1/api-keys', { auth: root })).status, 200, 'the bootstrap key still works');

  const otherApp = (await call(server, 'POST', '/v1/apps', { auth: root, body: { name: 'other' } })).body.data;
  const crossApp = await call(server, 'POST', '/v1/api-keys', {
    auth: stagingAdmin,
    body: { name: 'x', role: 'SDK', app_id: otherApp.id },
  });
  t.equal(crossApp.status, 403, 'nor act on another app of the tenant');
  t.equal((await call(server, 'GET', `/v1/api-keys?app_id=${otherApp.id}`, { auth: stagingAdmin })).status, 403);

  // The production-pinned bootstrap key is the tenant's admin: every environment, every app.
  t.equal(
    (await call(server, 'DELETE', `/v1/api-keys/${stagingAdmin.id}`, { auth: root })).status,
    200,
    'the production admin revokes a staging key',
  );
  const forOther = await call(server, 'POST', '/v1/api-keys', {
    auth: root,
    body: { name: 'o', role: 'SDK', app_id: otherApp.id },
  });
  t.equal(forOther.status, 201, 'and mints keys for another app');
  const otherKeys = await call(server, 'GET', `/v1/api-keys?app_id=${otherApp.id}`, { auth: root });
  t.same(
    otherKeys.body.data.map((k: { id: string }) => k.id),
    [forOther.body.data.id],
    'which it then lists',
  );
  t.equal(
    (await call(server, 'DELETE', `/v1/api-keys/${forOther.body.data.id}?app_id=${otherApp.id}`, { auth: root }))
      .status,
    200,
    'and revokes',
  );
});

t.test('a development-pinned admin lists and revokes its own keys (no kinds below it)', async (t) => {
  const server = await serverFor(t);
  const root = rootCredentials(server);
  const { devAdmin } = await devWithAdmin(t, server, root);
  const minted = await call(server, 'POST', '/v1/api-keys', { auth: devAdmin, body: { name: 'dev-sdk', role: 'SDK' } });
  t.equal(minted.status, 201);

  const listed = await call(server, 'GET', '/v1/api-keys', { auth: devAdmin });
  t.equal(listed.status, 200, 'the list answers');
  t.same(
    listed.body.data.map((k: { name: string }) => k.name).sort(),
    ['dev-admin', 'dev-sdk'],
    'with the development keys only',
  );
  const revoked = await call(server, 'DELETE', `/v1/api-keys/${minted.body.data.id}`, { auth: devAdmin });
  t.equal(revoked.status, 200, 'it revokes its own key');
  const rootKeys = (await call(server, 'GET', '/v1/api-keys', { auth: root })).body.data as {
    id: string;
    name: string;
  }[];
  const bootstrap = rootKeys.find((k) => k.name === 'bootstrap')!;
  t.equal(
    (await call(server, 'DELETE', `/v1/api-keys/${bootstrap.id}`, { auth: devAdmin })).status,
    404,
    'but not a production key',
  );
});

t.test('a trace and span id reused in another environment is another trace, not a duplicate', async (t) => {
  const server = await serverFor(t, { args: ['--max-spans-per-trace', '3'] });
  const { prod, staging } = await withStaging(server);
  const traceId = hex(16);
  const spanIds = [hex(8), hex(8), hex(8)];
  const spans = spanIds.map((spanId, i) => ({ traceId, spanId, name: `step-${i}` }));

  const first = await ingest(server, staging, exportRequest(spans, 'staging-service'));
  t.equal(first.status, 200);
  t.same(first.body, {}, 'staging takes its three spans');
  // The same ids in production: neither dropped as duplicates nor refused by staging's bound.
  const second = await ingest(server, prod, exportRequest(spans, 'prod-service'));
  t.equal(second.status, 200);
  t.same(second.body, {}, 'production takes the same ids: no partial success');

  for (const [key, service] of [
    [prod, 'prod-service'],
    [staging, 'staging-service'],
  ] as const) {
    const trace = await call(server, 'GET', `/v1/traces/${traceId}`, { auth: key });
    t.equal(trace.status, 200);
    t.equal(trace.body.data.span_count, 3, `${service}: its own three spans`);
    t.same(
      trace.body.data.spans.map((s: { service_name: string }) => s.service_name),
      [service, service, service],
    );
  }
  // And the bound is per environment: a fourth span in production is over production's bound only.
  const over = await ingest(server, prod, exportRequest([{ traceId, name: 'fourth' }]));
  t.equal(
    over.body.partialSuccess?.rejectedSpans,
    '1',
    'production has reached its own bound (OTLP/JSON writes int64 as text)',
  );
});

t.test(
  'a dev key reusing a production trace id: admins read production, name the environment, score production',
  async (t) => {
    const server = await serverFor(t);
    const root = rootCredentials(server);
    await devEnvironment(t, server, root);
    const environments = (await call(server, 'GET', '/v1/environments', { auth: root })).body.data as {
      id: string;
      name: string;
    }[];
    const envId = (name: string) => environments.find((e) => e.name === name)!.id;
    const prodSdk = await createKey(server, root, { name: 'prod-sdk', role: 'SDK', environment_name: 'production' });
    const devSdk = await createKey(server, root, { name: 'dev-sdk', role: 'SDK', environment_name: 'dev' });
    const traceId = hex(16);
    const [prodSpan, devSpan] = [hex(8), hex(8)];
    t.equal(
      (await ingest(server, prodSdk, exportRequest([{ traceId, spanId: prodSpan, name: 'checkout' }]))).status,
      200,
    );
    // Later, so that "the trace that started last" would pick it.
    t.equal((await ingest(server, devSdk, exportRequest([{ traceId, spanId: devSpan, name: 'forged' }]))).status, 200);

    const names = (spans: { name: string }[]) => spans.map((s) => s.name);
    const trace = await call(server, 'GET', `/v1/traces/${traceId}`, { auth: root });
    t.equal(trace.status, 200);
    t.match(
      trace.body.data,
      { environment_id: envId('production'), environment: 'production' },
      'production is preferred, and named',
    );
    t.same(names(trace.body.data.spans), ['checkout']);
    const spans = await call(server, 'GET', `/v1/traces/${traceId}/spans`, { auth: root });
    t.same(names(spans.body.data), ['checkout'], 'so are its spans');
    const graph = await call(server, 'GET', `/v1/traces/${traceId}/graph`, { auth: root });
    t.equal(graph.status, 200);

    const dev = await call(server, 'GET', `/v1/traces/${traceId}?environment=dev`, { auth: root });
    t.match(dev.body.data, { environment_id: envId('dev'), environment: 'dev' }, '?environment= reads the other');
    t.same(names(dev.body.data.spans), ['forged']);
    for (const path of [
      `/v1/traces/${traceId}/spans?environment=dev`,
      `/v1/traces/${traceId}/graph?environment=dev`,
      `/v1/traces/${traceId}/spans/${devSpan}?environment=dev`,
      `/v1/spans/${devSpan}?environment=dev`,
    ])
      t.equal((await call(server, 'GET', path, { auth: root })).status, 200, path);
    t.equal(
      (await call(server, 'GET', `/v1/traces/${traceId}/spans/${devSpan}?environment=production`, { auth: root }))
        .status,
      404,
      "the dev span is not production's",
    );
    const unknown = await call(server, 'GET', `/v1/traces/${traceId}?environment=nowhere`, { auth: root });
    t.equal(unknown.status, 400, 'an environment the app lacks is a mistake');
    t.equal(unknown.body.error.code, 'invalid_query_parameters');

    const score = await call(server, 'POST', '/v1/scores', {
      auth: root,
      body: { name: 'quality', resource_id: traceId, score: 1 },
    });
    t.equal(score.status, 201);
    t.equal(score.body.data.environment_id, envId('production'), "the admin's score lands in production");
    const devScore = await call(server, 'POST', '/v1/scores', {
      auth: devSdk,
      body: { name: 'quality', resource_id: traceId, score: 0 },
    });
    t.equal(devScore.body.data.environment_id, envId('dev'), "the dev key's in dev");
  },
);

t.test('trace lists by session and run, and the session list, name one environment with ?environment=', async (t) => {
  const server = await serverFor(t);
  const root = rootCredentials(server);
  await devEnvironment(t, server, root);
  const prodSdk = await createKey(server, root, { name: 'prod-sdk', role: 'SDK', environment_name: 'production' });
  const devSdk = await createKey(server, root, { name: 'dev-sdk', role: 'SDK', environment_name: 'dev' });
  const attributes = { 'session.id': 'shared-session', 'tracelake.run.id': 'shared-run' };
  const [prodTrace, devTrace] = [hex(16), hex(16)];
  t.equal((await ingest(server, prodSdk, exportRequest([{ traceId: prodTrace, attributes }]))).status, 200);
  t.equal((await ingest(server, devSdk, exportRequest([{ traceId: devTrace, attributes }]))).status, 200);
  const ids = async (path: string) => {
    const r = await call(server, 'GET', path, { auth: root });
    t.equal(r.status, 200, path);
    return (r.body.data as { id: string }[]).map((x) => x.id).sort();
  };
  for (const list of ['/v1/sessions/shared-session/traces', '/v1/runs/shared-run/traces']) {
    t.same(await ids(list), [prodTrace, devTrace].sort(), `${list}: an admin reads every environment`);
    t.same(await ids(`${list}?environment=dev`), [devTrace], `${list}?environment=dev: the dev trace only`);
    t.same(await ids(`${list}?environment=production`), [prodTrace], `${list}?environment=production`);
  }
  const sessions = await call(server, 'GET', '/v1/sessions?environment=dev', { auth: root });
  t.equal(sessions.status, 200);
  t.same(
    (sessions.body.data as { id: string; trace_count: number }[]).map((x) => [x.id, x.trace_count]),
    [['shared-session', 1]],
    'the session list counts the named environment only',
  );
  const devRead = await call(server, 'GET', '/v1/runs/shared-run/traces?environment=production', { auth: devSdk });
  t.equal(devRead.status, 403, 'a dev key names no other environment');
  const unknown = await call(server, 'GET', '/v1/sessions?environment=nowhere', { auth: root });
  t.equal(unknown.status, 400, 'an environment the app lacks is a mistake');
});

t.test('a blob is read through the pin of the spans that name it', async (t) => {
  const server = await serverFor(t);
  const { root, prod, staging } = await withStaging(server);
  const png = Buffer.from('89504e470d0a1a0a0000000d49484452deadbeef', 'hex');
  const media = JSON.stringify({
    role: 'assistant',
    content: [{ type: 'image', mimeType: 'image/png', base64: png.toString('base64') }],
  });
  const traceId = hex(16);
  const spanId = hex(8);
  t.equal(
    (await ingest(server, staging, exportRequest([{ traceId, spanId, attributes: { 'output.value': media } }]))).status,
    200,
  );
  const span = await call(server, 'GET', `/v1/traces/${traceId}/spans/${spanId}`, { auth: staging });
  t.equal(
    JSON.parse(span.body.data.output).content[0].base64,
    png.toString('base64'),
    'the opened span has its media inline',
  );
  const sha = createHash('sha256').update(png).digest('hex');

  const read = (auth: Credentials) =>
    fetch(`${server.url}/v1/agents/blob/${sha}`, {
      headers: { authorization: auth.key, 'x-service-app-id': auth.appId },
    });
  const own = await read(staging);
  t.equal(own.status, 200, 'staging reads its blob');
  t.same(Buffer.from(await own.arrayBuffer()), png);
  t.equal((await read(prod)).status, 404, 'production does not, though the app is the same');
  t.equal(
    (await read(root)).status,
    200,
    "the tenant admin's key reads every environment's blobs (it reads their spans)",
  );
});
