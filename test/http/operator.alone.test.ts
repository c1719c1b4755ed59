/**
 * Integration: the operator API (/v1/operator/*) on a running server. It exists only with an
 * operator token configured; only that token opens it (every operator route of the table is walked
 * with tenant credentials and wrong tokens), and the token opens nothing else. Through it, tenants,
 * plans, apps, environments, pinned and kind-scoped keys and session tokens are made and work at
 * once, plan changes and revocations included; bad requests are 400 in the spec's shape and a
 * refused request changes nothing.
 */
import { randomUUID } from 'node:crypto';
import { realpathSync } from 'node:fs';
import t, { type Test } from 'tap';
import { allRoutes } from '../../src/http/routeTable.js';
import { exportRequest, hex } from '../helpers/otlp.js';
import { call, rootCredentials, serverFor, type Answer, type Credentials, type TestServer } from '../helpers/server.js';

const TOKEN = `op-${hex(24)}`;
const OPERATOR = { env: { TRACELAKE_OPERATOR_TOKEN: TOKEN } };

/** A call to the operator API with `token` (default: the server's). */
function op(
  server: TestServer,
  method: string,
  path: string,
  body?: unknown,
  token: string | null = TOKEN,
): Promise<Answer> {
  return call(server, method, path, { body, headers: token === null ? {} : { authorization: `Bearer ${token}` } });
}

const show = (r: Answer) => `${r.status} ${r.text.slice(0, 300)}`;

async function ok(t: Test, answer: Promise<Answer>, status = 200): Promise<any> {
  const r = await answer;
  t.equal(r.status, status, show(r));
  return r.body?.data;
}

t.test('without an operator token the operator API is not there', async (t) => {
  const server = await serverFor(t);
  for (const token of [null, TOKEN]) {
    const r = await op(server, 'GET', '/v1/operator/tenants', undefined, token);
    t.equal(r.status, 404, show(r));
    t.equal(r.body.error.code, 'not_found');
  }
  t.equal((await op(server, 'POST', '/v1/operator/tenants', { name: 'acme' })).status, 404);
});

t.test('only the operator token opens the operator API, and it opens nothing else', async (t) => {
  const server = await serverFor(t, OPERATOR);
  const root = rootCredentials(server);
  const tenantId = server.bootstrap!.tenant_id as string;
  const token = await ok(
    t,
    op(server, 'POST', '/v1/operator/tokens', { tenant_id: tenantId, app_id: root.appId, subject: 'ops@example.com' }),
    201,
  );
  const before = await ok(t, op(server, 'GET', '/v1/operator/tenants'));

  const refused: [string, Record<string, string>][] = [
    ['no credentials', {}],
    ['the bootstrap Full Access key', { authorization: `Bearer ${root.key}`, 'x-service-app-id': root.appId }],
    ['a session token', { authorization: `Bearer ${token.token}`, 'x-service-app-id': root.appId }],
    ['another token', { authorization: `Bearer op-${hex(24)}` }],
    ['the token with a character more', { authorization: `Bearer ${TOKEN}x` }],
    ['a prefix of the token', { authorization: `Bearer ${TOKEN.slice(0, -1)}` }],
  ];
  // Every operator route of the table, so that a new one cannot skip this.
  const routes = allRoutes(Buffer.alloc(32), { faultInjection: false, operatorToken: TOKEN }).filter(
    (r) => r.permission === 'operator',
  );
  t.ok(routes.length >= 12, `${routes.length} operator routes`);
  for (const route of routes) {
    const path = route.path.replace(':tenant', tenantId).replace(':app', root.appId).replace(':id', randomUUID());
    for (const [who, headers] of refused) {
      const r = await call(server, route.method, path, {
        headers,
        ...(route.method === 'POST' || route.method === 'PATCH' ? { body: { name: 'intruder', plan: 'team' } } : {}),
      });
      t.equal(r.status, 401, `${route.method} ${route.path}, ${who}: ${show(r)}`);
      t.equal(r.body?.error?.code, 'unauthorized');
    }
  }
  t.same(await ok(t, op(server, 'GET', '/v1/operator/tenants')), before, 'nothing changed');

  for (const [what, headers] of [
    ['Bearer', { authorization: `Bearer ${TOKEN}`, 'x-service-app-id': root.appId }],
    ['raw', { authorization: TOKEN, 'x-service-app-id': root.appId }],
  ] as const) {
    const r = await call(server, 'GET', '/v1/api-keys', { headers });
    t.equal(r.status, 401, `the operator token (${what}) is no API key: ${show(r)}`);
  }
  const ingest = await call(server, 'POST', '/v1/traces', {
    body: exportRequest([{ traceId: hex(16), name: 'x' }]),
    headers: { authorization: TOKEN, 'x-service-app-id': root.appId },
  });
  t.equal(ingest.status, 401, 'nor an ingestion key');
});

