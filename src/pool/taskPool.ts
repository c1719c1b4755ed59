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
 *
 * Under overload the server's own work goes first: tasks run outside any request (commits of
 * acknowledged spans, lease sweeps) wait ahead of requests' tasks, requests may hold only some of
 * the slots, and a request's task that waited past a bound is refused (503 `overloaded`) by the
 * same all-or-nothing rule, rather than answered minutes later to a client that gave up.
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
  /** Tasks of requests that run at once (default: the whole capacity); the other slots are the server's own. */
  requestSlots?: number;
  /** How long a request's task may wait for a slot before it is refused (default: no bound). */
  maxWaitMs?: number;
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

/** A task waiting for a slot. */
interface Waiting {
  request: RequestTasks | null;
  start(): void;
  refuse(e: ApiError): void;
}

/** Told of every task that ended, for the operations metrics. */
export type TaskObserver = (task: string, ok: boolean, seconds: number) => void;

export class TaskPool<T extends TaskTable<T>> implements TaskRunner<T> {
  private readonly pool: Piscina;
  /** Tasks refused because the queue was full (503 `overloaded`), since the start. */
  rejections = 0;
  /** Tasks that left the queue unrun because their request was abandoned, since the start. */
  abandoned = 0;
  /** Tasks that left the queue unrun because their request had waited past `maxWaitMs`, since the start. */
  shed = 0;
  observer: TaskObserver | null = null;
  /** Tasks the threads run at once; more wait in the queues. */
  private readonly capacity: number;
  private readonly requestSlots: number;
  private readonly maxWaitMs: number;
  private readonly maxQueue: number;
  private running = 0;
  private requestsRunning = 0;
  /** Tasks run outside any request, waiting; they go before `requestsWaiting`. */
  private readonly ownWaiting: Waiting[] = [];
  private readonly requestsWaiting: Waiting[] = [];

  constructor(o: PoolOptions) {
    this.capacity = o.threads * o.tasksPerThread;
    this.requestSlots = Math.min(o.requestSlots ?? this.capacity, this.capacity);
    this.maxWaitMs = o.maxWaitMs ?? Number.POSITIVE_INFINITY;
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
    if (this.hasRoom(request)) this.take(request);
    else await this.turn(request);
    try {
      return await this.dispatch(task, input, transfer);
    } finally {
      this.running--;
      if (request) this.requestsRunning--;
      this.startWaiting();
    }
  }

  /** Whether a task may start now without passing one that waits ahead of it. */
  private hasRoom(request: RequestTasks | null): boolean {
    if (this.running >= this.capacity || this.ownWaiting.length > 0) return false;
    return !request || (this.requestsRunning < this.requestSlots && this.requestsWaiting.length === 0);
  }

  private take(request: RequestTasks | null): void {
    this.running++;
    if (!request) return;
    this.requestsRunning++;
    request.started = true;
  }

  /** Hands the free slots on: the server's own tasks first, then requests' within their share. */
  private startWaiting(): void {
    while (this.running < this.capacity) {
      const next =
        this.ownWaiting.shift() ??
        (this.requestsRunning < this.requestSlots ? this.requestsWaiting.shift() : undefined);
      if (!next) return;
      next.start();
    }
  }

  /**
   * Resolves when a slot is handed to this task; rejects when the queue is full, or when its
   * request is abandoned or has waited past the bound before any of its tasks started.
   */
  private turn(request: RequestTasks | null): Promise<void> {
    if (request?.signal.aborted && !request.started) {
      this.abandoned++;
      return Promise.reject(abandoned());
    }
    if (this.ownWaiting.length + this.requestsWaiting.length >= this.maxQueue) {
      this.rejections++;
      return Promise.reject(overloaded());
    }
    const queue = request ? this.requestsWaiting : this.ownWaiting;
    return new Promise((resolve, reject) => {
      let timer: NodeJS.Timeout | undefined;
      const settle = () => {
        clearTimeout(timer);
        request?.signal.removeEventListener('abort', leave);
      };
      const leave = () => {
        const at = queue.indexOf(entry);
        if (at < 0 || request?.started) return;
        queue.splice(at, 1);
        settle();
        this.abandoned++;
        reject(abandoned());
      };
      const entry: Waiting = {
        request,
        start: () => {
          // At once, not when this task's await resumes: an abort in between must not drop
          // another task of the request once this one is on its way.
          settle();
          this.take(request);
          resolve();
        },
        refuse: (e) => {
          settle();
          reject(e);
        },
      };
      queue.push(entry);
      if (!request) return;
      request.signal.addEventListener('abort', leave, { once: true });
      if (Number.isFinite(this.maxWaitMs)) {
        timer = setTimeout(() => this.shedWaiting(request), this.maxWaitMs);
        timer.unref();
      }
    });
  }

  /**
   * Refuses every waiting task of a request that waited too long, unless one of its tasks has
   * started (then its work finishes whole); all of them, so none starts after its answer went out.
   */
  private shedWaiting(request: RequestTasks): void {
    if (request.started) return;
    const refused = this.requestsWaiting.filter((w) => w.request === request);
    if (refused.length === 0) return;
    const kept = this.requestsWaiting.filter((w) => w.request !== request);
    this.requestsWaiting.splice(0, Infinity, ...kept);
    this.shed += refused.length;
    const waited = (this.maxWaitMs / 1000).toLocaleString('en-US');
    for (const w of refused)
      w.refuse(overloaded(`The server is overloaded: this request waited ${waited} s for a free slot; retry later`));
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
    return this.ownWaiting.length + this.requestsWaiting.length + this.pool.queueSize;
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
