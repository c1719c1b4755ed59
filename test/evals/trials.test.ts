/**
 * `POST /v1/evals/trials`: score rows and artifact blobs per trial, partial rejection, idempotent
 * retries, the refusals (413, a run not claimed or already ended), and the trials read back.
 */
import { createHash } from 'node:crypto';
import t from 'tap';
import { call, rootCredentials, serverFor } from '../helpers/server.js';
import { hex } from '../helpers/otlp.js';
import { claimedRun, createRun, report, sendTrials, trial } from './helpers.js';

const sha256 = (text: string) => createHash('sha256').update(text).digest('hex');

t.test('eval trials', async (t) => {
  const server = await serverFor(t);
  const root = rootCredentials(server);

  await t.test('each trial: three score rows (source eval) on its trace, and its artifact as a blob', async (t) => {
    const run = await claimedRun(server, root, { experiment: 'trials' });
    const traceId = hex(16);
    const artifact = { patch: '--- a/x\n+++ b/x', log: ['step 1', 'step 2'], nested: { ok: true } };
    const r = await sendTrials(server, run.worker, run.id, [
      trial('task-1', {
        traceId: traceId.toUpperCase(),
        resolved: true,
        costUsd: 0.1 + 0.2,
        durationMs: 1234.5,
        artifact,
        metadata: { seed: 3 },
      }),
      trial('task-2', { resolved: false, sessionId: 'agent-session-9', costUsd: 0.05, durationMs: 800 }),
      trial('task-3', { resolved: false }),
    ]);
    t.equal(r.status, 200, r.text);
    const result = r.body.data;
    t.equal(result.accepted.length, 3);
    t.same(result.rejected, []);
    t.equal(result.scoreRows, 9, 'three per trial');
    t.equal(result.blobsStored, 3);

    const scores = await call(server, 'GET', `/v1/scores?trace_id=${traceId}`, { auth: root });
    const byName = Object.fromEntries(scores.body.data.map((s: { name: string }) => [s.name, s]));
    t.match(byName['eval.trial.resolved'], {
      score: 1,
      data_type: 'BOOLEAN',
      source: 'eval',
      resource_type: 'trace',
      resource_id: traceId,
      trace_id: traceId,
    });
    t.match(
      byName['eval.trial.cost_usd'],
      { score: 0.3, data_type: 'NUMERIC', source: 'eval' },
      'money without float noise',
    );
    t.match(byName['eval.trial.duration_ms'], { score: 1234.5, data_type: 'NUMERIC', source: 'eval' });
    const session = await call(server, 'GET', '/v1/scores?session_id=agent-session-9', { auth: root });
    t.same(
      session.body.data.map((s: { name: string; score: number }) => [s.name, s.score]).sort(),
      [
        ['eval.trial.cost_usd', 0.05],
        ['eval.trial.duration_ms', 800],
        ['eval.trial.resolved', 0],
      ],
      'a trial without a trace is scored on its session',
    );
    t.match(session.body.data[0], { resource_type: 'session', resource_id: 'agent-session-9' });
    const names = await call(server, 'GET', '/v1/scores/names', { auth: root });
    t.ok(
      ['eval.trial.resolved', 'eval.trial.cost_usd', 'eval.trial.duration_ms'].every((n) =>
        names.body.data.includes(n),
      ),
    );

    const listed = await call(server, 'GET', `/v1/evals/runs/${run.id}/trials`, { auth: root });
    t.equal(listed.status, 200);
    t.same(listed.body.pagination, { total: 3, limit: 50, offset: 0 });
    const first = listed.body.data[0];
    t.match(first, {
      id: result.accepted[0],
      task_id: 'task-1',
      attempt: 1,
      resolved: true,
      cost_usd: 0.3,
      duration_ms: 1234.5,
      trace_id: traceId,
      metadata: { seed: 3 },
    });
    t.equal(
      first.artifact_sha256,
      sha256(JSON.stringify(artifact)),
      'the blob is addressed by the SHA-256 of the artifact as stored',
    );
    const blob = await call(server, 'GET', `/v1/agents/blob/${first.artifact_sha256}`, { auth: root });
    t.equal(blob.status, 200);
    t.equal(blob.headers.get('content-type'), 'application/json');
    t.same(JSON.parse(blob.text), artifact, 'the full artifact comes back');
    t.match(listed.body.data[2], { task_id: 'task-3', trace_id: null, session_id: null });
    const alone = await call(server, 'GET', `/v1/scores?session_id=trial:${listed.body.data[2].id}`, { auth: root });
    t.equal(alone.body.data.length, 3, 'a trial with neither trace nor session is scored as the session trial:<id>');
  });

  await t.test(
    'partial rejection: malformed trials are listed with index, reason and session id; the rest is stored',
    async (t) => {
      const run = await claimedRun(server, root, { experiment: 'trials' });
      const r = await sendTrials(server, run.worker, run.id, [
        trial('ok-1'),
        { ...trial('bad-cost', { costUsd: -1 }), sessionId: 'sess-neg' },
        trial('bad-trace', { traceId: 'xyz', sessionId: 'sess-trace' }),
        trial('ok-2', { attempt: 2 }),
        42,
        trial('ok-1'),
        trial('no-artifact', { artifact: undefined }),
      ]);
      t.equal(r.status, 200, 'the batch succeeds');
      const result = r.body.data;
      t.equal(result.accepted.length, 2);
      t.same(
        result.rejected.map((x: { index: number; sessionId: string | null }) => [x.index, x.sessionId]),
        [
          [1, 'sess-neg'],
          [2, 'sess-trace'],
          [4, null],
          [5, null],
          [6, null],
        ],
      );
      t.match(result.rejected[0].reason, /^costUsd/);
      t.match(result.rejected[1].reason, /^traceId/);
      t.match(result.rejected[3].reason, /already trial 0 of this batch/);
      t.match(result.rejected[4].reason, /^artifact/);
      t.equal(result.scoreRows, 6);
      const huge = await sendTrials(server, run.worker, run.id, [trial('huge-cost', { costUsd: 2e9 })]);
      t.match(huge.body.data.rejected[0]?.reason, /^costUsd/, 'a cost past a billion dollars is a mistake, refused');
      const all = await sendTrials(server, run.worker, run.id, [{ nope: true }]);
      t.equal(all.status, 200, 'a batch of only bad trials is still answered with its rejections');
      t.same(all.body.data, {
        accepted: [],
        rejected: [{ index: 0, reason: all.body.data.rejected[0].reason, sessionId: null }],
        blobsStored: 0,
        scoreRows: 0,
      });
    },
  );

  await t.test(
    'a retried batch stores nothing twice; other results under the same task and attempt are rejected',
    async (t) => {
      const run = await claimedRun(server, root, { experiment: 'trials' });
      const batch = [
        trial('r-1', { artifact: { same: 'artifact' } }),
        trial('r-2', { artifact: { same: 'artifact' } }),
        trial('r-3', { resolved: false }),
      ];
      const first = await sendTrials(server, run.worker, run.id, batch);
      t.match(first.body.data, { scoreRows: 9, blobsStored: 2 }, 'one blob for two equal artifacts');
      const again = await sendTrials(server, run.worker, run.id, batch);
      t.equal(again.status, 200);
      t.same(
        again.body.data,
        { accepted: first.body.data.accepted, rejected: [], blobsStored: 0, scoreRows: 0 },
        'the same ids, nothing stored',
      );
      const concurrent = await Promise.all([
        sendTrials(server, run.worker, run.id, [trial('r-4')]),
        sendTrials(server, run.worker, run.id, [trial('r-4')]),
      ]);
      t.same(concurrent.map((c) => c.body.data.scoreRows).sort(), [0, 3], 'two retries racing store it once');
      const changed = await sendTrials(server, run.worker, run.id, [
        trial('r-1', { resolved: false, artifact: { same: 'artifact' } }),
        trial('r-5'),
      ]);
      t.equal(changed.body.data.accepted.length, 1);
      t.match(changed.body.data.rejected, [{ index: 0, reason: /already stored with other results/ }]);
      const listed = await call(server, 'GET', `/v1/evals/runs/${run.id}/trials?limit=10`, { auth: root });
      t.equal(listed.body.pagination.total, 5, 'r-1 … r-5, once each');
      t.equal(
        listed.body.data.find((x: { task_id: string }) => x.task_id === 'r-1').resolved,
        true,
        'the first result stands',
      );
      const scores = await call(server, 'GET', `/v1/scores?session_id=trial:${first.body.data.accepted[0]}`, {
        auth: root,
      });
      t.equal(scores.body.data.length, 3, 'three score rows, not six');
    },
  );

  await t.test('refusals: a run not claimed or ended, a bad envelope, more than 1000 trials', async (t) => {
    const queued = await createRun(server, root, { experiment: 'trials' });
    const early = await sendTrials(server, queued.worker, queued.id, [trial('t')]);
    t.equal(early.status, 409);
    t.match(early.body.error, { code: 'conflict', status: 'queued' });
    const run = await claimedRun(server, root, { experiment: 'trials' });
    t.equal((await report(server, run.worker, run.id, { card: {} })).status, 200);
    const late = await sendTrials(server, root, run.id, [trial('t')]);
    t.equal(late.status, 409, 'trials for a terminal run are refused');
    t.match(late.body.error, { code: 'conflict', status: 'succeeded' });
    t.equal((await sendTrials(server, root, run.id, [{ bad: 1 }])).status, 409, 'even a batch of only bad trials');
    const open = await claimedRun(server, root, { experiment: 'trials' });
    const version = await call(server, 'POST', '/v1/evals/trials', {
      auth: open.worker,
      body: { evalRunId: open.id, schemaVersion: 2, trials: [trial('t')] },
    });
    t.equal(version.status, 400);
    t.ok(version.body.error.details.schemaVersion);
    const empty = await sendTrials(server, open.worker, open.id, []);
    t.equal(empty.status, 400);
    t.ok(empty.body.error.details.trials);
    const big = await sendTrials(
      server,
      open.worker,
      open.id,
      Array.from({ length: 1001 }, (_, i) => trial(`t${i}`)),
    );
    t.equal(big.status, 413);
    t.match(big.body.error, { code: 'payload_too_large', limit: 1000, count: 1001 });
    const max = await sendTrials(
      server,
      open.worker,
      open.id,
      Array.from({ length: 1000 }, (_, i) => trial(`t${i}`)),
    );
    t.match(max.body.data, { scoreRows: 3000, blobsStored: 1000 }, '1000 is fine');
  });
});
