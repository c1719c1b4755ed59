import t from 'tap';
import { RateLimiter } from '../../src/core/rateLimit.js';

t.test('token bucket per tenant', async (t) => {
  const r = new RateLimiter(2, 3);
  t.same(
    [1, 2, 3].map(() => r.take('a', 0).allowed),
    [true, true, true],
    'the burst',
  );
  t.same(r.take('a', 0), { allowed: false, retryAfterSeconds: 1 });
  t.ok(r.take('b', 0).allowed, 'tenants do not share a bucket');
  t.ok(r.take('a', 500).allowed, 'half a second refills one token at 2/s');
  t.notOk(r.take('a', 500).allowed);
  t.ok(r.take('a', 10_000).allowed, 'a long pause refills…');
  t.ok(r.take('a', 10_000).allowed);
  t.ok(r.take('a', 10_000).allowed);
  t.notOk(r.take('a', 10_000).allowed, '…but never beyond the burst');
  const slow = new RateLimiter(0.1, 1);
  t.ok(slow.take('a', 0).allowed);
  t.same(slow.take('a', 0), { allowed: false, retryAfterSeconds: 10 }, 'retry after the time one token takes');
});

t.test('off, and bounded memory', async (t) => {
  const off = new RateLimiter(0, 0);
  t.ok(Array.from({ length: 100 }, () => off.take('a', 0).allowed).every(Boolean));
  const small = new RateLimiter(1, 1, 2);
  small.take('a', 0);
  small.take('b', 0);
  small.take('c', 0);
  t.ok(small.take('a', 0).allowed, 'the oldest bucket was dropped, so a starts full again');
});
