import t from 'tap';
import {
  appChanges,
  changesAppWide,
  previewCreationRefusal,
  PREVIEWS_PER_MINUTE,
  isTenantAdmin,
  lowerKinds,
  managesKeysOf,
  type Pin,
  appDeletion,
  assertAppDeletable,
  assertEnvironmentDeletable,
  ENVIRONMENT_KINDS,
  ENVIRONMENT_NAME,
  environmentChanges,
  environmentDeletion,
  isEnvironmentKind,
} from '../../../src/core/admin/rules.js';
import { ApiError } from '../../../src/core/errors.js';

function failure(fn: () => unknown): { status: number; code: string; message: string; details?: unknown } {
  try {
    fn();
  } catch (e) {
    if (e instanceof ApiError) return { status: e.status, code: e.code, message: e.message, details: e.fields.details };
    throw e;
  }
  throw new Error('expected an ApiError');
}

t.test('kinds and names', async (t) => {
  t.same(ENVIRONMENT_KINDS, ['development', 'preview', 'production']);
  t.ok(isEnvironmentKind('preview'));
  t.notOk(isEnvironmentKind('staging'));
  for (const ok of ['production', 'pr-42', '0', 'a'.repeat(63), 'a-']) t.ok(ENVIRONMENT_NAME.test(ok), ok);
  for (const bad of ['', '-a', 'A', 'a_b', 'a.b', 'a'.repeat(64), 'ü']) t.notOk(ENVIRONMENT_NAME.test(bad), bad);
});

t.test('environment changes', async (t) => {
  const staging = { name: 'staging', kind: 'preview' as const, is_default: false };
  const production = { name: 'production', kind: 'production' as const, is_default: true };
  t.same(environmentChanges(staging, { name: 'qa', kind: 'development' }), { name: 'qa', kind: 'development' });
  t.same(environmentChanges(staging, { name: 'staging', kind: 'preview' }), {}, 'unchanged values are no change');
  t.same(environmentChanges(staging, { kind: 'production' }), { kind: 'production' });
  t.same(environmentChanges(staging, { name: 'qa' }), { name: 'qa' });
  t.same(
    environmentChanges(production, { kind: 'production', name: 'production' }),
    {},
    'the default may be patched to what it is',
  );
  t.match(
    failure(() => environmentChanges(staging, {})),
    { status: 400, code: 'invalid_request_body', details: { body: /name or kind/ } },
  );
  t.match(
    failure(() => environmentChanges(production, { kind: 'preview' })),
    { status: 409, code: 'conflict', message: /kind production/ },
  );
  t.match(
    failure(() => environmentChanges(production, { name: 'prod' })),
    { status: 409, code: 'conflict', message: /cannot be renamed/ },
  );
});

t.test('environment deletion', async (t) => {
  t.doesNotThrow(() => assertEnvironmentDeletable({ name: 'pr-1', is_default: false }, 'pr-1'));
  t.match(
    failure(() => assertEnvironmentDeletable({ name: 'pr-1', is_default: false }, 'PR-1')),
    {
      status: 400,
      code: 'invalid_request_body',
      details: { confirmation_name: 'must equal the environment\'s name "pr-1"' },
    },
  );
  t.match(
    failure(() => assertEnvironmentDeletable({ name: 'production', is_default: true }, 'production')),
    { status: 409, code: 'conflict', message: /default environment/ },
  );
  t.match(
    failure(() => assertEnvironmentDeletable({ name: 'production', is_default: true }, 'wrong')),
    { status: 409 },
    'the default is refused first',
  );
  t.same(environmentDeletion('e1', '2026-01-01T00:00:00.000Z', 3), {
    id: 'e1',
    deleted_at: '2026-01-01T00:00:00.000Z',
    cascade: { alerts_deleted: 0, api_keys_revoked: 3, deployments_deleted: 0, runtime_app_destroyed: false },
  });
});

