/**
 * The time window's fields, one type for every windowed query and body: each bound by either of
 * its names (core/window resolves them, and refuses the two names of one bound disagreeing).
 */
import type { DateTime } from './ids.js';

export interface TimeWindowFields {
  /** Window start (ISO 8601), inclusive; `from` is the same bound. */
  start_date?: DateTime;
  /** Window end (ISO 8601), exclusive; `to` is the same bound. */
  end_date?: DateTime;
  /** Window start: another name of `start_date` (giving both with different instants is 400). */
  from?: DateTime;
  /** Window end: another name of `end_date` (giving both with different instants is 400). */
  to?: DateTime;
}
