/**
 * The task pool's own queue, with a real Piscina worker (test/helpers/poolWorker.ts): tasks beyond
 * the workers' capacity wait in order; a full queue is 503 `overloaded`; a waiting task whose
 * request was abandoned leaves the queue unrun, at once; a running one is never interrupted (its
 * worker — in the server, the store thread with its database — lives on). Under overload the
 * pool's own tasks go first, requests hold only their share of the slots, and a request that
 * waited past the bound is refused unrun.
 */
import t from 'tap';
import { ApiError } from '../../src/core/errors.js';
import { TaskPool } from '../../src/pool/taskPool.js';
import type { PoolTestTasks } from '../helpers/poolWorker.js';

const WORKER = new URL('../helpers/poolWorker.js', import.meta.url);

function pool(
  t: { teardown(fn: () => unknown): void },
  maxQueue: number,
  more: { tasksPerThread?: number; requestSlots?: number; maxWaitMs?: number } = {},
) {
  // One thread running two tasks at once, unless told otherwise.
  const p = new TaskPool<PoolTestTasks>({
    entry: WORKER,
    workerData: null,
    threads: 1,
    tasksPerThread: 2,
    maxQueue,
    ...more,
  });
  t.teardown(() => p.destroy());
  return p;
}

/** A request's view of the pool, with the controller that abandons it. */
function request(p: TaskPool<PoolTestTasks>) {
  const client = new AbortController();
  return { client, tasks: p.forRequest(client.signal) };
}

const isShed = (e: unknown) => e instanceof ApiError && e.code === 'overloaded' && e.status === 503;

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

t.test("the pool's own waiting tasks go before requests' waiting ones", async (t) => {
  const p = pool(t, 10);
  const busy = [1, 2].map((id) => p.run('hold', { id, ms: 100 }));
  const theirs = [3, 4].map((id) => request(p).tasks.run('hold', { id, ms: 0 }));
  const ours = [5, 6].map((id) => p.run('hold', { id, ms: 0 }));
  t.equal(p.queueSize, 4);
  await Promise.all([...busy, ...theirs, ...ours]);
  t.same(await p.run('started', {}), [1, 2, 5, 6, 3, 4], 'in order within each class, ours first');
});

t.test("requests hold at most their share of the slots; the rest stay the pool's own", async (t) => {
  const p = pool(t, 10, { tasksPerThread: 4, requestSlots: 2 });
  const held = [1, 2, 3].map((id) => request(p).tasks.run('hold', { id, ms: 300 }));
  t.equal(p.active, 2, 'two requests run');
  t.equal(p.queueSize, 1, 'the third waits though two slots are free');
  const ours = await Promise.all([4, 5].map((id) => p.run('hold', { id, ms: 0 })));
  t.same(
    ours.map((r) => r.id),
    [4, 5],
    'the pool ran its own tasks in the free slots, without waiting for the requests',
  );
  t.equal(p.queueSize, 1, 'while the third request still waited');
  await Promise.all(held);
  t.same(await p.run('started', {}), [1, 2, 4, 5, 3]);
});

t.test("a request that waited past the bound is refused, unrun; the pool's own tasks wait on", async (t) => {
  const p = pool(t, 10, { maxWaitMs: 100 });
  const busy = [1, 2].map((id) => p.run('hold', { id, ms: 400 }));
  const late = request(p);
  // Two tasks of one request: both leave together, so neither starts after its answer went out.
  const refused = [3, 4].map((id) => late.tasks.run('hold', { id, ms: 0 }).catch((e: unknown) => e));
  const ours = p.run('hold', { id: 5, ms: 0 });
  const [three, four] = await Promise.all(refused);
  t.ok(isShed(three) && isShed(four), '503 overloaded for both');
  t.match((three as ApiError).message, /waited 0\.1 s/, 'saying how long it waited');
  t.same((three as ApiError).headers, { 'Retry-After': '1' });
  t.equal(p.shed, 2);
  t.equal(p.queueSize, 1, "only the pool's own task still waits");
  t.equal((await ours).id, 5);
  await Promise.all(busy);
  t.same(await p.run('started', {}), [1, 2, 5], 'the refused tasks never ran');
});

t.test('a request one of whose tasks has started waits on past the bound: its work finishes whole', async (t) => {
  const p = pool(t, 10, { maxWaitMs: 50 });
  const under = request(p);
  const first = under.tasks.run('hold', { id: 1, ms: 300 });
  const other = p.run('hold', { id: 2, ms: 300 });
  const second = under.tasks.run('hold', { id: 3, ms: 0 });
  const shedLater = request(p)
    .tasks.run('hold', { id: 4, ms: 0 })
    .catch((e: unknown) => e);
  t.ok(isShed(await shedLater), 'a request with nothing started is refused after the bound');
  const [, , c] = await Promise.all([first, other, second]);
  t.equal(c.id, 3, 'the request under way ran its second task');
  t.equal(p.shed, 1);
  t.same(await p.run('started', {}), [1, 2, 3]);
});

t.test('a task that got its slot within the bound is not refused when the bound passes', async (t) => {
  const p = pool(t, 10, { maxWaitMs: 300 });
  await p.run('started', {}); // the thread is up: the first task's wait is the hold alone
  const busy = p.run('hold', { id: 1, ms: 20 });
  const other = p.run('hold', { id: 2, ms: 600 });
  const waited = request(p).tasks.run('hold', { id: 3, ms: 500 });
  await busy;
  t.equal((await waited).id, 3, 'it ran past the bound to its end');
  await other;
  t.equal(p.shed, 0);
});
