/** src/http/principal.ts: who is calling, and what that confines them to. */
import t from 'tap';
import {
  actorOf,
  administeredApp,
  ANONYMOUS,
  readScopeOf,
  requireTenantAdmin,
  type Principal,
} from '../../../src/http/principal.js';

const APP = '6f1c1c8e-1111-4222-8333-944455556666';
const OTHER = '7a2d2d9f-2222-4333-8444-a55566667777';
const base: Principal = {
  kind: 'key',
  tenantId: 't1',
  appId: APP,
  environmentId: 'e1',
  readEnvironmentId: 'e1',
  keyId: 'k1',
  role: 'full_access',
  permissions: [],
  plan: 'free',
};
const pinned = (kind: 'production' | 'preview' | 'development'): Principal => ({
  ...base,
  pin: { environmentId: 'e1', kind, name: kind },
});

t.test('anonymous', async (t) => {
  t.equal(ANONYMOUS.kind, 'anonymous');
  t.same(ANONYMOUS.permissions, []);
  t.equal(ANONYMOUS.plan, null);
});

t.test('readScopeOf: tenant, app and the environment reads are confined to, nothing else', async (t) => {
  t.strictSame(readScopeOf(base), { tenantId: 't1', appId: APP, environmentId: 'e1' });
  t.strictSame(
    readScopeOf({ ...base, readEnvironmentId: null }),
    { tenantId: 't1', appId: APP, environmentId: null },
    'every environment of the app',
  );
  t.strictSame(
    readScopeOf({ ...base, environmentId: 'e1', readEnvironmentId: 'e2' }),
    { tenantId: 't1', appId: APP, environmentId: 'e2' },
    'reads follow the read environment, not the write one',
  );
});

t.test('actorOf', async (t) => {
  t.equal(actorOf(base), 'key:k1');
  t.equal(actorOf({ ...base, kind: 'session', keyId: null, subject: 'alice' }), 'session:alice');
  t.equal(actorOf({ ...base, kind: 'session', keyId: null }), 'session', 'a session without a subject');
  t.equal(actorOf({ ...base, kind: 'local', keyId: null }), 'local');
  t.equal(
    actorOf({ ...base, kind: 'local', keyId: null, subject: 'ignored' }),
    'local',
    'a subject names sessions only',
  );
});

t.test('administeredApp', async (t) => {
  t.equal(administeredApp(base, undefined), APP, "the caller's own app by default");
  t.equal(administeredApp(base, OTHER.toUpperCase()), OTHER, 'an unpinned admin names any app (lower-cased)');
  t.equal(administeredApp(pinned('production'), OTHER), OTHER, 'so does one pinned to production');
  t.equal(administeredApp(pinned('preview'), APP.toUpperCase()), APP, 'a preview admin names its own app');
  t.equal(administeredApp(pinned('development'), undefined), APP);
  t.throws(() => administeredApp(pinned('preview'), OTHER), {
    code: 'forbidden',
    message: /pinned to a preview environment of app 6f1c1c8e/,
  });
  t.throws(() => administeredApp(pinned('development'), OTHER), { code: 'forbidden', status: 403 });
});

t.test('requireTenantAdmin', async (t) => {
  t.doesNotThrow(() => requireTenantAdmin(base, 'create apps'));
  t.doesNotThrow(() => requireTenantAdmin(pinned('production'), 'create apps'));
  t.throws(() => requireTenantAdmin(pinned('preview'), 'create apps'), {
    code: 'forbidden',
    message: /pinned to a preview environment: .* may create apps$/,
  });
  t.throws(() => requireTenantAdmin(pinned('development'), 'change retention'), {
    code: 'forbidden',
    message: /development.*change retention/,
  });
});
