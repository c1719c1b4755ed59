/**
 * Integration: objects every environment of an app shares — prompts and their labels, score
 * configs, the git connection, the app's settings — are changed only by an unpinned or
 * production-pinned credential, or by a lower key under its own environment's label (issue 53,
 * item 8; core/admin/rules.ts, `changesAppWide`). The routes are those the route table declares
 * `appWide`, so a route declared later cannot skip this test.
 */
import { join } from 'node:path';
import t from 'tap';
import { readSecret, SECRET_FILE } from '../../src/auth/secret.js';
import { deriveSessionKey, sessionClaims, signSessionToken } from '../../src/core/admin/jwt.js';
import { allRoutes } from '../../src/http/routeTable.js';
import { call, rootCredentials, serverFor, type Credentials, type TestServer } from '../helpers/server.js';
import { devEnvironment, devWithAdmin } from '../helpers/environments.js';

/** A CLI-style session token: an unpinned tenant admin of the bootstrap app. */
function sessionOf(server: TestServer, root: Credentials): Credentials {
  const secret = readSecret(join(server.dataDir, SECRET_FILE))!;
  const nowSec = Math.floor(Date.now() / 1000);
  const claims = sessionClaims({
    tenantId: server.bootstrap!.tenant_id as string,
    appId: root.appId,
    subject: 'ada@example.com',
    nowSec,
    ttlSec: 600,
  });
  return { key: signSessionToken(claims, deriveSessionKey(secret)), appId: root.appId };
}

t.test('app-wide routes refuse a development-pinned admin and let an unpinned one through', async (t) => {
  const server = await serverFor(t);
  const root = rootCredentials(server);
  const { devAdmin } = await devWithAdmin(t, server, root);
  const session = sessionOf(server, root);
  const created = await call(server, 'POST', '/v1/prompts', {
    auth: root,
    body: { name: 'greet', prompt: 'Hello {{name}}', labels: ['production'] },
  });
  t.equal(created.status, 201);
  const config = { name: 'tone', data_type: 'NUMERIC', min_value: 0, max_value: 1 };
  t.equal((await call(server, 'POST', '/v1/score-configs', { auth: root, body: config })).status, 201);

  const requests: Record<string, { path: string; body?: unknown }> = {
    'POST /v1/prompts': { path: '/v1/prompts', body: { name: 'greet', prompt: 'Hi', labels: ['production'] } },
    'POST /v1/prompts/sync': { path: '/v1/prompts/sync' },
    'PATCH /v1/prompts/:name/versions/:version': {
      path: '/v1/prompts/greet/versions/1',
      body: { labels: ['production'] },
    },
    'DELETE /v1/prompts/:name/labels/:label': { path: '/v1/prompts/greet/labels/production' },
    'POST /v1/score-configs': { path: '/v1/score-configs', body: { ...config, name: 'tone-2' } },
    'PATCH /v1/score-configs/:name': { path: '/v1/score-configs/tone', body: { max_value: 100 } },
    'POST /v1/apps/:appId/git/connect': {
      path: `/v1/apps/${root.appId}/git/connect`,
      body: { provider: 'local', repository: 'acme/prompts', branch: 'main' },
    },
    'DELETE /v1/apps/:appId/git': { path: `/v1/apps/${root.appId}/git` },
    'PATCH /v1/apps/:appId': { path: `/v1/apps/${root.appId}`, body: { runtime: 'go' } },
  };
  const appWide = allRoutes(Buffer.alloc(32), { faultInjection: false }).filter((r) => r.appWide !== undefined);
  t.same(
    appWide.map((r) => `${r.method} ${r.path}`).sort(),
    Object.keys(requests).sort(),
    'every route declared app-wide has a request here',
  );

  for (const r of appWide) {
    const { path, body } = requests[`${r.method} ${r.path}`]!;
    const refused = await call(server, r.method, path, { auth: devAdmin, body });
    t.equal(refused.status, 403, `${r.method} ${r.path}: the dev-pinned admin is refused`);
    t.same(Object.keys(refused.body), ['error'], 'in the spec error shape');
    t.match(refused.body.error, { code: 'forbidden', message: /pinned to the development environment "dev"/ });
  }
  const production = await call(server, 'GET', '/v1/prompts/greet?label=production', { auth: root });
  t.equal(production.body.data.version, 1, 'production still serves the version production chose');
  const tone = await call(server, 'GET', '/v1/score-configs/tone', { auth: root });
  t.equal(tone.body.data.max_value, 1, "the score config's range is unchanged");
  t.equal((await call(server, 'GET', `/v1/apps/${root.appId}`, { auth: root })).body.data.runtime, 'nodejs');

  // Under its own environment's label a dev key moves that label, and only that.
  const own = await call(server, 'POST', '/v1/prompts', {
    auth: devAdmin,
    body: { name: 'greet', prompt: 'Hi from dev', labels: ['dev'] },
  });
  t.equal(own.status, 201, 'a version labelled dev');
  t.equal(
    (await call(server, 'PATCH', '/v1/prompts/greet/versions/1', { auth: devAdmin, body: { labels: ['dev'] } })).status,
    200,
    'the dev label moved',
  );
  t.equal((await call(server, 'DELETE', '/v1/prompts/greet/labels/dev', { auth: devAdmin })).status, 200);
  t.equal(
    (
      await call(server, 'POST', '/v1/prompts', {
        auth: devAdmin,
        body: { name: 'greet', prompt: 'Sneaky', labels: ['dev', 'production'] },
      })
    ).status,
    403,
    'production beside its own label is refused',
  );

  for (const r of appWide) {
    const { path, body } = requests[`${r.method} ${r.path}`]!;
    const allowed = await call(server, r.method, path, { auth: session, body });
    t.not(allowed.status, 403, `${r.method} ${r.path}: an unpinned session passes (${allowed.status})`);
    t.ok(allowed.status < 500, 'and is answered');
  }
  t.equal(
    (await call(server, 'GET', '/v1/score-configs/tone', { auth: root })).body.data.max_value,
    100,
    'the session changed the range',
  );
});

