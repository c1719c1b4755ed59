/** src/core/cost/money.ts: USD figures as the API answers them. */
import t from 'tap';
import { MAX_SPAN_COST_USD, roundUsd, storableCost, USD_DECIMALS } from '../../../src/core/cost/money.js';

t.test('roundUsd: ten places, printed in their shortest decimal form', async (t) => {
  t.equal(USD_DECIMALS, 10);
  t.equal(String(roundUsd(0.032780000000000004)), '0.03278', 'float noise from an SDK goes');
  t.equal(String(roundUsd(0.1 + 0.2)), '0.3');
  t.equal(roundUsd(0.00000000004), 0, 'below half of the tenth place');
  t.equal(roundUsd(0.00000000005), 0.0000000001, 'half rounds up');
  t.equal(roundUsd(12.5), 12.5);
  t.equal(roundUsd(0), 0);
  t.equal(roundUsd(-0.30000000000000004), -0.3, 'a credit too');
  t.equal(roundUsd(1e9 + 0.1), 1e9 + 0.1, 'a figure too large to scale exactly is kept as given');
  t.equal(roundUsd(Infinity), Infinity);
  t.ok(Number.isNaN(roundUsd(NaN)));
});

t.test('storableCost: what a span keeps as its cost (its sums are DECIMAL(38, 12))', async (t) => {
  t.equal(MAX_SPAN_COST_USD, 1e9);
  t.equal(storableCost(0.03278), 0.03278);
  t.equal(storableCost(0), 0);
  t.equal(storableCost(1e9), 1e9, 'a billion dollars is kept');
  for (const bad of [1e9 + 1, 1e25, 1e300, Infinity, NaN, -0.01]) t.equal(storableCost(bad), null, String(bad));
  t.equal(storableCost(null), null);
});
