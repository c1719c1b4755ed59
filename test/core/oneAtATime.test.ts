/** src/core/oneAtATime.ts: a tick during a run starts none beside it; the next tick after it does. */
import t from 'tap';
import { oneAtATime } from '../../src/core/oneAtATime.js';

/** A job whose runs end when the test says so. */
function heldJob() {
  const ends: (() => void)[] = [];
  let started = 0;
  const job = () => {
    started++;
    return new Promise<void>((resolve) => ends.push(resolve));
  };
  return { job, started: () => started, end: () => ends.shift()?.() };
}

t.test('ticks during a run start none; the tick after it starts the next', async (t) => {
  const { job, started, end } = heldJob();
  const tick = oneAtATime(job);
  const first = tick();
  await tick();
  await tick();
  t.equal(started(), 1, 'one run, however many ticks came during it');
  end();
  await first;
  const second = tick();
  t.equal(started(), 2, 'the tick after it ran the job again');
  end();
  await second;
});

t.test('a run that fails still lets the next tick run', async (t) => {
  let runs = 0;
  const tick = oneAtATime(async () => {
    runs++;
    throw new Error('the store is closed');
  });
  await t.rejects(tick(), /the store is closed/, 'the failure reaches the caller');
  await t.rejects(tick());
  t.equal(runs, 2);
});
