/**
 * Integration: every administration route is admin-only — a key with all eleven permissions but no
 * Full Access role gets 403 naming `full_access`, as does a Read-Only or SDK key; no credentials is 401.
 * The routes are read from the module's own table, so a route added later cannot skip this test.
 */
import { randomUUID } from 'node:crypto';
import t from 'tap';
import { PERMISSIONS } from '../../src/core/permissions.js';
import { adminRoutes } from '../../src/http/routes/admin.js';
import { call, createKey, rootCredentials, serverFor } from '../helpers/server.js';

t.test('admin routes refuse non-admin keys', async (t) => {
  t.same(
    adminRoutes.map((r) => `${r.method} ${r.path} ${r.permission}`),
    [
      'POST /v1/environments admin',
      'GET /v1/environments admin',
      'PATCH /v1/environments/:id admin',
      'DELETE /v1/environments/:id admin',
      'PATCH /v1/apps/:appId admin',
      'DELETE /v1/apps/:appId admin',
    ],
  );
  const server = await serverFor(t);
  const root = rootCredentials(server);
  const [production] = (await call(server, 'GET', '/v1/environments', { auth: root })).body.data;
  const denied = [
    await createKey(server, root, { name: 'everything', role: 'Custom', permissions: [...PERMISSIONS] }),
    await createKey(server, root, { name: 'reader', role: 'Read-Only' }),
    await createKey(server, root, { name: 'sdk', role: 'SDK' }),
  ];
  const other = (await call(server, 'POST', '/v1/apps', { auth: root, body: { name: 'other' } })).body.data;
  const concrete = (path: string) => path.replace(':id', production.id).replace(':appId', other.id);
  const bodies: Record<string, unknown> = {
    'POST /v1/environments': { name: 'x', kind: 'preview' },
    'PATCH /v1/environments/:id': { kind: 'preview' },
    'DELETE /v1/environments/:id': { confirmation_name: 'production' },
    'PATCH /v1/apps/:appId': { runtime: 'go' },
  };
  for (const r of adminRoutes) {
    const what = `${r.method} ${r.path}`;
    for (const key of denied) {
      const refused = await call(server, r.method, concrete(r.path), { auth: key, body: bodies[what] });
      t.equal(refused.status, 403, `${what} with ${key.answer.body.data.name}`);
      t.match(refused.body.error, { code: 'forbidden', required_permission: 'full_access' });
    }
    const anonymous = await call(server, r.method, concrete(r.path), { body: bodies[what] });
    t.equal(anonymous.status, 401, `${what} without credentials`);
  }
  // Nothing was changed by the refused calls.
  t.same((await call(server, 'GET', '/v1/environments', { auth: root })).body.data, [production]);
  t.equal((await call(server, 'GET', `/v1/apps/${other.id}`, { auth: root })).body.data.runtime, 'nodejs');
  t.equal(
    (await call(server, 'PATCH', `/v1/environments/${randomUUID()}`, { auth: denied[0]!, body: {} })).status,
    403,
    'authorisation comes before validation',
  );
});
