/** src/http/workerService.ts: the lease sweeper never runs two sweeps at once. */
import pino from 'pino';
import t from 'tap';
import type { PlanTable } from '../../../src/core/plans.js';
import { WorkerService } from '../../../src/http/workerService.js';

/** A store that records the tasks asked of it and answers each sweep's first one when told to. */
function slowStore() {
  const asked: string[] = [];
  const held: (() => void)[] = [];
  const store = {
    run(task: string): Promise<unknown> {
      asked.push(task);
      if (task === 'expireWorkerEvalLeases') return new Promise((resolve) => held.push(() => resolve([])));
      if (task === 'nextWorkerLeaseExpiry') return Promise.resolve(null);
      return Promise.resolve([]);
    },
  };
  return { store, asked, release: () => held.shift()?.() };
}

function service(store: unknown): WorkerService {
  // No lease: every sweep finds work due, so none is skipped as quiet.
  const settings = { leaseMs: 0, maxAttempts: 3, maxSpansPerTrace: 100 };
  return new WorkerService(
    store as ConstructorParameters<typeof WorkerService>[0],
    null as unknown as ConstructorParameters<typeof WorkerService>[1],
    null as unknown as ConstructorParameters<typeof WorkerService>[2],
    {} as PlanTable,
    pino({ level: 'silent' }),
    settings,
  );
}

t.test('a tick while a sweep is under way starts none beside it; the next tick after it does', async (t) => {
  const { store, asked, release } = slowStore();
  const workers = service(store);
  const first = workers.sweepIfIdle();
  await workers.sweepIfIdle();
  await workers.sweepIfIdle();
  t.same(asked, ['expireWorkerEvalLeases'], 'one sweep asked the store; the ticks beside it asked nothing');
  release();
  await first;
  t.same(asked, ['expireWorkerEvalLeases', 'expireWorkerLeases', 'nextWorkerLeaseExpiry']);
  const second = workers.sweepIfIdle();
  release();
  await second;
  t.equal(asked.filter((a) => a === 'expireWorkerEvalLeases').length, 2, 'the tick after it swept again');
});

t.test('a sweep that fails is logged and the next tick sweeps', async (t) => {
  let calls = 0;
  const workers = service({
    run: () => {
      calls++;
      return Promise.reject(new Error('the store is closed'));
    },
  });
  await workers.sweepIfIdle();
  await workers.sweepIfIdle();
  t.equal(calls, 2);
});