t.test(
  'a kind-scoped key whose kinds leave production out is held to the rule in the environment it names',
  async (t) => {
    const token = `op-${'k'.repeat(40)}`;
    const server = await serverFor(t, { env: { TRACELAKE_OPERATOR_TOKEN: token } });
    const root = rootCredentials(server);
    await devEnvironment(t, server, root);
    t.equal(
      (
        await call(server, 'POST', '/v1/prompts', {
          auth: root,
          body: { name: 'greet', prompt: 'Hello {{name}}', labels: ['production'] },
        })
      ).status,
      201,
    );
    const mint = async (kinds: string[]) => {
      const minted = await call(server, 'POST', `/v1/operator/apps/${root.appId}/keys`, {
        headers: { authorization: `Bearer ${token}` },
        body: { name: `ci-${kinds.join('-')}`, role: 'full_access', kinds },
      });
      t.equal(minted.status, 201, `a kind-scoped key for ${kinds.join(', ')}`);
      return { key: minted.body.data.plaintext_key as string, appId: root.appId };
    };
    const lower = await mint(['development', 'preview']);
    const inDev = { 'x-service-environment': 'dev' };
    const relabel = await call(server, 'PATCH', '/v1/prompts/greet/versions/1', {
      auth: lower,
      headers: inDev,
      body: { labels: ['production'] },
    });
    t.equal(relabel.status, 403, 'it may not move the production label');
    t.match(relabel.body.error.message, /pinned to the development environment "dev"/);
    t.equal(
      (await call(server, 'DELETE', '/v1/prompts/greet/labels/production', { auth: lower, headers: inDev })).status,
      403,
      'nor remove it',
    );
    const productionKey = await call(server, 'POST', '/v1/api-keys', {
      auth: lower,
      headers: inDev,
      body: { name: 'escalated', role: 'Full Access', environment_name: 'production' },
    });
    t.equal(productionKey.status, 403, 'nor mint a production key');
    const own = await call(server, 'POST', '/v1/prompts', {
      auth: lower,
      headers: inDev,
      body: { name: 'greet', prompt: 'Hi from CI', labels: ['dev'] },
    });
    t.equal(own.status, 201, 'under its own label it creates a version');
    const production = await call(server, 'GET', '/v1/prompts/greet?label=production', { auth: root });
    t.equal(production.body.data.version, 1, 'production still serves its version');

    const withProduction = await mint(['production', 'preview']);
    t.equal(
      (
        await call(server, 'PATCH', '/v1/prompts/greet/versions/2', {
          auth: withProduction,
          headers: { 'x-service-environment': 'production' },
          body: { labels: ['production'] },
        })
      ).status,
      200,
      'a kind-scoped key that may use production stays a tenant admin',
    );
  },
);

t.test('a renamed environment: its keys act under the new name at once', async (t) => {
  const server = await serverFor(t);
  const root = rootCredentials(server);
  const { envId, devAdmin } = await devWithAdmin(t, server, root);
  const first = await call(server, 'POST', '/v1/prompts', {
    auth: devAdmin,
    body: { name: 'greet', prompt: 'Hi', labels: ['dev'] },
  });
  t.equal(first.status, 201, 'under its label, before the rename (the key is now cached)');
  const renamed = await call(server, 'PATCH', `/v1/environments/${envId}`, {
    auth: root,
    body: { name: 'qa' },
  });
  t.equal(renamed.status, 200);
  const label = (labels: string[]) =>
    call(server, 'PATCH', '/v1/prompts/greet/versions/1', { auth: devAdmin, body: { labels } });
  t.equal((await label(['dev'])).status, 403, 'the old name is no longer its label');
  t.equal((await label(['qa'])).status, 200, 'the new one is');
});
