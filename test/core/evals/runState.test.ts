import t from 'tap';
import { acceptsTrials, isTerminal, reportKind, transition, RUN_STATUSES } from '../../../src/core/evals/runState.js';

t.test('what a report asks for: neither card nor error claims, a card completes, an error fails', async (t) => {
  t.equal(reportKind({}), 'claim');
  t.equal(reportKind({ card: null, costUsd: 0, error: null }), 'claim', 'null is absent (workers send all three keys)');
  t.equal(reportKind({ card: { pass_rate: 0.5 }, costUsd: 1.5 }), 'complete');
  t.equal(reportKind({ card: {}, error: null }), 'complete', 'an empty card is a card');
  t.equal(reportKind({ error: 'out of memory' }), 'fail');
  t.throws(() => reportKind({ card: {}, error: 'x' }), {
    code: 'invalid_request_body',
    fields: { details: { card: /not both/ } },
  });
  t.throws(() => reportKind({ error: '  ' }), {
    code: 'invalid_request_body',
    fields: { details: { error: 'must not be blank' } },
  });
});

t.test('the state table, every cell', async (t) => {
  t.equal(transition('queued', 'claim'), 'running', 'a claimable run is claimed');
  t.equal(transition('running', 'complete'), 'succeeded');
  t.equal(transition('running', 'fail'), 'failed');
  t.throws(
    () => transition('running', 'claim'),
    { code: 'conflict', status: 409, message: /already claimed/, fields: { status: 'running' } },
    'the loser of a claim race',
  );
  t.throws(() => transition('queued', 'complete'), {
    code: 'conflict',
    message: /Claim the run .* before reporting it complete/,
  });
  t.throws(() => transition('queued', 'fail'), { code: 'conflict', message: /before reporting it failed/ });
  for (const from of ['succeeded', 'failed'] as const) {
    for (const kind of ['claim', 'complete', 'fail'] as const) {
      t.throws(
        () => transition(from, kind),
        {
          code: 'conflict',
          status: 409,
          message: `The run has already ${from}: a terminal run takes no status report`,
          fields: { status: from },
        },
        `${from} + ${kind}`,
      );
    }
  }
});

t.test('terminal statuses, and which take trials', async (t) => {
  t.same(RUN_STATUSES.filter(isTerminal), ['succeeded', 'failed']);
  t.doesNotThrow(() => acceptsTrials('running'));
  t.throws(() => acceptsTrials('queued'), { code: 'conflict', message: /Claim the run/ });
  t.throws(() => acceptsTrials('succeeded'), {
    code: 'conflict',
    message: 'The run has already succeeded: it takes no more trials',
    fields: { status: 'succeeded' },
  });
  t.throws(() => acceptsTrials('failed'), { code: 'conflict', fields: { status: 'failed' } });
});
