import { TaskPool } from './taskPool.js';
import type { ComputeTasks, ComputeWorkerData } from './tasks.js';

/** CPU work off the event loop: OTLP decoding and mapping. */
export type ComputeClient = TaskPool<ComputeTasks>;

export function createComputeClient(threads: number, maxQueue: number, pricing: unknown): ComputeClient {
  const workerData: ComputeWorkerData = { pricing };
  return new TaskPool<ComputeTasks>({ worker: new URL('./computeWorker.js', import.meta.url), workerData, threads, concurrentTasksPerWorker: 1, maxQueue });
}
