/**
 * Eval runs through the API: creation with a run-scoped key, every transition of the spec's state
 * table ("Evaluation run"), the key revoked when the run completes or fails, the 409s, a claim race
 * between two concurrent workers, and what a run key may (not) do.
 */
import t, { type Test } from 'tap';
import { call, createKey, rootCredentials, serverFor } from '../helpers/server.js';
import { claimedRun, createRun, report, sendTrials, trial } from './helpers.js';

const isError = (t: Test, body: unknown, code: string) =>
  t.match(body, { error: { code, message: String } }, `error ${code}`);

t.test('eval runs', async (t) => {
  const server = await serverFor(t);
  const root = rootCredentials(server);

  await t.test('capabilities report evals and experiments as available', async (t) => {
    const caps = await call(server, 'GET', '/v1/capabilities');
    t.equal(caps.body.data.features.evals, true);
    t.equal(caps.body.data.features.experiments, true);
  });

  await t.test('creation answers the run, queued, with its key once', async (t) => {
    const r = await call(server, 'POST', '/v1/evals/runs', {
      auth: root,
      body: {
        experiment: 'creation',
        suite: 'swe-lite',
        suite_version: '2.1',
        config: { model: 'gpt-x', temperature: 0 },
        git_commit: 'ABCDEF1',
        git_branch: 'main',
      },
    });
    t.equal(r.status, 201, r.text);
    const run = r.body.data;
    t.match(run, {
      experiment: 'creation',
      suite: 'swe-lite',
      suite_version: '2.1',
      config: { model: 'gpt-x', temperature: 0 },
      git_commit: 'abcdef1',
      git_branch: 'main',
      status: 'queued',
      key_id: run.api_key.id,
      cost_usd: null,
      card: null,
      error: null,
      claimed_at: null,
      finished_at: null,
      environment_id: server.bootstrap!.environment_id,
    });
    t.match(run.api_key.plaintext_key, /^sk_service_[0-9A-Za-z]{43}$/);
    t.equal(run.api_key.key_prefix, run.api_key.plaintext_key.slice(0, 12));
    const read = await call(server, 'GET', `/v1/evals/runs/${run.id}`, { auth: root });
    t.equal(read.status, 200);
    t.notOk(read.text.includes(run.api_key.plaintext_key), 'the plaintext is shown once');
    const keys = await call(server, 'GET', '/v1/api-keys', { auth: root });
    t.match(
      keys.body.data.find((k: { id: string }) => k.id === run.api_key.id),
      { name: 'eval run', role: 'custom', permissions: [], revoked_at: null },
      'listed among the keys, with no permission of its own',
    );
    const again = await createRun(server, root, { experiment: 'creation' });
    t.equal(again.experimentId, run.experiment_id, 'the experiment is created on first use, then reused');
  });

  await t.test('bad bodies are 400 in the spec shape; creating needs admin credentials', async (t) => {
    const missing = await call(server, 'POST', '/v1/evals/runs', { auth: root, body: { suite: 's' } });
    t.equal(missing.status, 400);
    isError(t, missing.body, 'invalid_request_body');
    t.ok(missing.body.error.details.experiment, 'names the field');
    const extra = await call(server, 'POST', '/v1/evals/runs', {
      auth: root,
      body: { experiment: 'e', suite: 's', surprise: 1 },
    });
    t.equal(extra.status, 400);
    const badCommit = await call(server, 'POST', '/v1/evals/runs', {
      auth: root,
      body: { experiment: 'e', suite: 's', git_commit: 'xyz' },
    });
    t.ok(badCommit.body.error.details.git_commit);
    const sdk = await createKey(server, root, { name: 'sdk', role: 'SDK' });
    const refused = await call(server, 'POST', '/v1/evals/runs', { auth: sdk, body: { experiment: 'e', suite: 's' } });
    t.equal(refused.status, 403);
    t.equal(refused.body.error.required_permission, 'full_access');
    const reader = await createKey(server, root, {
      name: 'no-experiments',
      role: 'Custom',
      permissions: ['trace.read'],
    });
    t.equal((await call(server, 'GET', '/v1/evals/runs', { auth: reader })).status, 403, 'reads need experiment.read');
  });

  await t.test('the state table: claim, complete with a card; the key is revoked at once; then 409', async (t) => {
    const run = await createRun(server, root, { experiment: 'table' });
    const claim = await report(server, run.worker, run.id, { card: null, costUsd: null, error: null });
    t.equal(claim.status, 200, 'a report with neither card nor error claims the claimable run');
    t.match(
      claim.body.data,
      { status: 'running', config: {}, claimed_at: String, finished_at: null },
      'the claim answers the run: what the worker needs to start',
    );
    const complete = await report(server, run.worker, run.id, { card: { resolved: 40, of: 50 }, costUsd: 1.25 });
    t.equal(complete.status, 200, complete.text);
    t.match(complete.body.data, {
      status: 'succeeded',
      card: { resolved: 40, of: 50 },
      cost_usd: 1.25,
      error: null,
      finished_at: String,
    });
    const after = await report(server, run.worker, run.id, {});
    t.equal(after.status, 401, 'the run key was revoked with the completion');
    t.match(after.body.error.message, /revoked/);
    const keys = await call(server, 'GET', '/v1/api-keys', { auth: root });
    t.ok(keys.body.data.find((k: { id: string }) => k.id === run.keyId).revoked_at, 'and shows as revoked');
    for (const body of [{}, { card: {} }, { error: 'late' }]) {
      const again = await report(server, root, run.id, body);
      t.equal(again.status, 409, `a report on a succeeded run is 409: ${JSON.stringify(body)}`);
      isError(t, again.body, 'conflict');
      t.equal(again.body.error.status, 'succeeded');
    }
    const read = await call(server, 'GET', `/v1/evals/runs/${run.id}`, { auth: root });
    t.match(
      read.body.data,
      { status: 'succeeded', card: { resolved: 40, of: 50 } },
      'unchanged by the refused reports',
    );
  });

  await t.test('the state table: claim, fail with an error; the key is revoked at once; then 409', async (t) => {
    const run = await claimedRun(server, root, { experiment: 'table' });
    const fail = await report(server, run.worker, run.id, { error: 'the sandbox ran out of disk', costUsd: 0.5 });
    t.equal(fail.status, 200);
    t.match(fail.body.data, { status: 'failed', error: 'the sandbox ran out of disk', cost_usd: 0.5, card: null });
    t.equal(
      (await report(server, run.worker, run.id, { error: 'again' })).status,
      401,
      'the run key was revoked with the failure',
    );
    t.equal((await sendTrials(server, run.worker, run.id, [trial('t')])).status, 401);
    for (const body of [{}, { card: {} }, { error: 'late' }]) {
      const again = await report(server, root, run.id, body);
      t.equal(again.status, 409, `a report on a failed run is 409: ${JSON.stringify(body)}`);
      t.equal(again.body.error.status, 'failed');
    }
  });

  await t.test('reports out of order are 409: complete or fail before a claim, a second claim', async (t) => {
    const run = await createRun(server, root, { experiment: 'order' });
    const early = await report(server, run.worker, run.id, { card: {} });
    t.equal(early.status, 409);
    t.match(early.body.error, { code: 'conflict', status: 'queued', message: /Claim the run/ });
    t.equal((await report(server, run.worker, run.id, { error: 'x' })).status, 409);
    t.equal((await report(server, run.worker, run.id, {})).status, 200);
    const second = await report(server, run.worker, run.id, {});
    t.equal(second.status, 409);
    t.match(second.body.error, { code: 'conflict', status: 'running', message: /already claimed/ });
    const both = await report(server, run.worker, run.id, { card: {}, error: 'x' });
    t.equal(both.status, 400, 'a card and an error at once');
    t.ok(both.body.error.details.card);
    t.equal((await report(server, run.worker, run.id, { costUsd: -1 })).status, 400);
    t.equal((await report(server, run.worker, run.id, { costUsd: 2e9 })).status, 400, 'past a billion dollars');
    t.equal((await report(server, run.worker, run.id, { error: ' ' })).status, 400);
  });

  await t.test('a claim race: two workers claim at once, exactly one wins', async (t) => {
    for (let round = 0; round < 5; round++) {
      const run = await createRun(server, root, { experiment: 'race' });
      const answers = await Promise.all([
        report(server, run.worker, run.id, {}),
        report(server, run.worker, run.id, {}),
      ]);
      t.same(
        answers.map((a) => a.status).sort(),
        [200, 409],
        `round ${round}: ${answers.map((a) => a.text.slice(0, 80)).join(' | ')}`,
      );
      t.equal(answers.find((a) => a.status === 409)!.body.error.code, 'conflict');
    }
  });

  await t.test('a run key reports for its run and does nothing else', async (t) => {
    const mine = await createRun(server, root, { experiment: 'keys' });
    const other = await createRun(server, root, { experiment: 'keys' });
    const foreign = await report(server, mine.worker, other.id, {});
    t.equal(foreign.status, 403, "another run's status");
    isError(t, foreign.body, 'forbidden');
    t.equal((await sendTrials(server, mine.worker, other.id, [trial('t')])).status, 403, "another run's trials");
    for (const [method, path, body] of [
      ['GET', '/v1/traces'],
      ['GET', `/v1/evals/runs/${mine.id}`],
      ['GET', '/v1/experiments'],
      ['GET', '/v1/scores'],
      ['POST', '/v1/scores', { name: 'x', resource_id: 'ab'.repeat(16), score: 1 }],
      ['POST', '/v1/evals/runs', { experiment: 'e', suite: 's' }],
      ['GET', '/v1/api-keys'],
    ] as const) {
      const r = await call(server, method, path, { auth: mine.worker, ...(body ? { body } : {}) });
      t.equal(r.status, 403, `${method} ${path}`);
      t.match(r.body.error.message, /does nothing else/);
    }
    t.equal((await report(server, other.worker, other.id, {})).status, 200, 'the other run is untouched');
  });

  await t.test('unknown runs are 404; run ids are UUIDs', async (t) => {
    const unknown = await report(server, root, '00000000-0000-4000-8000-000000000000', {});
    t.equal(unknown.status, 404);
    isError(t, unknown.body, 'not_found');
    t.equal((await sendTrials(server, root, '00000000-0000-4000-8000-000000000000', [trial('t')])).status, 404);
    t.equal(
      (await call(server, 'GET', '/v1/evals/runs/00000000-0000-4000-8000-000000000000', { auth: root })).status,
      404,
    );
    const bad = await report(server, root, 'not-a-uuid', {});
    t.equal(bad.status, 400);
    isError(t, bad.body, 'invalid_path_parameters');
  });

  await t.test('an admin may report for a run in its scope, as a worker would', async (t) => {
    const run = await createRun(server, root, { experiment: 'admin' });
    t.equal((await report(server, root, run.id, {})).status, 200);
    const done = await report(server, root, run.id, { card: { by: 'admin' } });
    t.equal(done.body.data.status, 'succeeded');
    t.equal(
      (await report(server, run.worker, run.id, {})).status,
      401,
      'the run key ends with the run whoever ended it',
    );
  });

  await t.test('listing runs: newest first, by experiment and status, paginated', async (t) => {
    const a = await createRun(server, root, { experiment: 'listing' });
    const b = await claimedRun(server, root, { experiment: 'listing' });
    const all = await call(server, 'GET', `/v1/evals/runs?experiment_id=${a.experimentId}`, { auth: root });
    t.same(
      all.body.data.map((r: { id: string }) => r.id),
      [b.id, a.id],
    );
    t.same(all.body.pagination, { total: 2, limit: 50, offset: 0 });
    const running = await call(server, 'GET', `/v1/evals/runs?experiment_id=${a.experimentId}&status=running`, {
      auth: root,
    });
    t.same(
      running.body.data.map((r: { id: string }) => r.id),
      [b.id],
    );
    const page = await call(server, 'GET', `/v1/evals/runs?experiment_id=${a.experimentId}&limit=1&offset=1`, {
      auth: root,
    });
    t.same(
      page.body.data.map((r: { id: string }) => r.id),
      [a.id],
    );
    t.equal((await call(server, 'GET', '/v1/evals/runs?status=done', { auth: root })).status, 400);
    const readOnly = await createKey(server, root, { name: 'reader', role: 'Read-Only' });
    t.equal(
      (await call(server, 'GET', `/v1/evals/runs/${a.id}`, { auth: readOnly })).status,
      200,
      'experiment.read reads runs',
    );
  });
});
