/** src/http/requestBudget.ts: requests and body bytes in flight. */
import t from 'tap';
import { RequestBudget } from '../../../src/http/requestBudget.js';

t.test('requests: refused at the limit, counted again once one leaves', async (t) => {
  const b = new RequestBudget(2, 100);
  t.ok(b.enter(false));
  t.ok(b.enter(false));
  t.notOk(b.enter(false), 'a third read is refused');
  t.notOk(b.enter(true), 'so is a write');
  t.same(b.inFlight, { requests: 2, writes: 0, bytes: 0 }, 'a refusal counts nothing');
  b.leave(false);
  t.ok(b.enter(true));
  t.same(b.inFlight, { requests: 2, writes: 1, bytes: 0 });
  b.leave(true);
  b.leave(false);
  t.same(b.inFlight, { requests: 0, writes: 0, bytes: 0 });
});

t.test('writes hold at most three quarters of the slots, so reads keep a share', async (t) => {
  const b = new RequestBudget(8, 100);
  for (let i = 0; i < 6; i++) t.ok(b.enter(true), `write ${i + 1}`);
  t.notOk(b.enter(true), 'a seventh write is refused');
  t.ok(b.enter(false), 'a read still gets in');
  t.ok(b.enter(false));
  t.notOk(b.enter(false), 'and the total still holds');
  t.same(b.inFlight, { requests: 8, writes: 6, bytes: 0 });
  b.leave(false);
  t.notOk(b.enter(true), 'a free slot takes no write while writes hold their share');
  t.ok(b.enter(false), 'it takes a read');
  b.leave(true);
  t.ok(b.enter(true), 'a write leaving makes room for another');
  t.same(b.inFlight, { requests: 8, writes: 6, bytes: 0 });
});

t.test('a budget of one request still lets a write in', async (t) => {
  const b = new RequestBudget(1, 100);
  t.ok(b.enter(true), 'floor(0.75) = 0 would refuse every write: at least one is allowed');
  t.notOk(b.enter(false));
});

t.test('bytes: reserved up to the limit, released', async (t) => {
  const b = new RequestBudget(10, 100);
  t.ok(b.reserve(60));
  t.ok(b.reserve(40), 'exactly the limit fits');
  t.notOk(b.reserve(1), 'one more does not');
  t.equal(b.inFlight.bytes, 100, 'a refusal reserves nothing');
  b.release(60);
  t.notOk(b.reserve(61));
  t.ok(b.reserve(60));
  t.equal(b.inFlight.bytes, 100);
  t.equal(b.maxRequests, 10);
  t.equal(b.maxBytes, 100);
});
