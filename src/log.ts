import { pino, type Logger } from 'pino';

/** JSON lines on stdout; `msg` carries the event name (`listening`, `bootstrap`, ...). */
export function createLogger(level: string): Logger {
  return pino({ level, base: { service: 'tracelake' }, timestamp: pino.stdTimeFunctions.isoTime });
}
