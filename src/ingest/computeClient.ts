import { TaskPool } from '../pool/taskPool.js';
import type { ComputeTasks, ComputeThreadData } from './computeTasks.js';

/**
 * V8's young generation per compute thread. Decoding and mapping make many short-lived objects:
 * with V8's default, garbage collection took a large share of a thread's time under sustained
 * ingest, with 128 MiB far less (native-bench/RESULTS.md, "Figures behind the code"). The cost is
 * up to that much more memory per thread.
 */
const YOUNG_GENERATION_MB = 128;

/** CPU work off the event loop: OTLP decoding and mapping, segment writing, agent batches. */
export type ComputeClient = TaskPool<ComputeTasks>;

export function createComputeClient(o: {
  threads: number;
  maxQueue: number;
  pricing: unknown;
  dataDir: string;
  onMessage: (m: unknown) => void;
}): ComputeClient {
  const workerData: ComputeThreadData = { pricing: o.pricing, dataDir: o.dataDir };
  return new TaskPool<ComputeTasks>({
    entry: new URL('./computeThread.js', import.meta.url),
    workerData,
    threads: o.threads,
    tasksPerThread: 8,
    maxQueue: o.maxQueue,
    onMessage: o.onMessage,
    youngGenerationMb: YOUNG_GENERATION_MB,
  });
}
