import t from 'tap';
import { buildComparison, RATE_METHOD, type PairAggregates } from '../../../src/core/evals/comparison.js';
import { agrestiMin, mcnemarExact, meanInterval } from '../../../src/core/evals/stats.js';

const counts = { both_resolved: 5, fixed: 3, regressed: 1, both_failed: 1, only_baseline: 2, only_candidate: 1 };
const agg: PairAggregates = {
  counts,
  cost: { baselineMean: 0.1 + 0.2, candidateMean: 0.25, diffMean: -0.05000000000000002, diffSd: 0.02 },
  duration: { baselineMean: 1000.12345, candidateMean: 900, diffMean: -100.12345, diffSd: 50 },
};
t.test('a comparison from the aggregates', async (t) => {
  const c = buildComparison(agg);
  t.same(c.tasks, { paired: 10, ...counts });
  t.same(c.resolved_rate, {
    baseline: 0.6,
    candidate: 0.8,
    change: 0.2,
    ci95: agrestiMin({ both: 5, fixed: 3, regressed: 1, neither: 1 }),
    p_value: mcnemarExact(3, 1),
    method: RATE_METHOD,
  });
  const costCi = meanInterval({ n: 10, meanDiff: agg.cost.diffMean, sdDiff: 0.02 })!;
  t.equal(c.cost_usd.baseline_mean, 0.3, 'money rounded to 10 places');
  t.equal(c.cost_usd.change, -0.05);
  t.same(
    c.cost_usd.ci95,
    costCi.map((x) => Math.round(x * 1e10) / 1e10),
  );
  t.equal(c.duration_ms.baseline_mean, 1000.123, 'durations to the microsecond');
  t.equal(c.duration_ms.change, -100.123);
});

t.test('no paired task: rates, changes and intervals are null', async (t) => {
  const none = { baselineMean: null, candidateMean: null, diffMean: null, diffSd: null };
  const c = buildComparison({
    counts: { both_resolved: 0, fixed: 0, regressed: 0, both_failed: 0, only_baseline: 4, only_candidate: 0 },
    cost: none,
    duration: none,
  });
  t.same(c.resolved_rate, {
    baseline: null,
    candidate: null,
    change: null,
    ci95: null,
    p_value: 1,
    method: RATE_METHOD,
  });
  t.same(c.cost_usd, { baseline_mean: null, candidate_mean: null, change: null, ci95: null });
  t.same(c.duration_ms, { baseline_mean: null, candidate_mean: null, change: null, ci95: null });
});
