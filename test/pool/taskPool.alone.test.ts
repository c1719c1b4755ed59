/**
 * The task pool's own queue, with a real Piscina worker (test/helpers/poolWorker.ts): tasks beyond
 * the workers' capacity wait in order; a full queue is 503 `overloaded`; a waiting task whose
 * request was abandoned leaves the queue unrun, at once; a running one is never interrupted (its
 * worker — in the server, the store thread with its database — lives on).
 */
import t from 'tap';
import { ApiError } from '../../src/core/errors.js';
import { TaskPool } from '../../src/pool/taskPool.js';
import type { PoolTestTasks } from '../helpers/poolWorker.js';

const WORKER = new URL('../helpers/poolWorker.js', import.meta.url);

function pool(t: { teardown(fn: () => unknown): void }, maxQueue: number) {
  // One thread running two tasks at once.
  const p = new TaskPool<PoolTestTasks>({ entry: WORKER, workerData: null, threads: 1, tasksPerThread: 2, maxQueue });
  t.teardown(() => p.destroy());
  return p;
}

t.test('tasks past the capacity wait in order; past the queue, 503', async (t) => {
  const p = pool(t, 3);
  const ids = [1, 2, 3, 4, 5];
  const done = ids.map((id) => p.run('hold', { id, ms: 30 }));
  t.equal(p.queueSize, 3, 'two run, three wait');
  const refused = await p.run('hold', { id: 6, ms: 0 }).catch((e: unknown) => e);
  t.ok(refused instanceof ApiError && refused.code === 'overloaded' && refused.status === 503, 'a sixth is refused');
  t.equal(p.rejections, 1);
  t.same(
    (await Promise.all(done)).map((r) => r.id),
    ids,
  );
  t.same(await p.run('started', {}), ids, 'they started in the order they came');
  t.equal(p.queueSize, 0);
});

t.test('the waiting tasks of an abandoned request leave the queue unrun; running ones finish', async (t) => {
  const p = pool(t, 10);
  const first = p.run('hold', { id: 1, ms: 300 });
  const second = p.run('hold', { id: 2, ms: 300 });
  const requests = [3, 4, 5].map(() => new AbortController());
  const waiting = [3, 4, 5].map((id, i) =>
    p
      .forRequest(requests[i]!.signal)
      .run('hold', { id, ms: 0 })
      .catch((e: unknown) => e),
  );
  t.equal(p.queueSize, 3);

  requests[0]!.abort();
  requests[2]!.abort();
  const [three, five] = await Promise.all([waiting[0], waiting[2]]);
  for (const e of [three, five])
    t.ok(
      e instanceof ApiError && e.code === 'unavailable' && e.status === 503,
      'the abandoned tasks are answered at once',
    );
  t.equal(p.queueSize, 1, 'and are out of the queue while the first two still run');
  t.equal(p.abandoned, 2);

  const [a, b, c] = await Promise.all([first, second, waiting[1]]);
  t.same([a.id, b.id, (c as { id: number }).id], [1, 2, 4], 'the task left waiting ran');
  t.same(await p.run('started', {}), [1, 2, 4], 'the abandoned tasks never started');
});

t.test('once a task of a request has started, its other tasks run even if the client goes away', async (t) => {
  const p = pool(t, 10);
  const client = new AbortController();
  const request = p.forRequest(client.signal);
  const started = request.run('hold', { id: 1, ms: 200 });
  const other = p.run('hold', { id: 2, ms: 200 });
  const later = request.run('hold', { id: 3, ms: 0 });
  t.equal(p.queueSize, 1);
  client.abort();
  const [a, , c] = await Promise.all([started, other, later]);
  t.equal(c.id, 3, 'the waiting task of a request under way ran: its work is done whole, or not at all');
  t.equal(a.thread, c.thread, 'and the worker that ran the first, whose client went away, was not terminated');
  t.equal(p.abandoned, 0);
  t.same(
    await request.run('hold', { id: 4, ms: 0 }),
    { id: 4, thread: a.thread },
    'nor is a task it sends after the abort refused',
  );
});

t.test('a request already abandoned when its first task must wait is not queued', async (t) => {
  const p = pool(t, 10);
  const busy = [1, 2].map((id) => p.run('hold', { id, ms: 100 }));
  const gone = new AbortController();
  gone.abort();
  const e = await p
    .forRequest(gone.signal)
    .run('hold', { id: 3, ms: 0 })
    .catch((x: unknown) => x);
  t.ok(e instanceof ApiError && e.code === 'unavailable');
  t.equal(p.queueSize, 0);
  t.equal(p.abandoned, 1);
  await Promise.all(busy);
  t.same(await p.run('started', {}), [1, 2]);
});
