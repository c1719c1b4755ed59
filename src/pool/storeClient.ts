/**
 * The main thread's handle on the store thread. A full queue becomes 503 `overloaded` with
 * Retry-After; a task that fails with an ApiError is rebuilt here; anything else is a 500.
 */
import { Piscina } from 'piscina';
import { ApiError, fromErrorData } from '../core/errors.js';
import type { DatabaseOptions } from '../store/db.js';
import type { StoreTasks, StoreWorkerData, TaskName, TaskResult } from './tasks.js';

export const RETRY_AFTER_SECONDS = 1;

export class StoreClient {
  private readonly pool: Piscina;

  constructor(database: DatabaseOptions, maxQueue: number) {
    const workerData: StoreWorkerData = { database };
    this.pool = new Piscina({
      filename: new URL('./storeWorker.js', import.meta.url).href,
      workerData,
      // One owner of the database (see store/db.ts); it runs many async tasks at once.
      minThreads: 1,
      maxThreads: 1,
      concurrentTasksPerWorker: 64,
      maxQueue,
      idleTimeout: Number.POSITIVE_INFINITY,
    });
  }

  async run<K extends TaskName>(task: K, input: StoreTasks[K]['in']): Promise<StoreTasks[K]['out']> {
    let result: TaskResult<K>;
    try {
      result = (await this.pool.run({ task, input })) as TaskResult<K>;
    } catch (e) {
      if (isQueueFull(e)) {
        throw new ApiError('overloaded', undefined, { retry_after_seconds: RETRY_AFTER_SECONDS }, { 'Retry-After': String(RETRY_AFTER_SECONDS) });
      }
      throw e;
    }
    if (!result.ok) throw fromErrorData(result.error);
    return result.value;
  }

  get queueSize(): number {
    return this.pool.queueSize;
  }

  async destroy(): Promise<void> {
    await this.pool.destroy();
  }
}

function isQueueFull(e: unknown): boolean {
  return e instanceof Error && /queue is at limit/i.test(e.message);
}
