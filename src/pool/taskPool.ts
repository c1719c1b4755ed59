/**
 * A Piscina pool behind a typed task table. A full queue becomes 503 `overloaded` with Retry-After;
 * a task that fails with an ApiError is rebuilt here; anything else propagates (a 500).
 */
import { Piscina } from 'piscina';
import { ApiError, fromErrorData, toErrorData } from '../core/errors.js';
import type { TaskResult, TaskTable } from './tasks.js';

export const RETRY_AFTER_SECONDS = 1;

export interface PoolOptions {
  worker: URL;
  workerData: unknown;
  threads: number;
  concurrentTasksPerWorker: number;
  maxQueue: number;
  /** Messages a worker posts on its own (not task results). */
  onMessage?: (message: unknown) => void;
  /** V8's young generation of each worker, in MiB (default: V8's). */
  youngGenerationMb?: number;
}

/** Told of every task that ended, for the operations metrics. */
export type TaskObserver = (task: string, ok: boolean, seconds: number) => void;

export class TaskPool<T extends TaskTable<T>> {
  private readonly pool: Piscina;
  /** Tasks refused because the queue was full (503 `overloaded`), since the start. */
  rejections = 0;
  observer: TaskObserver | null = null;

  constructor(o: PoolOptions) {
    this.pool = new Piscina({
      filename: o.worker.href,
      workerData: o.workerData,
      minThreads: o.threads,
      maxThreads: o.threads,
      concurrentTasksPerWorker: o.concurrentTasksPerWorker,
      maxQueue: o.maxQueue,
      idleTimeout: Number.POSITIVE_INFINITY,
      // Workers keep timers of their own (flushes, background merges): an idle worker must run its
      // event loop, not block in Atomics.wait until the next task.
      atomics: 'disabled',
      ...(o.youngGenerationMb ? { resourceLimits: { maxYoungGenerationSizeMb: o.youngGenerationMb } } : {}),
    });
    if (o.onMessage) this.pool.on('message', o.onMessage);
  }

  /** Runs a task; `transfer` lists buffers moved (not copied) to the worker. */
  async run<K extends keyof T & string>(task: K, input: T[K]['in'], transfer?: ArrayBuffer[]): Promise<T[K]['out']> {
    let result: TaskResult<T[K]['out']>;
    const started = this.observer ? performance.now() : 0;
    try {
      result = (await this.pool.run({ task, input }, transfer ? { transferList: transfer } : {})) as TaskResult<T[K]['out']>;
    } catch (e) {
      this.observer?.(task, false, (performance.now() - started) / 1000);
      if (e instanceof Error && /queue is at limit|no task queue available/i.test(e.message)) {
        this.rejections++;
        throw new ApiError('overloaded', undefined, { retry_after_seconds: RETRY_AFTER_SECONDS }, { 'Retry-After': String(RETRY_AFTER_SECONDS) });
      }
      throw e;
    }
    this.observer?.(task, result.ok, (performance.now() - started) / 1000);
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

/** Worker side: runs a named handler and returns errors the API knows as data. */
export async function dispatchTask<T extends TaskTable<T>>(
  handlers: { [K in keyof T]: (input: T[K]['in']) => Promise<T[K]['out']> },
  message: { task: keyof T; input: unknown },
): Promise<TaskResult<unknown>> {
  const handler = handlers[message.task] as ((input: unknown) => Promise<unknown>) | undefined;
  if (!handler) throw new Error(`unknown task ${String(message.task)}`);
  try {
    return { ok: true, value: await handler(message.input) };
  } catch (e) {
    if (e instanceof ApiError) return { ok: false, error: toErrorData(e) };
    throw e;
  }
}
