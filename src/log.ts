import { pino, type Logger } from 'pino';

/** JSON lines on stdout; `msg` carries the event name (`listening`, `bootstrap`, ...). */
export function createLogger(level: string): Logger {
  return pino({ level, base: { service: 'tracelake' }, timestamp: pino.stdTimeFunctions.isoTime });
}

/**
 * Exits once the log's last lines are written: pino's stdout writer is asynchronous, and a bare
 * `process.exit` drops what it still holds (the `stopped` line of a clean shutdown, a fatal cause).
 */
export function exitAfterFlush(log: Logger, code: number): void {
  // A log that cannot be written (its disk full, its reader gone) must not hold the exit: a
  // supervisor restarts on the exit code, not on the last line.
  setTimeout(() => process.exit(code), EXIT_FLUSH_GRACE_MS);
  try {
    log.flush(() => process.exit(code));
  } catch {
    process.exit(code);
  }
}

/** How long an exit waits for the log to take its last lines. */
const EXIT_FLUSH_GRACE_MS = 2_000;