t.test('app deletion', async (t) => {
  const app = { id: 'a2', name: 'checkout' };
  t.doesNotThrow(() => assertAppDeletable(app, 'a1', undefined), 'no confirmation is needed');
  t.doesNotThrow(() => assertAppDeletable(app, 'a1', 'checkout'));
  t.match(
    failure(() => assertAppDeletable(app, 'a1', 'other')),
    { status: 400, details: { confirmation_name: /checkout/ } },
  );
  t.match(
    failure(() => assertAppDeletable(app, 'a2', 'checkout')),
    { status: 409, code: 'conflict', message: /own credentials/ },
  );
  t.same(appDeletion('a2', 'T', 2, 5), {
    id: 'a2',
    deleted_at: 'T',
    cascade: {
      alerts_deleted: 0,
      api_keys_revoked: 5,
      deployments_deleted: 0,
      runtime_app_destroyed: false,
      environments_deleted: 2,
    },
  });
});

t.test('app changes', async (t) => {
  t.same(
    appChanges({ commit_sha: 'ABCDEF1', runtime: 'go', display_name: null, entry_point: 'main.go' }),
    [
      ['display_name', null],
      ['entry_point', 'main.go'],
      ['runtime', 'go'],
      ['commit_sha', 'abcdef1'],
    ],
    'fixed order, commit id lowercased',
  );
  t.same(appChanges({ commit_sha: null }), [['commit_sha', null]]);
  t.same(appChanges({ retention_days: 30 }), [['retention_days', 30]]);
  t.match(
    failure(() => appChanges({})),
    { status: 400, details: { body: /display_name, entry_point, runtime, commit_sha, retention_days/ } },
  );
});

t.test('pins: who manages which keys, and who acts for the whole tenant', async (t) => {
  const staging: Pin = { environmentId: 'env-staging', kind: 'preview', name: 'staging' };
  const dev: Pin = { environmentId: 'env-dev', kind: 'development', name: 'dev' };
  const prod: Pin = { environmentId: 'env-prod', kind: 'production', name: 'production' };
  t.same(lowerKinds(prod), ['development', 'preview']);
  t.same(lowerKinds(staging), ['development']);
  t.same(lowerKinds(dev), []);
  t.ok(isTenantAdmin(null), 'an unpinned admin (session token, kind-scoped key)');
  t.ok(isTenantAdmin(prod), 'a production-pinned admin (the bootstrap key)');
  t.notOk(isTenantAdmin(staging));
  t.notOk(isTenantAdmin(dev));
  t.ok(managesKeysOf(null, { id: 'env-prod', kind: 'production' }));
  t.ok(managesKeysOf(prod, { id: 'other-prod', kind: 'production' }), 'a tenant admin manages every environment');
  t.ok(managesKeysOf(staging, { id: 'env-staging', kind: 'preview' }), 'its own environment');
  t.ok(managesKeysOf(staging, { id: 'env-dev', kind: 'development' }), 'a lower kind');
  t.notOk(managesKeysOf(staging, { id: 'env-prod', kind: 'production' }), 'not a higher kind');
  t.notOk(managesKeysOf(staging, { id: 'pr-42', kind: 'preview' }), 'not a peer preview environment');
  t.notOk(managesKeysOf(dev, { id: 'env-dev-2', kind: 'development' }));

  // App-wide objects (issue 53, item 8): a tenant admin changes them; a lower pin only its own label.
  t.ok(changesAppWide(null, ['production']), 'an unpinned admin moves any label');
  t.ok(changesAppWide(prod, []), 'a production-pinned admin changes an unlabelled object');
  t.ok(changesAppWide(dev, ['dev']), 'a dev key moves the dev label');
  t.notOk(changesAppWide(dev, ['dev', 'production']), 'not with production beside it');
  t.notOk(changesAppWide(dev, ['production']), 'nor production alone');
  t.notOk(changesAppWide(staging, []), 'nor a change that names no label (a score config, the git connection)');
});

t.test('pull-request environments: at most PREVIEWS_PER_MINUTE a minute per app', async (t) => {
  t.equal(previewCreationRefusal(PREVIEWS_PER_MINUTE - 1, 59_000), null, 'one more may be made');
  t.match(previewCreationRefusal(PREVIEWS_PER_MINUTE, 15_500), {
    code: 'rate_limited',
    status: 429,
    message: `This app made ${PREVIEWS_PER_MINUTE} environments in the last minute (at most ${PREVIEWS_PER_MINUTE}); retry in 45 s`,
    fields: { retry_after_seconds: 45 },
    headers: { 'Retry-After': '45' },
  });
  t.match(previewCreationRefusal(PREVIEWS_PER_MINUTE, 60_000), { fields: { retry_after_seconds: 1 } }, 'never 0 s');
});
