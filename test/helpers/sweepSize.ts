/**
 * How much of the big sweeps (test/http/atOnce, validBodies, validQueries, reliability/isolation)
 * a run takes: `npm test` a sample of fixed seed that still reaches every route and every kind of
 * case, `npm run test:full` (TRACELAKE_TEST_FULL=1) all of it.
 */
export const FULL_SWEEPS = process.env.TRACELAKE_TEST_FULL === '1';

/** The seeds of a sweep: fixed, so a failure reproduces; `TRACELAKE_SWEEP_SEEDS=1,2,…` sweeps others. */
export const SWEEP_SEEDS = (process.env.TRACELAKE_SWEEP_SEEDS ?? (FULL_SWEEPS ? '1,2' : '1')).split(',').map(Number);

/** `whole` cases of a sweep in the full run, `sampled` in the sampled one. */
export function sweepCount(whole: number, sampled: number): number {
  return FULL_SWEEPS ? whole : sampled;
}
