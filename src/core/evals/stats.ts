/**
 * The statistics of a run-against-baseline comparison, from the counts and moments DuckDB
 * aggregates over the paired tasks (docs/decisions.md, "Experiments": why these methods).
 *
 * - Change in resolved rate: the paired difference of proportions with the Agresti–Min interval
 *   (a Wald interval after adding 1/2 to each of the four cells, which keeps its coverage near 95%
 *   for small suites and for tables with empty cells, where the plain Wald interval has zero width).
 * - Whether it changed at all: the exact (binomial) McNemar test on the discordant tasks.
 * - Change in cost and duration: the mean of the per-task differences with a normal interval.
 */

/** The two-sided 97.5% quantile of the standard normal. */
export const Z95 = 1.959963984540054;

/** Paired binary outcomes: a task resolved in both runs, fixed (only the candidate), regressed (only the baseline), failed in both. */
export interface PairedCounts {
  both: number;
  fixed: number;
  regressed: number;
  neither: number;
}

export type Interval = [number, number];

function clamp(x: number, lo: number, hi: number): number {
  return Math.min(hi, Math.max(lo, x));
}

/** The candidate's resolved rate minus the baseline's over the paired tasks; null without pairs. */
export function rateChange(c: PairedCounts): number | null {
  const n = c.both + c.fixed + c.regressed + c.neither;
  return n === 0 ? null : (c.fixed - c.regressed) / n;
}

/** The Agresti–Min (2005) 95% interval of the paired difference; null without pairs. */
export function agrestiMin(c: PairedCounts, z = Z95): Interval | null {
  const n = c.both + c.fixed + c.regressed + c.neither;
  if (n === 0) return null;
  const m = n + 2;
  const fixed = (c.fixed + 0.5) / m;
  const regressed = (c.regressed + 0.5) / m;
  const diff = fixed - regressed;
  const se = Math.sqrt((fixed + regressed - diff * diff) / m);
  return [clamp(diff - z * se, -1, 1), clamp(diff + z * se, -1, 1)];
}

/**
 * The two-sided exact McNemar p-value: under "no change" each discordant task is a fair coin, so
 * p = 2·P(X ≤ min(fixed, regressed)) for X ~ Binomial(fixed + regressed, 1/2), at most 1.
 */
export function mcnemarExact(fixed: number, regressed: number): number {
  const n = fixed + regressed;
  const k = Math.min(fixed, regressed);
  if (n === 0) return 1;
  // Terms in log space: 2^-n underflows past n ≈ 1074.
  let logTerm = -n * Math.LN2; // log C(n, 0) / 2^n
  let tail = Math.exp(logTerm);
  for (let i = 1; i <= k; i++) {
    logTerm += Math.log(n - i + 1) - Math.log(i);
    tail += Math.exp(logTerm);
  }
  return Math.min(1, 2 * tail);
}

/** Mean, sample standard deviation and count of the per-task differences (candidate − baseline). */
export interface PairedMoments {
  n: number;
  meanDiff: number | null;
  sdDiff: number | null;
}

/** The normal 95% interval of a mean paired difference; null with fewer than two pairs. */
export function meanInterval(m: PairedMoments, z = Z95): Interval | null {
  if (m.n < 2 || m.meanDiff === null || m.sdDiff === null) return null;
  const half = (z * m.sdDiff) / Math.sqrt(m.n);
  return [m.meanDiff - half, m.meanDiff + half];
}