t.test('tenants, plans, apps, environments, keys and session tokens on the running server', async (t) => {
  const server = await serverFor(t, OPERATOR);
  const who = await ok(t, op(server, 'GET', '/v1/operator/server'));
  t.match(who, { data_dir: realpathSync(server.dataDir), version: /\d/, pid: Number });

  const acme = await ok(t, op(server, 'POST', '/v1/operator/tenants', { name: 'acme' }), 201);
  t.match(acme, {
    tenant_id: /^[0-9a-f-]{36}$/,
    name: 'acme',
    plan: 'self_hosted',
    app_id: /^[0-9a-f-]{36}$/,
    environment_id: /^[0-9a-f-]{36}$/,
  });
  const globex = await ok(t, op(server, 'POST', '/v1/operator/tenants', { name: 'globex', plan: 'free' }), 201);
  t.equal(globex.plan, 'free');
  const dup = await op(server, 'POST', '/v1/operator/tenants', { name: 'acme' });
  t.equal(dup.status, 409, 'tenant names are unique');
  t.match(dup.body.error, { code: 'conflict', message: /already exists/ });
  t.same(
    (await ok(t, op(server, 'GET', '/v1/operator/tenants'))).map((x: { name: string }) => x.name).slice(1),
    ['acme', 'globex'],
    'after the bootstrap tenant',
  );

  const web = await ok(
    t,
    op(server, 'POST', `/v1/operator/tenants/${acme.tenant_id}/apps`, { name: 'web', display_name: 'Web shop' }),
    201,
  );
  t.match(web, {
    tenant_id: acme.tenant_id,
    name: 'web',
    display_name: 'Web shop',
    runtime: 'nodejs',
    created_by: 'operator',
  });
  t.same(
    (await ok(t, op(server, 'GET', `/v1/operator/tenants/${acme.tenant_id}/apps`))).map(
      (a: { name: string }) => a.name,
    ),
    ['default', 'web'],
  );
  const staging = await ok(
    t,
    op(server, 'POST', `/v1/operator/apps/${web.id}/environments`, { name: 'staging', kind: 'preview' }),
    201,
  );
  t.match(staging, { app_id: web.id, name: 'staging', kind: 'preview' });
  t.same(
    (await ok(t, op(server, 'GET', `/v1/operator/apps/${web.id}/environments`))).map((e: { name: string }) => e.name),
    ['production', 'staging'],
  );

  // Keys work at once: pinned, custom, kind-scoped.
  const admin = await ok(
    t,
    op(server, 'POST', `/v1/operator/apps/${acme.app_id}/keys`, {
      name: 'admin',
      role: 'full-access',
      environment: 'production',
    }),
    201,
  );
  t.match(admin, {
    role: 'full_access',
    environment_name: 'production',
    allowed_kinds: null,
    plaintext_key: /^sk_service_/,
  });
  const acmeAdmin: Credentials = { key: admin.plaintext_key, appId: acme.app_id };
  t.equal((await call(server, 'GET', '/v1/api-keys', { auth: acmeAdmin })).status, 200, 'a pinned Full Access key');
  const ci = await ok(
    t,
    op(server, 'POST', `/v1/operator/apps/${web.id}/keys`, {
      name: 'ci',
      permissions: ['trace.write', 'score.write'],
      environment: 'staging',
      expires_at: '2099-01-01T00:00:00Z',
    }),
    201,
  );
  t.match(ci, {
    role: 'custom',
    permissions: ['trace.write', 'score.write'],
    environment_id: staging.id,
    expires_at: '2099-01-01T00:00:00.000Z',
  });
  const ingest = await call(server, 'POST', '/v1/traces', {
    body: exportRequest([{ traceId: hex(16), name: 'ci' }]),
    headers: { authorization: ci.plaintext_key, 'x-service-app-id': web.id },
  });
  t.equal(ingest.status, 200, 'a custom key pinned to a new environment ingests');
  const scoped = await ok(
    t,
    op(server, 'POST', `/v1/operator/apps/${acme.app_id}/keys`, {
      name: 'previews',
      role: 'read_only',
      kinds: ['preview', 'development'],
    }),
    201,
  );
  t.match(scoped, { environment_id: null, allowed_kinds: ['development', 'preview'], role: 'read_only' });
  const scopedAuth: Credentials = { key: scoped.plaintext_key, appId: acme.app_id };
  t.equal(
    (await call(server, 'GET', '/v1/traces', { auth: scopedAuth, headers: { 'x-service-pull-request': '7' } })).status,
    200,
    'kind-scoped: a preview environment named per request',
  );
  t.equal(
    (await call(server, 'GET', '/v1/traces', { auth: scopedAuth, headers: { 'x-service-environment': 'production' } }))
      .status,
    403,
    'not another kind',
  );
  const badPr = await call(server, 'GET', '/v1/traces', {
    auth: scopedAuth,
    headers: { 'x-service-pull-request': '0' },
  });
  t.same(
    [badPr.status, badPr.body.error],
    [
      400,
      {
        code: 'invalid_request_headers',
        message: 'Invalid request headers',
        details: { 'x-service-pull-request': 'must be a pull request number (1 to 9999999999)' },
      },
    ],
    "a malformed pull request number is the header's fault",
  );
  const longName = await call(server, 'POST', '/v1/traces', {
    body: exportRequest([{ traceId: hex(16), name: 'lost' }]),
    headers: { authorization: ci.plaintext_key, 'x-service-app-id': web.id, 'x-service-environment': 'E'.repeat(5000) },
  });
  t.same(
    [longName.status, longName.body.error.details],
    [400, { 'x-service-environment': 'must be an environment name (lowercase letters, digits and "-", at most 63)' }],
    'a pinned key too, without the value echoed',
  );
  t.same(
    (await ok(t, op(server, 'GET', `/v1/operator/apps/${acme.app_id}/keys`)))
      .map((k: { name: string }) => k.name)
      .sort(),
    ['admin', 'previews'],
  );

  // A revocation applies to the next request, although the key was just used (and cached).
  const revoked = await ok(t, op(server, 'DELETE', `/v1/operator/apps/${acme.app_id}/keys/${admin.id}`));
  t.match(revoked, { id: admin.id, revoked_at: /Z$/ });
  const after = await call(server, 'GET', '/v1/api-keys', { auth: acmeAdmin });
  t.equal(after.status, 401, 'the revoked key is refused at once');
  t.equal(
    (await op(server, 'DELETE', `/v1/operator/apps/${web.id}/keys/${admin.id}`)).status,
    404,
    'a key of another app is not found',
  );

  // A plan change applies to the next request, although the tenant's key is cached with the old plan.
  const globexAdmin: Credentials = {
    key: (
      await ok(
        t,
        op(server, 'POST', `/v1/operator/apps/${globex.app_id}/keys`, {
          name: 'admin',
          role: 'full-access',
          environment: 'production',
        }),
        201,
      )
    ).plaintext_key,
    appId: globex.app_id,
  };
  const capped = await call(server, 'POST', '/v1/apps', { auth: globexAdmin, body: { name: 'second' } });
  t.equal(capped.status, 402, 'the free plan allows one app');
  t.match(await ok(t, op(server, 'PATCH', `/v1/operator/tenants/${globex.tenant_id}`, { plan: 'team' })), {
    id: globex.tenant_id,
    plan: 'team',
  });
  t.equal(
    (await call(server, 'POST', '/v1/apps', { auth: globexAdmin, body: { name: 'second' } })).status,
    201,
    'the team plan allows more, at once',
  );

  // Session tokens verify on this server.
  const issued = await ok(
    t,
    op(server, 'POST', '/v1/operator/tokens', {
      tenant_id: acme.tenant_id,
      app_id: acme.app_id,
      subject: 'ops@acme.test',
      ttl_seconds: 600,
    }),
    201,
  );
  t.match(issued, {
    token_type: 'Bearer',
    subject: 'ops@acme.test',
    tenant_id: acme.tenant_id,
    app_id: acme.app_id,
    role: 'admin',
  });
  t.equal(Date.parse(issued.expires_at) - Date.parse(issued.issued_at), 600_000);
  const session = await call(server, 'POST', '/v1/apps', {
    auth: { key: issued.token, appId: acme.app_id },
    body: { name: 'from-a-session' },
  });
  t.equal(session.status, 201, show(session));
  t.equal(session.body.data.created_by, 'session:ops@acme.test');
});

