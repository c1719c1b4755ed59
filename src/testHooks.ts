/**
 * Test hooks of the ingest path, read once at start and only with `TRACELAKE_FAULT_INJECTION=on` in
 * the environment:
 * - `TRACELAKE_CRASH_AT=<point>` kills the whole process (SIGKILL, as a power cut or the OOM killer
 *   would) the first time it reaches that point;
 * - `TRACELAKE_DISCARD_AFTER_MAP=on` answers every export right after decoding and mapping it, and
 *   stores nothing: native-bench/ingest measures the ingest path's ceiling with it;
 * - `TRACELAKE_WORKER_START_DELAY_MS=<ms>` holds each compute thread that long before it opens its
 *   DuckDB, as a loaded machine does: the shutdown test proves the server listens only after;
 * - `TRACELAKE_WORKER_EXIT_AT_RECORD=<n>` ends a compute thread's thread (not the process) when it
 *   takes its n-th log record, before writing it, as an uncaught error in a worker would: the
 *   coordinator must replay that worker's log;
 * - `TRACELAKE_SEGMENT_WRITE_FAILURES=<n>` fails each compute thread's first n generation writes, as
 *   a full disk or a DuckDB error would: the worker must write them again from their log files;
 * - `TRACELAKE_REPLAY_FAILURES=<n>` fails each compute thread's first n log replays (those at start too;
 *   the test replays an ended worker's files): the coordinator must try them again;
 * - `TRACELAKE_REFUSED_SPAN_NAME=<name>` gives each span of that name a cost of 1e300 after mapping
 *   (past the bound rows.ts keeps), which the store refuses when its generation commits — as it
 *   would a value no guard knows yet: the coordinator must set that span's request aside, and
 *   commit the rest (logTriage.ts).
 */
export type CrashPoint =
  /** A request's log record is durable; the answer is not sent yet. */
  | 'after-log-sync'
  /** A segment file is published; the store has not committed it. */
  | 'after-segment-publish'
  /** A generation is committed; its log file is not deleted yet. */
  | 'after-generation-commit'
  /** A refused generation's first record is committed on its own; the others are not yet. */
  | 'after-triage-commit'
  /** A compacted file is published; the manifest swap is not committed. */
  | 'after-compaction-publish'
  /** A compaction's manifest swap is committed; the replaced files still exist. */
  | 'after-compaction-commit';

const faults = process.env.TRACELAKE_FAULT_INJECTION === 'on';
const armed = faults ? process.env.TRACELAKE_CRASH_AT : undefined;

export const DISCARD_AFTER_MAP = faults && process.env.TRACELAKE_DISCARD_AFTER_MAP === 'on';

export const WORKER_START_DELAY_MS = faults ? Number(process.env.TRACELAKE_WORKER_START_DELAY_MS ?? 0) : 0;

export const WORKER_EXIT_AT_RECORD = faults ? Number(process.env.TRACELAKE_WORKER_EXIT_AT_RECORD ?? 0) : 0;

export const SEGMENT_WRITE_FAILURES = faults ? Number(process.env.TRACELAKE_SEGMENT_WRITE_FAILURES ?? 0) : 0;

export const REPLAY_FAILURES = faults ? Number(process.env.TRACELAKE_REPLAY_FAILURES ?? 0) : 0;

export const REFUSED_SPAN_NAME = faults ? (process.env.TRACELAKE_REFUSED_SPAN_NAME ?? '') : '';

export function crashPoint(point: CrashPoint): void {
  if (armed === point) process.kill(process.pid, 'SIGKILL');
}
