/**
 * src/http/workerService.ts: the lease sweeper's interval never starts a sweep beside the last one
 * (src/core/oneAtATime.ts), on Node's mock timers against a store that holds the first sweep.
 */
import { mock } from 'node:test';
import pino from 'pino';
import t from 'tap';
import type { PlanTable } from '../../src/core/plans.js';
import { WorkerService } from '../../src/http/workerService.js';

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

/** Lets the promise chains a released task starts run to their end. */
const settle = () => new Promise<void>((resolve) => setImmediate(resolve));

t.test('ticks while a sweep is under way start none beside it; the tick after it does', async (t) => {
  mock.timers.enable({ apis: ['setInterval'] });
  t.teardown(() => mock.timers.reset());
  const { store, asked, release } = slowStore();
  // No lease: every sweep finds work due (none is skipped as quiet), and the interval is 100 ms.
  const workers = new WorkerService(
    store as unknown as ConstructorParameters<typeof WorkerService>[0],
    null as unknown as ConstructorParameters<typeof WorkerService>[1],
    null as unknown as ConstructorParameters<typeof WorkerService>[2],
    {} as PlanTable,
    pino({ level: 'silent' }),
    { leaseMs: 0, maxAttempts: 3, maxSpansPerTrace: 100 },
  );
  t.teardown(() => workers.stop());
  workers.start();
  mock.timers.tick(100);
  t.same(asked, ['expireWorkerEvalLeases'], 'the first tick swept');
  mock.timers.tick(300);
  await settle();
  t.same(asked, ['expireWorkerEvalLeases'], 'three ticks during the sweep asked the store nothing');
  release();
  await settle();
  t.same(asked, ['expireWorkerEvalLeases', 'expireWorkerLeases', 'nextWorkerLeaseExpiry'], 'the sweep ended');
  mock.timers.tick(100);
  t.equal(asked.filter((a) => a === 'expireWorkerEvalLeases').length, 2, 'the tick after it swept again');
  release();
  await settle();
});