t.test('bad requests are 400 with details, unknown ids 404, and a refused request changes nothing', async (t) => {
  const server = await serverFor(t, OPERATOR);
  const root = rootCredentials(server);
  const tenantId = server.bootstrap!.tenant_id as string;
  const snapshot = () =>
    Promise.all([
      op(server, 'GET', '/v1/operator/tenants').then((r) => r.body),
      op(server, 'GET', `/v1/operator/tenants/${tenantId}/apps`).then((r) => r.body),
      op(server, 'GET', `/v1/operator/apps/${root.appId}/environments`).then((r) => r.body),
      op(server, 'GET', `/v1/operator/apps/${root.appId}/keys`).then((r) => r.body),
    ]);
  const before = await snapshot();
  const keys = `/v1/operator/apps/${root.appId}/keys`;
  const cases: [string, string, unknown, number, string, Record<string, RegExp>?][] = [
    ['POST', '/v1/operator/tenants', {}, 400, 'invalid_request_body', { name: /.+/ }],
    [
      'POST',
      '/v1/operator/tenants',
      { name: 'x', color: 'red' },
      400,
      'invalid_request_body',
      { color: /unknown property/ },
    ],
    ['POST', '/v1/operator/tenants', { name: '   ' }, 400, 'invalid_request_body', { name: /blank/ }],
    [
      'POST',
      '/v1/operator/tenants',
      { name: 'x', plan: 'platinum' },
      400,
      'invalid_request_body',
      { plan: /unknown plan "platinum"; the plans file has self_hosted, free, team/ },
    ],
    [
      'POST',
      '/v1/operator/tenants',
      { name: 'x', plan: 'no spaces' },
      400,
      'invalid_request_body',
      { plan: /must be a plan name/ },
    ],
    ['PATCH', '/v1/operator/tenants/not-a-uuid', { plan: 'team' }, 400, 'invalid_path_parameters', { tenant: /uuid/ }],
    ['PATCH', `/v1/operator/tenants/${randomUUID()}`, { plan: 'team' }, 404, 'not_found'],
    ['POST', `/v1/operator/tenants/${randomUUID()}/apps`, { name: 'web' }, 404, 'not_found'],
    [
      'POST',
      `/v1/operator/tenants/${tenantId}/apps`,
      { name: 'Not A Name' },
      400,
      'invalid_request_body',
      { name: /lowercase letters/ },
    ],
    ['POST', `/v1/operator/tenants/${tenantId}/apps`, { name: 'default' }, 409, 'duplicate_app_name'],
    [
      'POST',
      `/v1/operator/apps/${root.appId}/environments`,
      { name: 'qa', kind: 'staging' },
      400,
      'invalid_request_body',
      { kind: /.+/ },
    ],
    [
      'POST',
      keys,
      { name: 'k', role: 'sdk' },
      400,
      'invalid_request_body',
      { body: /exactly one of environment and kinds/ },
    ],
    [
      'POST',
      keys,
      { name: 'k', role: 'sdk', permissions: ['trace.read'], kinds: ['preview'] },
      400,
      'invalid_request_body',
      { body: /exactly one of role and permissions/ },
    ],
    [
      'POST',
      keys,
      { name: 'k', role: 'admin', kinds: ['preview'] },
      400,
      'invalid_request_body',
      { role: /role must be sdk, read-only, full-access or worker/ },
    ],
    ['POST', keys, { name: 'k', role: 'sdk', kinds: ['staging'] }, 400, 'invalid_request_body', { 'kinds[0]': /.+/ }],
    ['POST', keys, { name: 'k', role: 'sdk', environment: 'qa' }, 404, 'not_found'],
    [
      'POST',
      keys,
      { name: 'k', role: 'sdk', environment: 'production', expires_at: '2001-01-01T00:00:00Z' },
      400,
      'invalid_request_body',
      { expires_at: /in the future/ },
    ],
    ['POST', keys, 'not json', 400, 'invalid_request_body'],
    [
      'POST',
      `/v1/operator/apps/${randomUUID()}/keys`,
      { name: 'k', role: 'sdk', environment: 'production' },
      404,
      'not_found',
    ],
    ['DELETE', `${keys}/${randomUUID()}`, undefined, 404, 'not_found'],
    [
      'POST',
      '/v1/operator/tokens',
      { tenant_id: randomUUID(), app_id: root.appId, subject: 'a@b.c' },
      404,
      'not_found',
    ],
    [
      'POST',
      '/v1/operator/tokens',
      { tenant_id: tenantId, app_id: root.appId, subject: 'nobody' },
      400,
      'invalid_request_body',
      { subject: /e-mail/ },
    ],
    [
      'POST',
      '/v1/operator/tokens',
      { tenant_id: tenantId, app_id: root.appId, subject: 'a@b.c', ttl_seconds: 5 },
      400,
      'invalid_request_body',
      { ttl_seconds: /ttl_seconds must be whole seconds/ },
    ],
    ['GET', '/v1/operator/tenants?limit=5', undefined, 400, 'invalid_query_parameters'],
  ];
  for (const [method, path, body, status, code, details] of cases) {
    const r =
      typeof body === 'string'
        ? await call(server, method, path, {
            rawBody: body,
            headers: { authorization: `Bearer ${TOKEN}`, 'content-type': 'application/json' },
          })
        : await op(server, method, path, body);
    t.equal(r.status, status, `${method} ${path} ${JSON.stringify(body)}: ${show(r)}`);
    t.equal(r.body?.error?.code, code);
    for (const [field, message] of Object.entries(details ?? {}))
      t.match(r.body.error.details?.[field], message, `details.${field}`);
  }
  t.same(await snapshot(), before, 'nothing changed');
});

t.test('the operator API is served in local mode too', async (t) => {
  const server = await serverFor(t, { ...OPERATOR, args: ['--mode', 'local'] });
  const tenants = await ok(t, op(server, 'GET', '/v1/operator/tenants'));
  t.equal(tenants.length, 1);
  t.equal(
    (await op(server, 'GET', '/v1/operator/tenants', undefined, `op-${hex(24)}`)).status,
    401,
    'and opened by the token alone',
  );
});
