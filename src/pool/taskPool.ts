/**
 * A Piscina pool behind a typed task table. A full queue becomes 503 `overloaded` with Retry-After;
 * a task that fails with an ApiError is rebuilt here; anything else propagates (a 500).
 *
 * The queue is this module's, not Piscina's: a task waits here until a thread has room, and the
 * tasks of a request the client abandoned leave the queue without running — as long as none of
 * that request's tasks has started: a handler that has begun to write finishes, so an abandoned
 * request leaves all its work done or none of it. Piscina can drop a queued task too, but aborting
 * one that runs terminates its thread (the store thread with its database), so it is never handed
 * a signal. Tasks that run finish.
 */
import { Piscina } from 'piscina';
import { ApiError, fromErrorData, overloaded, toErrorData } from '../core/errors.js';
import type { TaskResult, TaskTable } from './tasks.js';

export interface PoolOptions {
  /** The module each thread runs. */
  entry: URL;
  workerData: unknown;
  threads: number;
  tasksPerThread: number;
  maxQueue: number;
  /** Messages a thread posts on its own (not task results). */
  onMessage?: (message: unknown) => void;
  /** V8's young generation of each thread, in MiB (default: V8's). */
  youngGenerationMb?: number;
}

/** What a request's handlers run tasks through: the pool, with the request's signal. */
export interface TaskRunner<T extends TaskTable<T>> {
  run<K extends keyof T & string>(task: K, input: T[K]['in'], transfer?: ArrayBuffer[]): Promise<T[K]['out']>;
  readonly queueSize: number;
  /** Tasks handed to the threads and not yet answered. */
  readonly active: number;
}

/** One request's tasks: whether its client went away, and whether any of them has started. */
interface RequestTasks {
  signal: AbortSignal;
  started: boolean;
}

/** Told of every task that ended, for the operations metrics. */
export type TaskObserver = (task: string, ok: boolean, seconds: number) => void;

export class TaskPool<T extends TaskTable<T>> implements TaskRunner<T> {
  private readonly pool: Piscina;
  /** Tasks refused because the queue was full (503 `overloaded`), since the start. */
  rejections = 0;
  /** Tasks that left the queue unrun because their request was abandoned, since the start. */
  abandoned = 0;
  observer: TaskObserver | null = null;
  /** Tasks the threads run at once; more wait in `waiting`. */
  private readonly capacity: number;
  private readonly maxQueue: number;
  private running = 0;
  private readonly waiting: { start: () => void }[] = [];

  constructor(o: PoolOptions) {
    this.capacity = o.threads * o.tasksPerThread;
    this.maxQueue = o.maxQueue;
    this.pool = new Piscina({
      filename: o.entry.href,
      workerData: o.workerData,
      minThreads: o.threads,
      maxThreads: o.threads,
      concurrentTasksPerWorker: o.tasksPerThread,
      // Piscina queues only while a thread starts (the gate below keeps within its capacity).
      maxQueue: o.maxQueue,
      idleTimeout: Number.POSITIVE_INFINITY,
      // Workers keep timers of their own (flushes, background merges): an idle worker must run its
      // event loop, not block in Atomics.wait until the next task.
      atomics: 'disabled',
      ...(o.youngGenerationMb ? { resourceLimits: { maxYoungGenerationSizeMb: o.youngGenerationMb } } : {}),
    });
    if (o.onMessage) this.pool.on('message', o.onMessage);
  }

  /** Runs a task; `transfer` lists buffers moved (not copied) to the thread. */
  run<K extends keyof T & string>(task: K, input: T[K]['in'], transfer?: ArrayBuffer[]): Promise<T[K]['out']> {
    return this.runFor(null, task, input, transfer);
  }

  /**
   * The same pool as one request sees it: while none of its tasks has started, an abort of
   * `signal` takes them out of the queue (503 `unavailable`, to a client no longer there).
   */
  forRequest(signal: AbortSignal): TaskRunner<T> {
    const request: RequestTasks = { signal, started: false };
    const pool = this;
    return {
      run: (task, input, transfer) => pool.runFor(request, task, input, transfer),
      get queueSize() {
        return pool.queueSize;
      },
      get active() {
        return pool.active;
      },
    };
  }

  private async runFor<K extends keyof T & string>(
    request: RequestTasks | null,
    task: K,
    input: T[K]['in'],
    transfer?: ArrayBuffer[],
  ): Promise<T[K]['out']> {
    if (this.running < this.capacity && this.waiting.length === 0) {
      this.running++;
      if (request) request.started = true;
    } else await this.turn(request);
    try {
      return await this.dispatch(task, input, transfer);
    } finally {
      // The slot passes to the next task waiting, if any.
      const next = this.waiting.shift();
      if (next) next.start();
      else this.running--;
    }
  }

  /**
   * Resolves when a slot is handed to this task; rejects when the queue is full, or when its
   * request is abandoned before any of its tasks started.
   */
  private turn(request: RequestTasks | null): Promise<void> {
    if (request?.signal.aborted && !request.started) {
      this.abandoned++;
      return Promise.reject(abandoned());
    }
    if (this.waiting.length >= this.maxQueue) {
      this.rejections++;
      return Promise.reject(overloaded());
    }
    return new Promise((resolve, reject) => {
      const leave = () => {
        const at = this.waiting.indexOf(entry);
        if (at < 0 || request?.started) return;
        this.waiting.splice(at, 1);
        this.abandoned++;
        reject(abandoned());
      };
      const entry = {
        start: () => {
          // At once, not when this task's await resumes: an abort in between must not drop
          // another task of the request once this one is on its way.
          if (request) request.started = true;
          request?.signal.removeEventListener('abort', leave);
          resolve();
        },
      };
      this.waiting.push(entry);
      request?.signal.addEventListener('abort', leave, { once: true });
    });
  }

  private async dispatch<K extends keyof T & string>(
    task: K,
    input: T[K]['in'],
    transfer?: ArrayBuffer[],
  ): Promise<T[K]['out']> {
    let result: TaskResult<T[K]['out']>;
    const started = this.observer ? performance.now() : 0;
    try {
      result = (await this.pool.run({ task, input }, transfer ? { transferList: transfer } : {})) as TaskResult<
        T[K]['out']
      >;
    } catch (e) {
      this.observer?.(task, false, (performance.now() - started) / 1000);
      if (e instanceof Error && /queue is at limit|no task queue available/i.test(e.message)) {
        this.rejections++;
        throw overloaded();
      }
      throw e;
    }
    this.observer?.(task, result.ok, (performance.now() - started) / 1000);
    if (!result.ok) throw fromErrorData(result.error);
    return result.value;
  }

  get active(): number {
    return this.running;
  }

  /** Tasks waiting for a thread. */
  get queueSize(): number {
    return this.waiting.length + this.pool.queueSize;
  }

  async destroy(): Promise<void> {
    await this.pool.destroy();
  }
}

function abandoned(): ApiError {
  return new ApiError('unavailable', 'The client went away before this task started');
}

/** Thread side: runs a named handler and returns errors the API knows as data. */
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
