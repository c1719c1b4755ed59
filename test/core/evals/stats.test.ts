import t from 'tap';
import { agrestiMin, mcnemarExact, meanInterval, rateChange, Z95 } from '../../../src/core/evals/stats.js';

const close = (t: { ok(v: boolean, m: string): unknown }, got: number, want: number, what: string, eps = 1e-9) =>
  t.ok(Math.abs(got - want) < eps, `${what}: ${got} ≈ ${want}`);

t.test('change in resolved rate over the paired tasks', async (t) => {
  t.equal(rateChange({ both: 0, fixed: 0, regressed: 0, neither: 0 }), null, 'no pairs, no change');
  t.equal(rateChange({ both: 5, fixed: 3, regressed: 1, neither: 1 }), 0.2);
});

t.test('Agresti–Min: a half added to each cell, then the Wald interval', async (t) => {
  t.equal(agrestiMin({ both: 0, fixed: 0, regressed: 0, neither: 0 }), null);
  // By hand: n = 10 → m = 12; fixed (3.5/12), regressed (1.5/12); diff = 1/6.
  const [lo, hi] = agrestiMin({ both: 5, fixed: 3, regressed: 1, neither: 1 })!;
  const f = 3.5 / 12;
  const r = 1.5 / 12;
  const se = Math.sqrt((f + r - (f - r) ** 2) / 12);
  close(t, lo, 1 / 6 - Z95 * se, 'lower');
  close(t, hi, 1 / 6 + Z95 * se, 'upper');
  const same = agrestiMin({ both: 20, fixed: 0, regressed: 0, neither: 20 })!;
  t.ok(same[0] < 0 && same[1] > 0, 'no discordant task still has width (the plain Wald interval would be [0, 0])');
  close(t, same[0], -same[1], 'and is symmetric');
  t.same(agrestiMin({ both: 0, fixed: 3, regressed: 0, neither: 0 }, 100), [-1, 1], 'clipped to [-1, 1]');
});

t.test('exact McNemar p-values', async (t) => {
  t.equal(mcnemarExact(0, 0), 1, 'no discordant task: no evidence');
  t.equal(mcnemarExact(3, 3), 1, 'capped at 1');
  close(t, mcnemarExact(5, 0), 2 / 32, '5 vs 0: 2 · (1/2)^5');
  close(t, mcnemarExact(1, 6), (2 * (1 + 7)) / 128, '1 vs 6: 2 · (C(7,0) + C(7,1)) / 2^7');
  close(t, mcnemarExact(0, 1500), 0, 'far past 2^-1074 without underflow trouble', 1e-300);
  const big = mcnemarExact(560, 440);
  t.ok(big > 0.0001 && big < 0.001, `560 vs 440: ${big} (normal approximation ≈ 0.00015)`);
});

t.test('mean of the paired differences with its normal interval', async (t) => {
  t.equal(meanInterval({ n: 1, meanDiff: 1, sdDiff: 0 }), null, 'one pair has no spread');
  t.equal(meanInterval({ n: 5, meanDiff: null, sdDiff: null }), null);
  t.equal(meanInterval({ n: 5, meanDiff: 1, sdDiff: null }), null);
  const [lo, hi] = meanInterval({ n: 4, meanDiff: 2, sdDiff: 1 })!;
  close(t, lo, 2 - Z95 / 2, 'lower');
  close(t, hi, 2 + Z95 / 2, 'upper');
});
