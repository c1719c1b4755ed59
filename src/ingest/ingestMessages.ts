/**
 * Messages between a compute thread and the main thread's ingest coordinator, over the thread's own
 * port (imported type-only by both sides, like the task table).
 */
import type { LogHeader } from './logFormat.js';
import type { GenerationReport } from '../store/spans/generation.js';

export type ComputeMessage =
  | { t: 'generation'; report: GenerationReport }
  | { t: 'closed'; id: number }
  | { t: 'log'; level: 'warn' | 'error'; msg: string; err: string; fields?: Record<string, number | undefined> };

export type CoordinatorMessage =
  /**
   * A durable log record of generation `seq` (the body moved, not copied); `held`, the id this
   * worker holds the body under, decoded when it was scanned (ingest/scan.ts).
   */
  | { t: 'record'; seq: number; header: LogHeader; body: Uint8Array; held?: number }
  /** A held body whose request will have no record (refused, or failed before its append). */
  | { t: 'release'; id: number }
  /** Every record of generation `seq` has been sent: write it as segments and report it. */
  | { t: 'flush'; seq: number }
  /** Shutdown: finish the flushes asked for, then release the thread's DuckDB. */
  | { t: 'close'; id: number };
