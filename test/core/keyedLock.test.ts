import t from 'tap';
import { KeyedLock } from '../../src/core/keyedLock.js';

/** A promise and the function that settles it, to hold work open. */
function gate(): { open: () => void; opened: Promise<void> } {
  let open!: () => void;
  const opened = new Promise<void>((resolve) => (open = resolve));
  return { open, opened };
}

t.test('work of one key runs one at a time, in order; other keys do not wait', async (t) => {
  const serial = new KeyedLock();
  const log: string[] = [];
  const first = gate();
  const a1 = serial.run('a', async () => {
    log.push('a1 start');
    await first.opened;
    log.push('a1 end');
    return 1;
  });
  const a2 = serial.run('a', async () => {
    log.push('a2');
    return 2;
  });
  const b = serial.run('b', async () => {
    log.push('b');
    return 'b';
  });
  t.equal(await b, 'b', 'another key runs while the first is held');
  t.same(log, ['a1 start', 'b'], 'the second work of the key waits');
  first.open();
  t.equal(await a1, 1);
  t.equal(await a2, 2);
  t.same(log, ['a1 start', 'b', 'a1 end', 'a2']);
});

t.test('a failure reaches its caller and does not stop the work after it, nor the work after that', async (t) => {
  const serial = new KeyedLock();
  const failed = serial.run('a', async () => {
    throw new Error('refused');
  });
  const next = serial.run('a', async () => 'ran');
  const last = serial.run('a', async () => {
    throw new Error('again');
  });
  const after = serial.run('a', async () => 'after');
  await t.rejects(failed, /refused/);
  t.equal(await next, 'ran');
  await t.rejects(last, /again/);
  t.equal(await after, 'after');
});
