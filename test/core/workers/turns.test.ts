import t from 'tap';
import { ApiError } from '../../../src/core/errors.js';
import {
  afterLeaseExpiry,
  assertTakesTurn,
  checkEnd,
  checkWorkerEntitlement,
  isInFlight,
  runStatus,
  workBranchOf,
  WORKER_ENTITLEMENT,
} from '../../../src/core/workers/turns.js';

t.test('states', async (t) => {
  t.same(
    ['queued', 'running', 'succeeded', 'failed', 'cancelled'].map((s) => isInFlight(s as never)),
    [true, true, false, false, false],
  );
  t.equal(workBranchOf('abc'), 'tracelake/abc');
  t.equal(runStatus('oneshot', false, 'succeeded'), 'succeeded', 'a one-shot run shows its turn');
  t.equal(runStatus('oneshot', false, 'queued'), 'queued');
  t.equal(runStatus('session', true, 'running'), 'running', 'a session with a turn in flight shows it');
  t.equal(
    runStatus('session', true, 'failed'),
    'idle',
    'an open session between turns is idle, whatever the last turn did',
  );
  t.equal(runStatus('session', false, 'succeeded'), 'closed');
});

t.test('one turn at a time per session', async (t) => {
  t.doesNotThrow(() => assertTakesTurn({ id: 's', open: true, latest: 'succeeded' }));
  t.doesNotThrow(() => assertTakesTurn({ id: 's', open: true, latest: 'cancelled' }));
  t.throws(() => assertTakesTurn({ id: 's', open: true, latest: 'running' }), {
    code: 'environment_busy',
    status: 409,
    fields: { run_id: 's' },
  });
  t.throws(() => assertTakesTurn({ id: 's', open: true, latest: 'queued' }), {
    code: 'environment_busy',
    message: /is queued/,
  });
  t.throws(() => assertTakesTurn({ id: 's', open: false, latest: 'succeeded' }), {
    code: 'conflict',
    message: /closed/,
  });
});

t.test('a lost lease', async (t) => {
  t.same(afterLeaseExpiry({ lostLeases: 1, cancelRequested: false }, 3), { status: 'queued' }, 'queued again');
  t.same(afterLeaseExpiry({ lostLeases: 2, cancelRequested: false }, 3), { status: 'queued' });
  const failed = afterLeaseExpiry({ lostLeases: 3, cancelRequested: false }, 3);
  t.match(failed, { status: 'failed', reason: 'lease_expired', error: /expired 3 times \(at most 3 attempts\)/ });
  t.match(
    afterLeaseExpiry({ lostLeases: 1, cancelRequested: false }, 1),
    { status: 'failed', error: /expired 1 time \(/ },
    'one attempt: the first loss fails it',
  );
  t.match(
    afterLeaseExpiry({ lostLeases: 1, cancelRequested: true }, 3),
    { status: 'cancelled', reason: 'cancelled' },
    'a turn asked to stop is cancelled',
  );
});

t.test('a reported end', async (t) => {
  t.doesNotThrow(() => checkEnd({ status: 'succeeded', reason: 'exit', exitCode: 0 }, false));
  t.doesNotThrow(() => checkEnd({ status: 'failed', reason: 'timeout', exitCode: null }, false));
  t.doesNotThrow(() => checkEnd({ status: 'cancelled', reason: 'cancelled', exitCode: null }, true));
  t.throws(() => checkEnd({ status: 'succeeded', reason: 'exit', exitCode: 1 }, false), {
    code: 'conflict',
    fields: { reason: 'exit' },
  });
  t.throws(() => checkEnd({ status: 'succeeded', reason: 'timeout', exitCode: 0 }, false), { code: 'conflict' });
  t.throws(() => checkEnd({ status: 'cancelled', reason: 'cancelled', exitCode: null }, false), {
    code: 'conflict',
    message: /Nobody asked/,
  });
});

t.test("the plan's cap on runs in flight", async (t) => {
  t.doesNotThrow(() => checkWorkerEntitlement(null, 1000), 'no cap');
  t.doesNotThrow(() => checkWorkerEntitlement(2, 1));
  try {
    checkWorkerEntitlement(2, 2);
    t.fail('refused');
  } catch (e) {
    t.ok(e instanceof ApiError);
    t.same((e as ApiError).toBody(), {
      error: {
        code: 'entitlement_required',
        message: 'The plan allows 2 worker runs in flight at once; the tenant has 2',
        entitlement: WORKER_ENTITLEMENT,
        current: 2,
        limit: 2,
      },
    });
    t.equal((e as ApiError).status, 402);
  }
  t.throws(() => checkWorkerEntitlement(1, 1), {
    message: 'The plan allows 1 worker run in flight at once; the tenant has 1',
  });
  t.throws(() => checkWorkerEntitlement(0, 0), {
    message: 'The plan does not include workers',
    fields: { current: 0, limit: 0 },
  });
});
