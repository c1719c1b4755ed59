/** src/ingest/commitProgress.ts: committed generations, their waiters, and the bytes waiting for a commit. */
import t from 'tap';
import { CommitProgress, keyOf } from '../../../src/ingest/commitProgress.js';

const a1 = { workerId: 'a', seq: 1 };
const a2 = { workerId: 'a', seq: 2 };
const b1 = { workerId: 'b', seq: 1 };

t.test('a commit covers its generation and the ones before it of the same worker', async (t) => {
  const p = new CommitProgress();
  t.notOk(p.isCommitted(a1));
  p.markCommitted(a2);
  t.ok(p.isCommitted(a1) && p.isCommitted(a2), 'generations commit in order');
  t.notOk(p.isCommitted({ workerId: 'a', seq: 3 }));
  t.notOk(p.isCommitted(b1), 'another worker has its own order');
  p.markCommitted(a1);
  t.ok(p.isCommitted(a2), 'a late report of an earlier generation takes nothing back');
  t.equal(keyOf(a2), 'a:2');
});

t.test('pending bytes count until their generation commits', async (t) => {
  const p = new CommitProgress();
  p.addPending(a1, 100);
  p.addPending(a1, 50);
  p.addPending(b1, 7);
  t.equal(p.pendingBytes, 157);
  p.markCommitted(a1);
  t.equal(p.pendingBytes, 7, "the committed generation's bytes leave");
  p.addPending(a1, 30);
  t.equal(p.pendingBytes, 7, 'bytes of a generation already committed are not counted');
});

t.test('waiters wake at the commit, or give up at the timeout', async (t) => {
  const p = new CommitProgress();
  p.markCommitted(b1);
  t.equal(await p.whenCommitted(b1, 10), true, 'committed already: at once');
  const first = p.whenCommitted(a1, 60_000);
  const second = p.whenCommitted(a1, null);
  p.markCommitted(a1);
  t.same(await Promise.all([first, second]), [true, true], 'every waiter of the generation wakes');
  t.equal(await p.whenCommitted(a2, 1), false, 'no commit within the timeout');
});

t.test("a worker that ended releases its generations' waiters and bytes, not another worker's", async (t) => {
  const p = new CommitProgress();
  p.addPending(a1, 10);
  p.addPending(a2, 20);
  p.addPending(b1, 5);
  const waiting = p.whenCommitted(a2, null);
  let other = false;
  void p.whenCommitted(b1, null).then(() => (other = true));
  p.releaseWorker('a');
  t.equal(await waiting, true);
  t.equal(p.pendingBytes, 5, "the ended worker's bytes leave the backlog, waited for or not");
  p.markCommitted(b1);
  await Promise.resolve();
  t.ok(other, "the other worker's waiter woke at its own commit");
});

t.test(
  'a generation committed record by record: the requests whose records were set aside are told theirs are not visible',
  async (t) => {
    const p = new CommitProgress();
    p.addPending(a1, 30);
    const kept = p.whenCommitted(a1, null, 0);
    const refused = p.whenCommitted(a1, null, 1);
    const unnumbered = p.whenCommitted(a1, null);
    p.markCommitted(a1, new Set([1]));
    t.same(await Promise.all([kept, refused, unnumbered]), [true, false, true]);
    t.equal(p.pendingBytes, 0, 'its bytes leave the backlog: the refused record waits in the quarantine, not in it');
  },
);
