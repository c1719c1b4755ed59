/**
 * Time windows of list, search and metrics endpoints (spec: Limits): default the last 7 days, at
 * most 90, start strictly before end; anything else is 400 `invalid_time_window`. Every windowed
 * endpoint takes each bound by two names, `start_date` or `from` and `end_date` or `to`, so a
 * client that learnt one endpoint's spelling can use it on all of them.
 */
import { ApiError } from './errors.js';

export const DEFAULT_WINDOW_DAYS = 7;
export const MAX_WINDOW_DAYS = 90;
const DAY_MS = 24 * 60 * 60 * 1000;

export interface TimeWindow {
  fromMs: number;
  toMs: number;
}

/** A window's bounds as a request gives them (ISO 8601 texts), each by either of its names. */
export interface WindowBounds {
  start_date?: string;
  end_date?: string;
  from?: string;
  to?: string;
}

/** A bound the request gave: its text and the name it was given by (which the refusals use). */
export interface Bound {
  name: string;
  text: string;
}

/**
 * The start and the end of `q`, each given once: both names of one bound with different instants
 * is a 400 naming both; the same instant twice is that instant. An absent bound is `undefined`.
 */
export function boundsOf(q: WindowBounds): { start?: Bound; end?: Bound } {
  return { start: bound(q, 'start_date', 'from'), end: bound(q, 'end_date', 'to') };
}

/**
 * Resolves the optional bounds of `q` against `nowMs`: a missing end is now, a missing start is
 * 7 days before the end.
 */
export function resolveWindow(q: WindowBounds, nowMs: number): TimeWindow {
  const { start, end } = boundsOf(q);
  const toMs = end === undefined ? nowMs : parse(end);
  const fromMs = start === undefined ? toMs - DEFAULT_WINDOW_DAYS * DAY_MS : parse(start);
  if (start !== undefined && fromMs >= toMs) throw startAfterEnd(start, end);
  if (toMs - fromMs > MAX_WINDOW_DAYS * DAY_MS) {
    throw new ApiError('invalid_time_window', `The window may span at most ${MAX_WINDOW_DAYS} days`);
  }
  return { fromMs, toMs };
}

/** The epoch ms of a bound; a text that is no date-time is 400 naming the bound. */
export function parse(b: Bound): number {
  const ms = Date.parse(b.text);
  if (!Number.isFinite(ms))
    throw new ApiError('invalid_time_window', `${b.name} is not an ISO 8601 date-time: "${b.text}"`);
  return ms;
}

/**
 * The refusal of a start not before its end, in the spelling the request used (an end it did not
 * give, now, is named as the start's spelling names it). A default start is always before its end.
 */
export function startAfterEnd(start: Bound, end: Bound | undefined): ApiError {
  const endName = end?.name ?? (start.name === 'from' ? 'to' : 'end_date');
  return new ApiError('invalid_time_window', `${start.name} must be before ${endName}`);
}

function bound(q: WindowBounds, name: 'start_date' | 'end_date', alias: 'from' | 'to'): Bound | undefined {
  const named = q[name];
  const aliased = q[alias];
  if (named === undefined) return aliased === undefined ? undefined : { name: alias, text: aliased };
  if (aliased !== undefined && !sameInstant(named, aliased)) {
    const both = `${name} and ${alias} name the same bound: give one, or the same instant in both`;
    throw new ApiError('invalid_time_window', `${name} and ${alias} disagree (${named} ≠ ${aliased})`, {
      details: { [name]: both, [alias]: both },
    });
  }
  return { name, text: named };
}

function sameInstant(a: string, b: string): boolean {
  const ms = Date.parse(a);
  return a === b || (Number.isFinite(ms) && ms === Date.parse(b));
}
