/**
 * Integration: creations, changes and deletions sent at once. A check before a write (a name that must be free, a count
 * under the plan's limit) cannot see a concurrent transaction's row, so each creation that checks
 * runs one at a time, or meets a unique index that answers the same 409 (store/admin/checkedCreations.ts,
 * store/refusals.ts); and a change or deletion that loses a write conflict to another runs again,
 * reading what the winner left (store/db.ts). Without those: eight tenants of one name, seven
 * 500s for one app name, twelve keys stored under a limit of five, and a 500 for each loser of a
 * delete, a revocation or a config patch sent at once (and the patch lost).
 */
import t from 'tap';
import { claimedRun, sendTrials, type Run } from '../evals/helpers.js';
import { hex } from '../helpers/otlp.js';
import { call, rootCredentials, serverFor, type Answer } from '../helpers/server.js';

const AT_ONCE = 8;

/** The statuses of the answers, as `status code` strings, counted. */
function tally(answers: Answer[]): Record<string, number> {
  const out: Record<string, number> = {};
  for (const a of answers) {
    const key = `${a.status}${a.body?.error?.code ? ` ${a.body.error.code}` : ''}`;
    out[key] = (out[key] ?? 0) + 1;
  }
  return out;
}

t.test('one name created at once by many: one is created, the others are told it exists', async (t) => {
  const token = `op-${hex(24)}`;
  const server = await serverFor(t, { env: { TRACELAKE_OPERATOR_TOKEN: token } });
  const root = rootCredentials(server);
  const operator = { authorization: `Bearer ${token}` };
  const many = (send: () => Promise<Answer>) => Promise.all(Array.from({ length: AT_ONCE }, send));

  const tenants = await many(() =>
    call(server, 'POST', '/v1/operator/tenants', { headers: operator, body: { name: 'acme-corp' } }),
  );
  t.same(tally(tenants), { 201: 1, '409 conflict': AT_ONCE - 1 }, 'a tenant');
  const listed = await call(server, 'GET', '/v1/operator/tenants', { headers: operator });
  t.equal((listed.body.data as { name: string }[]).filter((x) => x.name === 'acme-corp').length, 1, 'listed once');

  const apps = await many(() => call(server, 'POST', '/v1/apps', { auth: root, body: { name: 'checkout' } }));
  t.same(tally(apps), { 201: 1, '409 duplicate_app_name': AT_ONCE - 1 }, 'an app');
  const environments = await many(() =>
    call(server, 'POST', '/v1/environments', { auth: root, body: { name: 'qa', kind: 'preview' } }),
  );
  t.same(tally(environments), { 201: 1, '409 conflict': AT_ONCE - 1 }, 'an environment');
  const configs = await many(() =>
    call(server, 'POST', '/v1/score-configs', { auth: root, body: { name: 'tone', data_type: 'NUMERIC' } }),
  );
  t.same(tally(configs), { 201: 1, '409 conflict': AT_ONCE - 1 }, 'a score config');
  t.notOk(
    server.logs.some((l) => l.msg === 'request failed'),
    'no request failed',
  );
});

t.test('one thing changed or deleted at once by many: the first wins, the others see what it left', async (t) => {
  const server = await serverFor(t);
  const root = rootCredentials(server);
  const many = (n: number, send: (i: number) => Promise<Answer>) =>
    Promise.all(Array.from({ length: n }, (_, i) => send(i)));

  const env = (await call(server, 'POST', '/v1/environments', { auth: root, body: { name: 'qa', kind: 'preview' } }))
    .body.data;
  const deletions = await many(4, () =>
    call(server, 'DELETE', `/v1/environments/${env.id}`, { auth: root, body: { confirmation_name: 'qa' } }),
  );
  t.same(tally(deletions), { 200: 1, '404 not_found': 3 }, 'an environment deleted four times at once');

  const app = (await call(server, 'POST', '/v1/apps', { auth: root, body: { name: 'gone' } })).body.data;
  const appDeletions = await many(4, () =>
    call(server, 'DELETE', `/v1/apps/${app.id}`, { auth: root, body: { confirmation_name: 'gone' } }),
  );
  t.same(tally(appDeletions), { 200: 1, '404 not_found': 3 }, 'an app deleted four times at once');

  const key = (await call(server, 'POST', '/v1/api-keys', { auth: root, body: { name: 'k', role: 'SDK' } })).body.data;
  const revocations = await many(4, () => call(server, 'DELETE', `/v1/api-keys/${key.id}`, { auth: root }));
  t.same(tally(revocations), { 200: 4 }, 'a key revoked four times at once');
  t.equal(new Set(revocations.map((a) => a.body.data.revoked_at)).size, 1, 'at one time: the first');

  await call(server, 'POST', '/v1/score-configs', {
    auth: root,
    body: { name: 'range', data_type: 'NUMERIC', min_value: 0, max_value: 10 },
  });
  const patches = await many(2, (i) =>
    call(server, 'PATCH', '/v1/score-configs/range', {
      auth: root,
      body: i === 0 ? { min_value: 2 } : { description: 'both kept' },
    }),
  );
  t.same(tally(patches), { 200: 2 }, 'a config patched twice at once');
  const config = (await call(server, 'GET', '/v1/score-configs/range', { auth: root })).body.data;
  t.same([config.min_value, config.max_value, config.description], [2, 10, 'both kept'], 'neither patch lost');

  const renames = await many(2, (i) =>
    call(server, 'PATCH', `/v1/apps/${root.appId}`, {
      auth: root,
      body: i === 0 ? { display_name: 'Shop' } : { retention_days: 30 },
    }),
  );
  t.same(tally(renames), { 200: 2 }, 'an app updated twice at once');
  t.notOk(
    server.logs.some((l) => l.msg === 'request failed'),
    'no request failed',
  );
});

