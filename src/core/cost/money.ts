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
