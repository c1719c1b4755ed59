/**
 * Money in USD as the API answers it: a number rounded to `USD_DECIMALS` places. Sums are taken in
 * the store as DECIMAL(38, 12), which adds values of 10 places exactly, so a trace's or session's
 * cost prints as written (0.03278, never 0.032780000000000004).
 */

/** Ten places: a ten-thousandth of a micro-dollar, below any per-token price. */
export const USD_DECIMALS = 10;
const SCALE = 10 ** USD_DECIMALS;
/** Past this, `x * SCALE` is no longer an exact integer in a double: such a figure is kept as given. */
const LARGEST_SCALED = Number.MAX_SAFE_INTEGER / SCALE;

/**
 * `usd` rounded to `USD_DECIMALS` places, as the nearest double to that decimal (an integer
 * divided by a power of ten is correctly rounded, so it prints in its shortest decimal form).
 */
export function roundUsd(usd: number): number {
  if (!Number.isFinite(usd) || Math.abs(usd) >= LARGEST_SCALED) return usd;
  return Math.round(usd * SCALE) / SCALE;
}

/**
 * The largest cost a span keeps. Trace and session sums are DECIMAL(38, 12), 26 digits before the
 * point, and a span's cost goes into them as it is: one span sent with a cost of 1e300 failed the
 * commit of its generation again and again, and every span acknowledged after it waited behind it.
 * A billion dollars is past any model call; a cost above it is a mistake, stored as no cost (the
 * span's attributes keep what was sent).
 */
export const MAX_SPAN_COST_USD = 1e9;

/** `usd` when a span can keep it as its cost, else null. */
export function storableCost(usd: number | null): number | null {
  return usd !== null && usd >= 0 && usd <= MAX_SPAN_COST_USD ? usd : null;
}