t.test('one artifact in the trials of runs reported at once: each run stores its trials', async (t) => {
  const server = await serverFor(t);
  const root = rootCredentials(server);
  const runs: Run[] = [];
  for (let i = 0; i < 4; i++)
    runs.push(await claimedRun(server, root, { experiment: 'same-artifact', suite: `suite-${i}` }));
  // Every run's trial has the same artifact: its blob is stored once for the app, by whichever run's
  // transaction commits first; the others meet its key at their commit.
  for (let round = 0; round < 3; round++) {
    const trial = {
      taskId: `task-${round}`,
      attempt: 1,
      resolved: true,
      costUsd: 0.01,
      durationMs: 1000,
      artifact: { patch: `the same patch, round ${round}` },
    };
    const reports = await Promise.all(runs.map((run) => sendTrials(server, run.worker, run.id, [trial])));
    t.same(tally(reports), { 200: runs.length }, `round ${round}: every run's report stored`);
  }
  for (const run of runs) {
    const trials = await call(server, 'GET', `/v1/evals/runs/${run.id}/trials`, { auth: root });
    t.equal((trials.body.data as unknown[]).length, 3, `run ${run.id}: its three trials`);
  }
  t.notOk(
    server.logs.some((l) => l.msg === 'request failed'),
    'no request failed',
  );
});

t.test("keys and apps created at once stop at the plan's limits", async (t) => {
  const token = `op-${hex(24)}`;
  const server = await serverFor(t, { env: { TRACELAKE_OPERATOR_TOKEN: token } });
  const operator = { authorization: `Bearer ${token}` };
  // The free plan of data/plans.json: 5 keys, 1 app (its default).
  const tenant = (
    await call(server, 'POST', '/v1/operator/tenants', { headers: operator, body: { name: 'small', plan: 'free' } })
  ).body.data;
  const session = await call(server, 'POST', '/v1/operator/tokens', {
    headers: operator,
    body: { tenant_id: tenant.tenant_id, app_id: tenant.app_id, subject: 'ops@small.test' },
  });
  const admin = { authorization: `Bearer ${session.body.data.token}`, 'x-service-app-id': tenant.app_id };

  const keys = await Promise.all(
    Array.from({ length: 12 }, (_, i) =>
      call(server, 'POST', '/v1/api-keys', { headers: admin, body: { name: `key-${i}`, role: 'SDK' } }),
    ),
  );
  t.same(tally(keys), { 201: 5, '402 entitlement_required': 7 }, 'twelve keys at once under a limit of five');
  const listed = await call(server, 'GET', '/v1/api-keys', { headers: admin });
  t.equal((listed.body.data as unknown[]).length, 5, 'five stored');

  // The team plan: 10 apps, the tenant has its default one.
  t.equal(
    (
      await call(server, 'PATCH', `/v1/operator/tenants/${tenant.tenant_id}`, {
        headers: operator,
        body: { plan: 'team' },
      })
    ).status,
    200,
  );
  const apps = await Promise.all(
    Array.from({ length: 14 }, (_, i) =>
      call(server, 'POST', '/v1/apps', { headers: admin, body: { name: `app-${i}` } }),
    ),
  );
  t.same(tally(apps), { 201: 9, '402 entitlement_required': 5 }, 'fourteen apps at once, nine places left');
  const all = await call(server, 'GET', '/v1/apps', { headers: admin });
  t.equal((all.body.data as unknown[]).length, 10, 'ten stored');
});
