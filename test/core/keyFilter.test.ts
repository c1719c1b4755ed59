import t from 'tap';
import { KeyFilter } from '../../src/core/keyFilter.js';

/** Deterministic 32-bit numbers (xorshift), so that a failure reproduces. */
function numbers(seed: number): () => number {
  let x = seed >>> 0 || 1;
  return () => {
    x ^= x << 13;
    x ^= x >>> 17;
    x ^= x << 5;
    return x >>> 0;
  };
}

t.test('a key added is always found; one never added rarely', async (t) => {
  const filter = new KeyFilter(100_000, 1e-4);
  const next = numbers(7);
  const added: [number, number][] = [];
  for (let i = 0; i < 100_000; i++) added.push([next(), next()]);
  for (const [h, l] of added) filter.add(h, l);
  t.equal(filter.added, 100_000);
  t.ok(
    added.every(([h, l]) => filter.mayHave(h, l)),
    'no key added answers "no"',
  );
  let maybe = 0;
  const others = numbers(99);
  for (let i = 0; i < 1_000_000; i++) if (filter.mayHave(others(), others())) maybe++;
  // 1e-4 of a million is 100; the bound leaves room for chance, not for a filter twice as bad.
  t.ok(maybe < 200, `${maybe} of 1,000,000 keys never added answer "maybe"`);
});

t.test('keys that differ only in a few bits of one half spread as well', async (t) => {
  // A timestamp in the high half and a counter in the low: ids some tracers make.
  const filter = new KeyFilter(50_000, 1e-4);
  for (let i = 0; i < 50_000; i++) filter.add(1_765_000_000 + (i >> 10), i);
  let maybe = 0;
  for (let i = 50_000; i < 550_000; i++) if (filter.mayHave(1_765_000_000 + (i >> 10), i)) maybe++;
  t.ok(maybe < 100, `${maybe} of 500,000 neighbouring keys never added answer "maybe"`);
  t.ok(filter.mayHave(1_765_000_000, 0) && filter.mayHave(1_765_000_048, 49_999), 'the ones added are found');
});

t.test('an empty filter answers "no", and its size follows what is asked', async (t) => {
  const filter = new KeyFilter(1_000, 1e-6);
  t.notOk(filter.mayHave(0, 0), 'nothing added: no key');
  t.equal(filter.probes, 20, 'ln 2 × 29 bits a key');
  t.equal(filter.bits, 29 * 1_000 + 24, '29 bits a key for 1e-6, whole 32-bit words');
  t.equal(filter.bytes, filter.bits / 8);
  t.equal(new KeyFilter(0, 0.01).bits, 64, 'never fewer than 64 bits');
  filter.add(0, 0);
  t.ok(filter.mayHave(0, 0), 'the key 0 (ids that are not hex) is a key like any other');
});
