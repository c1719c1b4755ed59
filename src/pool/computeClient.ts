import type { FlushPolicy } from '../ingest/workerIngest.js';
import { TaskPool } from './taskPool.js';
import type { ComputeTasks, ComputeWorkerData } from './tasks.js';

/** CPU work off the event loop: OTLP decoding and mapping, the ingest log, segment writing. */
export type ComputeClient = TaskPool<ComputeTasks>;

export function createComputeClient(o: { threads: number; maxQueue: number; pricing: unknown; dataDir: string; flush: FlushPolicy; onMessage: (m: unknown) => void }): ComputeClient {
  const workerData: ComputeWorkerData = { pricing: o.pricing, dataDir: o.dataDir, flush: o.flush };
  // Several requests per worker at once: while one waits for admission or for the log's fdatasync,
  // the next one decodes, and requests that wait together share one sync.
  return new TaskPool<ComputeTasks>({ worker: new URL('./computeWorker.js', import.meta.url), workerData, threads: o.threads, concurrentTasksPerWorker: 8, maxQueue: o.maxQueue, onMessage: o.onMessage });
}
