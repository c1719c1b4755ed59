import type { DatabaseOptions } from './db.js';
import { TaskPool } from '../pool/taskPool.js';
import type { StoreBackground, StoreTasks, StoreThreadData } from './storeTasks.js';

/** The main thread's handle on the store thread (the one owner of DuckDB; see store/db.ts). */
export type StoreClient = TaskPool<StoreTasks>;

/** Store tasks the store thread runs at once (each on a DuckDB connection of its own); more wait. */
export const STORE_TASKS_AT_ONCE = 64;

/**
 * Of those, the tasks of requests: DuckDB shares its few threads among every query that runs, so
 * past a few per thread more reads add no throughput, only time to each — the commits of
 * acknowledged spans' included. The rest of the slots are the server's own.
 */
export const STORE_REQUEST_TASKS_AT_ONCE = 16;

export function createStoreClient(
  database: DatabaseOptions,
  background: StoreBackground,
  maxQueue: number,
  maxWaitMs: number,
  onMessage?: (m: unknown) => void,
): StoreClient {
  const workerData: StoreThreadData = { database, background };
  // One thread owns the database; it runs many async tasks at once, each on its own connection.
  return new TaskPool<StoreTasks>({
    entry: new URL('./storeThread.js', import.meta.url),
    workerData,
    threads: 1,
    tasksPerThread: STORE_TASKS_AT_ONCE,
    maxQueue,
    requestSlots: STORE_REQUEST_TASKS_AT_ONCE,
    maxWaitMs,
    ...(onMessage ? { onMessage } : {}),
  });
}
