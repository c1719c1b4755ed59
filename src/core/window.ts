/**
 * Time windows of list and search endpoints (spec: Limits): default the last 7 days, at most 90,
 * start strictly before end; anything else is 400 `invalid_time_window`.
 */
import { ApiError } from './errors.js';

export const DEFAULT_WINDOW_DAYS = 7;
export const MAX_WINDOW_DAYS = 90;
const DAY_MS = 24 * 60 * 60 * 1000;

export interface TimeWindow {
  fromMs: number;
  toMs: number;
}

/** The names of the two bounds as the endpoint calls them (metrics say `from` and `to`). */
export interface WindowNames {
  start: string;
  end: string;
}

const SEARCH_NAMES: WindowNames = { start: 'start_date', end: 'end_date' };

/** Resolves optional ISO 8601 bounds against `nowMs`; `names` word the refusals. */
export function resolveWindow(
  startDate: string | undefined,
  endDate: string | undefined,
  nowMs: number,
  names: WindowNames = SEARCH_NAMES,
): TimeWindow {
  const toMs = endDate === undefined ? nowMs : parse(endDate, names.end);
  const fromMs = startDate === undefined ? toMs - DEFAULT_WINDOW_DAYS * DAY_MS : parse(startDate, names.start);
  if (fromMs >= toMs) throw new ApiError('invalid_time_window', `${names.start} must be before ${names.end}`);
  if (toMs - fromMs > MAX_WINDOW_DAYS * DAY_MS) {
    throw new ApiError('invalid_time_window', `The window may span at most ${MAX_WINDOW_DAYS} days`);
  }
  return { fromMs, toMs };
}

function parse(text: string, field: string): number {
  const ms = Date.parse(text);
  if (!Number.isFinite(ms))
    throw new ApiError('invalid_time_window', `${field} is not an ISO 8601 date-time: "${text}"`);
  return ms;
}
