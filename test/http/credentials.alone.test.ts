/**
 * Integration: `GET /v1/auth/app`, the app of a credential sent without an app id (the UI's sign-in
 * and `tracelake quickstart` start from a key alone). A key answers its own app, a session token the
 * app it names; a missing, unknown, revoked or expired credential is 401 in the spec's shape and says
 * nothing more; a valid key's request counts against its tenant's rate, an unknown key's cannot.
 */
import t from 'tap';
import { hex } from '../helpers/otlp.js';
import { call, createKey, rootCredentials, serverFor, type Answer } from '../helpers/server.js';

const TOKEN = `op-${hex(24)}`;
const show = (r: Answer) => `${r.status} ${r.text.slice(0, 300)}`;
const alone = (authorization?: string): { headers: Record<string, string> } => ({
  headers: authorization === undefined ? {} : { authorization },
});

t.test('keys and session tokens answer their app; refused ones are 401 and say nothing else', async (t) => {
  const server = await serverFor(t, { env: { TRACELAKE_OPERATOR_TOKEN: TOKEN } });
  const root = rootCredentials(server);

  const mine = await call(server, 'GET', '/v1/auth/app', alone(`Bearer ${root.key}`));
  t.equal(mine.status, 200, show(mine));
  t.same(mine.body, { data: { app_id: root.appId } }, 'the app id, and nothing else');
  t.equal(
    (await call(server, 'GET', '/v1/auth/app', alone(root.key))).body.data.app_id,
    root.appId,
    'Bearer is optional',
  );

  // A write-only SDK key of another app: what an instrumented service holds.
  const other = await call(server, 'POST', '/v1/apps', { auth: root, body: { name: 'checkout' } });
  t.equal(other.status, 201, show(other));
  const sdk = await createKey(server, root, { name: 'sdk', role: 'SDK', app_id: other.body.data.id });
  const sdkApp = await call(server, 'GET', '/v1/auth/app', alone(`Bearer ${sdk.key}`));
  t.equal(sdkApp.body?.data?.app_id, other.body.data.id, `a key of another app answers that app: ${show(sdkApp)}`);
  t.not(sdkApp.body.data.app_id, root.appId);

  const tenantId = server.bootstrap!.tenant_id as string;
  const issued = await call(server, 'POST', '/v1/operator/tokens', {
    body: { tenant_id: tenantId, app_id: other.body.data.id, subject: 'ops@example.com' },
    headers: { authorization: `Bearer ${TOKEN}` },
  });
  t.equal(issued.status, 201, show(issued));
  const session = await call(server, 'GET', '/v1/auth/app', alone(`Bearer ${issued.body.data.token}`));
  t.equal(session.body?.data?.app_id, other.body.data.id, `a session token answers the app it names: ${show(session)}`);

  const revoked = await createKey(server, root, { name: 'leaving', role: 'Read-Only' });
  t.equal((await call(server, 'DELETE', `/v1/api-keys/${revoked.id}`, { auth: root })).status, 200);
  const tampered = `${issued.body.data.token.slice(0, -2)}xx`;
  const refusals: [string, string | undefined, RegExp][] = [
    ['no Authorization', undefined, /Missing Authorization header/],
    ['an unknown key', `Bearer sk_service_${'0'.repeat(40)}`, /^Invalid API key$/],
    ['not a key', 'Bearer hello', /^Invalid API key$/],
    ['a revoked key', `Bearer ${revoked.key}`, /revoked/],
    ['a tampered session token', `Bearer ${tampered}`, /^Invalid session token/],
    ['the operator token', `Bearer ${TOKEN}`, /^Invalid API key$/],
  ];
  for (const [what, authorization, message] of refusals) {
    const r = await call(server, 'GET', '/v1/auth/app', alone(authorization));
    t.equal(r.status, 401, `${what}: ${show(r)}`);
    t.same(Object.keys(r.body.error).sort(), ['code', 'message'], `${what}: the spec's error shape, nothing more`);
    t.equal(r.body.error.code, 'unauthorized');
    t.match(r.body.error.message, message, what);
    t.notMatch(r.text, root.appId, `${what}: no app id`);
    t.notMatch(r.text, other.body.data.id);
  }
  const query = await call(server, 'GET', '/v1/auth/app?app_id=x', alone(`Bearer ${root.key}`));
  t.equal(query.status, 400, 'it takes no query parameters');

  // The app id it answers is what every other route needs.
  t.equal(
    (await call(server, 'GET', '/v1/traces?limit=1', { auth: { key: root.key, appId: mine.body.data.app_id } })).status,
    200,
  );
  t.equal(
    (await call(server, 'GET', '/v1/traces?limit=1', alone(`Bearer ${root.key}`))).status,
    401,
    'which still refuse a key without its app id',
  );
});

t.test("a valid key counts against its tenant's rate; in local mode no key is the local app", async (t) => {
  const server = await serverFor(t, { args: ['--mode', 'local', '--rate-limit', '0.01', '--rate-burst', '3'] });
  const root = rootCredentials(server);
  const local = await call(server, 'GET', '/v1/auth/app');
  t.equal(local.status, 200, show(local));
  t.equal(local.body.data.app_id, root.appId, "no Authorization: the local app (the store's first)");
  t.equal((await call(server, 'GET', '/v1/auth/app', alone(root.key))).status, 200);
  t.equal((await call(server, 'GET', '/v1/auth/app', alone(root.key))).status, 200);
  const limited = await call(server, 'GET', '/v1/auth/app', alone(root.key));
  t.equal(limited.status, 429, `the fourth of a burst of 3: ${show(limited)}`);
  t.equal(limited.body.error.code, 'rate_limited');
  t.ok(Number(limited.headers.get('retry-after')) >= 1, 'with Retry-After');
  t.equal(
    (await call(server, 'GET', '/v1/traces?limit=1', { auth: root })).status,
    429,
    'the same bucket as every other route of the tenant',
  );
  const unknown = await call(server, 'GET', '/v1/auth/app', alone(`sk_service_${'1'.repeat(40)}`));
  t.equal(unknown.status, 401, `an unknown key has no tenant to count against: ${show(unknown)}`);
});
