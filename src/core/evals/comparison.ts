/**
 * A candidate run against its baseline, task by task, assembled from what DuckDB aggregated over
 * the trials' score rows (store/evals/experiments.ts): per-task outcomes, and the changes in
 * resolved rate, cost and duration with their 95% intervals (stats.ts).
 */
import { roundUsd } from '../cost/money.js';
import { agrestiMin, mcnemarExact, meanInterval, rateChange, type Interval } from './stats.js';

export const OUTCOMES = [
  'both_resolved',
  'fixed',
  'regressed',
  'both_failed',
  'only_baseline',
  'only_candidate',
] as const;
export type Outcome = (typeof OUTCOMES)[number];

/** One task in the two runs (its last attempt decides; cost and duration add up its attempts), as the answer lists it. */
export interface TaskPair {
  task_id: string;
  outcome: Outcome;
  baseline_resolved: boolean | null;
  candidate_resolved: boolean | null;
  baseline_cost_usd: number | null;
  candidate_cost_usd: number | null;
  baseline_duration_ms: number | null;
  candidate_duration_ms: number | null;
}

/** The aggregates of the paired tasks, as the store's SQL returns them. */
export interface PairAggregates {
  counts: Record<Outcome, number>;
  cost: { baselineMean: number | null; candidateMean: number | null; diffMean: number | null; diffSd: number | null };
  duration: {
    baselineMean: number | null;
    candidateMean: number | null;
    diffMean: number | null;
    diffSd: number | null;
  };
}

export interface MeanChange {
  baseline_mean: number | null;
  candidate_mean: number | null;
  /** Mean of the per-task differences, candidate − baseline. */
  change: number | null;
  ci95: Interval | null;
}

/** Tasks of each outcome, and how many were in both runs (the statistics' n). */
export interface TaskCounts extends Record<Outcome, number> {
  paired: number;
}

export interface Comparison {
  tasks: TaskCounts;
  resolved_rate: {
    baseline: number | null;
    candidate: number | null;
    change: number | null;
    ci95: Interval | null;
    /** Exact McNemar test of "no change" on the discordant tasks. */
    p_value: number;
    method: string;
  };
  cost_usd: MeanChange;
  duration_ms: MeanChange;
}

export const RATE_METHOD = 'paired difference of proportions; 95% interval: Agresti-Min; p-value: exact McNemar';

function meanChange(m: PairAggregates['cost'], paired: number, round: (x: number) => number): MeanChange {
  const ci = meanInterval({ n: paired, meanDiff: m.diffMean, sdDiff: m.diffSd });
  const r = (x: number | null) => (x === null ? null : round(x));
  return {
    baseline_mean: r(m.baselineMean),
    candidate_mean: r(m.candidateMean),
    change: r(m.diffMean),
    ci95: ci && [round(ci[0]), round(ci[1])],
  };
}

/** The comparison's figures; its per-task table (TaskPair[]) comes from the store as JSON text. */
export function buildComparison(agg: PairAggregates): Comparison {
  const c = agg.counts;
  const counts = { both: c.both_resolved, fixed: c.fixed, regressed: c.regressed, neither: c.both_failed };
  const paired = counts.both + counts.fixed + counts.regressed + counts.neither;
  const rate = (resolved: number) => (paired === 0 ? null : resolved / paired);
  return {
    tasks: { paired, ...c },
    resolved_rate: {
      baseline: rate(counts.both + counts.regressed),
      candidate: rate(counts.both + counts.fixed),
      change: rateChange(counts),
      ci95: agrestiMin(counts),
      p_value: mcnemarExact(counts.fixed, counts.regressed),
      method: RATE_METHOD,
    },
    cost_usd: meanChange(agg.cost, paired, roundUsd),
    duration_ms: meanChange(agg.duration, paired, (x) => Math.round(x * 1000) / 1000),
  };
}
