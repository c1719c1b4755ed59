/**
 * Messages between a compute worker and the main thread's ingest coordinator, over the worker's own
 * port (imported type-only by both sides, like the task table).
 */
import type { AdmitAnswer, AdmitRequest, GenerationReport } from '../ingest/workerIngest.js';

export type WorkerMessage =
  | { t: 'admit'; id: number; request: AdmitRequest }
  | { t: 'settle'; ticket: number; durable: boolean }
  | { t: 'generation'; report: GenerationReport }
  | { t: 'flushed'; id: number }
  | { t: 'log'; level: 'warn' | 'error'; msg: string; err: string };

export type CoordinatorMessage =
  | { t: 'admitted'; id: number; answer: AdmitAnswer }
  /** Write everything held; with `close`, then release the worker's DuckDB (shutdown). */
  | { t: 'flush'; id: number; close: boolean };
