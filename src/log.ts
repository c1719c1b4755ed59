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
  log.flush(() => process.exit(code));
}
