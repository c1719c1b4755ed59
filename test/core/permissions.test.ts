import t from 'tap';
import { allows, isPermission, parseRole, permissionsFor, PERMISSIONS } from '../../src/core/permissions.js';

t.test('the spec names eleven permissions', async (t) => {
  t.equal(PERMISSIONS.length, 11);
  t.ok(isPermission('trace.read'));
  t.notOk(isPermission('trace.delete'));
});

t.test('presets', async (t) => {
  t.same(permissionsFor('sdk'), ['trace.write', 'score.write', 'template.read']);
  t.same(
    permissionsFor('read_only'),
    PERMISSIONS.filter((p) => p.endsWith('.read')),
  );
  t.notOk(
    permissionsFor('read_only').some((p) => p.endsWith('.write') || p.endsWith('.delete')),
    'Read-Only cannot write',
  );
  t.same(permissionsFor('full_access'), [...PERMISSIONS]);
  t.same(
    permissionsFor('custom', ['score.read', 'trace.write']),
    ['trace.write', 'score.read'],
    'custom, in canonical order',
  );
  t.same(permissionsFor('custom'), [], 'custom with nothing listed has nothing');
  t.same(permissionsFor('worker'), [], 'a Worker key reads and writes nothing: it claims turns and reports on them');
  // The spec: SDK cannot delete or read traces; write-only keys cannot read back.
  t.notOk(permissionsFor('sdk').includes('score.delete'));
  t.notOk(permissionsFor('sdk').includes('trace.read'));
});

t.test('role names', async (t) => {
  t.equal(parseRole('SDK'), 'sdk');
  t.equal(parseRole('Read-Only'), 'read_only');
  t.equal(parseRole('Full Access'), 'full_access');
  t.equal(parseRole(' full_access '), 'full_access');
  t.equal(parseRole('Custom'), 'custom');
  t.equal(parseRole('Worker'), 'worker');
  t.equal(parseRole('root'), undefined);
});

t.test('allows', async (t) => {
  t.ok(allows('custom', [], 'none'), 'unauthenticated routes need nothing');
  t.ok(allows('full_access', [], 'admin'));
  t.notOk(allows('custom', [...PERMISSIONS], 'admin'), 'admin is Full Access, not a sum of permissions');
  t.ok(allows('sdk', permissionsFor('sdk'), 'trace.write'));
  t.notOk(allows('sdk', permissionsFor('sdk'), 'trace.read'));
  t.ok(allows('full_access', [], 'eval_run'), "an eval worker's routes take admin credentials");
  t.notOk(allows('custom', [...PERMISSIONS], 'eval_run'));
  t.ok(allows('custom', [], 'eval_run', true), 'or a run-scoped key');
  t.ok(allows('custom', [], 'none', true));
  t.notOk(
    allows('full_access', [...PERMISSIONS], 'trace.read', true),
    'a run-scoped key does nothing else, whatever its row says',
  );
  t.notOk(allows('full_access', [...PERMISSIONS], 'admin', true));
  t.ok(allows('worker', [], 'worker'), 'a Worker key claims and reports');
  t.ok(allows('full_access', [], 'worker'), 'and so may admin credentials');
  t.notOk(allows('custom', [...PERMISSIONS], 'worker'));
  t.notOk(allows('worker', [], 'admin'), 'a Worker key does nothing else');
  t.notOk(allows('worker', [], 'trace.read'));
  t.notOk(allows('worker', [], 'eval_run'));
  t.notOk(allows('custom', [], 'worker', true), 'nor does a run-scoped key');
});
