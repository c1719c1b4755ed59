/** src/http/liveness.ts: what /health knows beyond "the process answers". */
import t from 'tap';
import { Liveness } from '../../../src/http/liveness.js';
import type { DependencyCheck } from '../../../src/store/health.js';

const healthy = (name: string): DependencyCheck => ({ name, status: 'healthy', latencyMs: 1 });
const unhealthy = (name: string): DependencyCheck => ({ name, status: 'unhealthy', latencyMs: 1, error: 'down' });

t.test('only failing checks are reported', async (t) => {
  const l = new Liveness(async () => [healthy('duckdb'), unhealthy('disk')]);
  t.same(await l.failing(1000), [unhealthy('disk')]);
  t.equal(l.fatal, null);
});

t.test('a result stands for five seconds', async (t) => {
  let calls = 0;
  let answer: DependencyCheck[] = [unhealthy('disk')];
  const l = new Liveness(async () => {
    calls++;
    return answer;
  });
  t.same(await l.failing(10_000), [unhealthy('disk')]);
  answer = [healthy('disk')];
  t.same(await l.failing(14_999), [unhealthy('disk')], 'still the cached result');
  t.equal(calls, 1);
  t.same(await l.failing(15_000), [], 'checked again once five seconds have passed');
  t.equal(calls, 2);
});

t.test('concurrent probes share one check, and the next probe after it runs a new one', async (t) => {
  let calls = 0;
  let release!: (v: DependencyCheck[]) => void;
  const l = new Liveness(() => {
    calls++;
    return new Promise<DependencyCheck[]>((resolve) => (release = resolve));
  });
  const a = l.failing(0);
  const b = l.failing(0);
  await Promise.resolve();
  release([unhealthy('segments')]);
  t.same(await a, [unhealthy('segments')]);
  t.same(await b, [unhealthy('segments')]);
  t.equal(calls, 1, 'one check for both');
  const c = l.failing(60_000);
  release([]);
  t.same(await c, []);
  t.equal(calls, 2, 'the finished check is not reused');
});

t.test('a failing check function rejects the probe, and the next probe checks again', async (t) => {
  let fail = true;
  const l = new Liveness(async () => {
    if (fail) throw new Error('store gone');
    return [];
  });
  await t.rejects(l.failing(0), { message: 'store gone' });
  fail = false;
  t.same(await l.failing(1), []);
});

t.test('fatal: unhealthy from then on, the first reason kept, no checks run', async (t) => {
  let calls = 0;
  const l = new Liveness(async () => {
    calls++;
    return [];
  });
  l.markFatal('duckdb: FATAL');
  l.markFatal('later');
  t.equal(l.fatal, 'duckdb: FATAL');
  t.same(await l.failing(), [{ name: 'duckdb', status: 'unhealthy', latencyMs: 0, error: 'duckdb: FATAL' }]);
  t.equal(calls, 0);
});
