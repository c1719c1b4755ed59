import { createHash } from 'node:crypto';
import t from 'tap';
import { validateTrialItem } from '../../../src/contract/evals.js';
import {
  assertTrialCount,
  derivedUuid,
  prepareTrial,
  prepareTrials,
  trialResource,
  TRIAL_SCORES,
  MAX_TRIALS,
} from '../../../src/core/evals/trials.js';

const RUN = '2edc42aa-b29c-48ad-9508-324299621795';
const TRACE = 'ABCDEF0123456789abcdef0123456789';
const trial = (over: Record<string, unknown> = {}) => ({
  taskId: 'task-1',
  resolved: true,
  costUsd: 0.1,
  durationMs: 1200,
  artifact: { patch: 'diff' },
  ...over,
});

t.test('batch size: 1 to 1000, more is 413', async (t) => {
  t.doesNotThrow(() => assertTrialCount(1));
  t.doesNotThrow(() => assertTrialCount(MAX_TRIALS));
  t.throws(() => assertTrialCount(0), { code: 'invalid_request_body', fields: { details: { trials: /1 to 1000/ } } });
  t.throws(() => assertTrialCount(1001), { code: 'payload_too_large', fields: { limit: 1000, count: 1001 } });
});

t.test('derived ids are UUIDs, stable, and differ with any part', async (t) => {
  const id = derivedUuid('trial', RUN, 'task-1', '1');
  t.match(id, /^[0-9a-f]{8}-[0-9a-f]{4}-8[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/, 'version 8, RFC variant');
  t.equal(derivedUuid('trial', RUN, 'task-1', '1'), id);
  t.not(derivedUuid('trial', RUN, 'task-1', '2'), id);
  t.not(derivedUuid('trial', RUN, 'task-11', ''), derivedUuid('trial', RUN, 'task-1', '1'), 'parts are separated');
});

t.test('a trial is prepared: ids, hashes, defaults, money rounded, trace id lowercased', async (t) => {
  const p = prepareTrial(
    RUN,
    { ...trial({ costUsd: 0.1 + 0.2, traceId: TRACE, sessionId: 's-1', metadata: { seed: 7 } }) } as never,
    3,
  );
  t.equal(p.index, 3);
  t.equal(p.id, derivedUuid('trial', RUN, 'task-1', '1'), 'attempt 1 by default');
  t.equal(p.attempt, 1);
  t.equal(p.costUsd, 0.3, 'no float noise');
  t.equal(p.traceId, TRACE.toLowerCase());
  t.equal(p.sessionId, 's-1');
  t.equal(p.artifactJson, '{"patch":"diff"}');
  t.equal(p.artifactSha256, createHash('sha256').update('{"patch":"diff"}').digest('hex'));
  t.equal(p.metadataJson, '{"seed":7}');
  t.same(p.scoreIds, {
    resolved: derivedUuid('score', p.id, TRIAL_SCORES.resolved),
    cost: derivedUuid('score', p.id, TRIAL_SCORES.cost),
    duration: derivedUuid('score', p.id, TRIAL_SCORES.duration),
  });
  const bare = prepareTrial(RUN, trial({ attempt: 2 }) as never, 0);
  t.equal(bare.attempt, 2);
  t.equal(bare.traceId, null);
  t.equal(bare.sessionId, null);
  t.equal(bare.metadataJson, null);
  t.equal(
    prepareTrial(RUN, trial() as never, 0).contentHash,
    prepareTrial(RUN, trial() as never, 5).contentHash,
    'the hash is of the content, not the position',
  );
  t.not(
    prepareTrial(RUN, trial({ resolved: false }) as never, 0).contentHash,
    prepareTrial(RUN, trial() as never, 0).contentHash,
  );
  t.not(
    prepareTrial(RUN, trial({ artifact: { patch: 'other' } }) as never, 0).contentHash,
    prepareTrial(RUN, trial() as never, 0).contentHash,
  );
});

t.test('a batch: malformed and repeated trials are rejected one by one, with their session ids', async (t) => {
  const { trials, rejected } = prepareTrials(
    RUN,
    [
      trial(),
      { ...trial({ taskId: '' }), sessionId: 'sess-bad' },
      'not an object',
      trial({ sessionId: 'again' }),
      trial({ taskId: 'task-2', attempt: 0 }),
      trial({ taskId: 'task-2', extra: true }),
      { ...trial(), sessionId: 'x'.repeat(300), resolved: 'yes' },
      trial({ taskId: 'task-2' }),
    ],
    validateTrialItem,
  );
  t.same(
    trials.map((x) => [x.index, x.taskId]),
    [
      [0, 'task-1'],
      [7, 'task-2'],
    ],
  );
  t.same(
    rejected.map((r) => [r.index, r.sessionId]),
    [
      [1, 'sess-bad'],
      [2, null],
      [3, 'again'],
      [4, null],
      [5, null],
      [6, null],
    ],
  );
  t.match(rejected[0]!.reason, /^taskId: expected/);
  t.equal(rejected[1]!.reason, 'a trial is a JSON object');
  t.equal(rejected[2]!.reason, 'task "task-1" attempt 1 is already trial 0 of this batch');
  t.match(rejected[3]!.reason, /^attempt: expected/);
  t.match(rejected[4]!.reason, /^extra: unknown property/);
});

t.test('what a trial is scored on: its trace, else its session, else itself as a session', async (t) => {
  t.same(trialResource({ id: 'i', traceId: 'aa', sessionId: 's' }), {
    resourceType: 'trace',
    resourceId: 'aa',
    traceId: 'aa',
    sessionId: 's',
  });
  t.same(trialResource({ id: 'i', traceId: null, sessionId: 's' }), {
    resourceType: 'session',
    resourceId: 's',
    traceId: null,
    sessionId: 's',
  });
  t.same(trialResource({ id: 'i', traceId: null, sessionId: null }), {
    resourceType: 'session',
    resourceId: 'trial:i',
    traceId: null,
    sessionId: 'trial:i',
  });
});
