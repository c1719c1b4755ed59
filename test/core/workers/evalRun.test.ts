import t from 'tap';
import {
  cardOf,
  checkEvalEnd,
  evalEnd,
  evalEnvironment,
  LEASE_EXPIRED,
  parseEvalCommand,
  WORKER_STOPPED,
} from '../../../src/core/workers/evalRun.js';

t.test('the eval command', async (t) => {
  t.same(parseEvalCommand(' node  run.mjs --all '), ['node', 'run.mjs', '--all'], 'split on whitespace, no shell');
  t.same(parseEvalCommand('["/opt/my evals/run", "a b"]'), ['/opt/my evals/run', 'a b'], 'a JSON array keeps spaces');
  t.throws(() => parseEvalCommand('   '), { message: /expected a program/ });
  t.throws(() => parseEvalCommand('[oops'), { message: /not a JSON array of strings/ });
  t.throws(() => parseEvalCommand('[]'), { message: /non-empty JSON array/ });
  t.throws(() => parseEvalCommand('[""]'), { message: /non-empty JSON array/ });
  t.throws(() => parseEvalCommand('["a", 1]'), { message: /non-empty JSON array/ });
  t.throws(() => parseEvalCommand('[{"a":1}]'), { message: /non-empty JSON array/ });
});

t.test('its environment', async (t) => {
  const run = { id: 'r1', suite: 'swe-lite', suite_version: '2026.11', config: { model: 'm', n: 2 } };
  t.same(evalEnvironment(run, { url: 'http://gw', appId: 'a1' }, 'sk_service_run'), {
    TRACELAKE_URL: 'http://gw',
    TRACELAKE_APP_ID: 'a1',
    TRACELAKE_API_KEY: 'sk_service_run',
    TRACELAKE_EVAL_RUN_ID: 'r1',
    TRACELAKE_EVAL_CONFIG: '{"model":"m","n":2}',
    TRACELAKE_EVAL_SUITE: 'swe-lite',
    TRACELAKE_EVAL_SUITE_VERSION: '2026.11',
  });
  t.equal(
    evalEnvironment({ ...run, suite_version: null }, { url: 'u', appId: 'a' }, 'k').TRACELAKE_EVAL_SUITE_VERSION,
    '',
    'no version: empty',
  );
});

t.test('the card', async (t) => {
  t.same(cardOf('{"resolved_rate":0.5,"costUsd":1.25}'), {
    card: { resolved_rate: 0.5, costUsd: 1.25 },
    costUsd: 1.25,
  });
  t.same(cardOf('{"resolved_rate":0.5}'), { card: { resolved_rate: 0.5 }, costUsd: null }, 'no cost stated');
  t.same(cardOf('{"costUsd":-1}'), { card: { costUsd: -1 }, costUsd: null }, 'a negative cost is not a cost');
  t.same(cardOf('{"costUsd":"3"}'), { card: { costUsd: '3' }, costUsd: null }, 'nor is text');
  t.same(cardOf('done'), { card: {}, costUsd: null }, 'a line of text: the card {}');
  t.same(cardOf('[1,2]'), { card: {}, costUsd: null }, 'an array is not a card');
  t.same(cardOf('null'), { card: {}, costUsd: null });
  t.same(cardOf(null), { card: {}, costUsd: null }, 'nothing printed');
});

t.test('how the command ended', async (t) => {
  const limits = { timeoutSeconds: 60, maxOutputBytes: 4096 };
  const exit = { code: 0, signal: null, stoppedFor: null, spawnError: null } as const;
  t.same(evalEnd(exit, '{"score":1,"costUsd":0.5}', limits), {
    status: 'succeeded',
    reason: 'exit',
    exit_code: 0,
    error: null,
    card: { score: 1, costUsd: 0.5 },
    cost_usd: 0.5,
  });
  t.match(evalEnd({ ...exit, code: 2 }, '{"score":1}', limits), {
    status: 'failed',
    reason: 'exit',
    exit_code: 2,
    error: 'The eval command exited with 2',
    card: null,
  });
  t.match(evalEnd({ ...exit, code: null, signal: 'SIGKILL' }, null, limits), {
    status: 'failed',
    reason: 'exit',
    error: 'The eval command was killed by SIGKILL',
  });
  t.match(evalEnd({ ...exit, code: null }, null, limits), { error: 'The eval command was killed by a signal' });
  t.match(evalEnd({ ...exit, code: null, stoppedFor: 'timeout' }, null, limits), {
    status: 'failed',
    reason: 'timeout',
    error: 'The eval command ran past its timeout of 60 s and was stopped',
  });
  t.match(evalEnd({ ...exit, code: null, stoppedFor: 'output_limit' }, null, limits), {
    status: 'failed',
    reason: 'output_limit',
    error: 'The eval command printed more than 4096 bytes and was stopped',
  });
  t.match(evalEnd({ ...exit, code: null, spawnError: 'ENOENT' }, null, limits), {
    status: 'failed',
    reason: 'spawn',
    error: 'The eval command could not be started: ENOENT',
  });
  t.equal(WORKER_STOPPED, 'worker stopped');
  t.equal(LEASE_EXPIRED, 'lease_expired');
});

t.test('the gateway checks a reported end', async (t) => {
  t.same(checkEvalEnd({ status: 'succeeded', reason: 'exit', exitCode: 0, card: {}, error: null }), {
    kind: 'complete',
  });
  t.same(checkEvalEnd({ status: 'failed', reason: 'timeout', exitCode: null, card: null, error: 'too slow' }), {
    kind: 'fail',
  });
  t.throws(() => checkEvalEnd({ status: 'failed', reason: 'checkpoint', exitCode: null, card: null, error: 'x' }), {
    code: 'conflict',
    fields: { reason: 'checkpoint' },
  });
  t.throws(() => checkEvalEnd({ status: 'succeeded', reason: 'exit', exitCode: 1, card: {}, error: null }), {
    code: 'conflict',
    message: /exited with code 0/,
  });
  t.throws(() => checkEvalEnd({ status: 'succeeded', reason: 'timeout', exitCode: 0, card: {}, error: null }), {
    code: 'conflict',
  });
  t.throws(() => checkEvalEnd({ status: 'succeeded', reason: 'exit', exitCode: 0, card: null, error: null }), {
    code: 'conflict',
    message: /needs its card/,
  });
  t.throws(() => checkEvalEnd({ status: 'succeeded', reason: 'exit', exitCode: 0, card: [1], error: null }), {
    code: 'conflict',
    message: /needs its card/,
  });
  t.throws(() => checkEvalEnd({ status: 'cancelled', reason: 'exit', exitCode: null, card: null, error: null }), {
    code: 'conflict',
    fields: { status: 'cancelled' },
  });
  t.throws(() => checkEvalEnd({ status: 'failed', reason: 'exit', exitCode: 1, card: null, error: null }), {
    code: 'conflict',
    message: /needs its error/,
  });
  t.throws(() => checkEvalEnd({ status: 'failed', reason: 'exit', exitCode: 1, card: null, error: '  ' }), {
    code: 'conflict',
    message: /needs its error/,
  });
});
