/**
 * fdatasync for the ingest log, on a thread of its own (logSyncWorker.ts). Node's own
 * `fs.fdatasync` runs on the libuv pool, which the process shares with DuckDB's queries and the
 * compute threads' Parquet writes: a sync queued behind them held acknowledgements for as long as
 * they ran. This thread does nothing else, so a sync waits only for the disk.
 */
import { Worker } from 'node:worker_threads';

export type SyncFn = (fd: number) => Promise<void>;

export class LogSyncThread {
  private readonly worker: Worker;
  private next = 1;
  private readonly waiting = new Map<number, { resolve: () => void; reject: (e: Error) => void }>();
  private ended: Error | null = null;
  /** The thread's id, once it has told it (Linux). */
  tid: number | null = null;

  constructor() {
    this.worker = new Worker(new URL('./logSyncWorker.js', import.meta.url));
    this.worker.on(
      'message',
      ({ id, error, tid }: { id: number; error: { message: string; code: string | null } | null; tid?: number }) => {
        if (tid !== undefined) return void (this.tid = tid);
        const w = this.waiting.get(id);
        this.waiting.delete(id);
        if (!w) return;
        if (!error) return w.resolve();
        w.reject(Object.assign(new Error(error.message), error.code ? { code: error.code } : {}));
      },
    );
    this.worker.on('error', (e) => this.end(e));
    this.worker.on('exit', () => this.end(new Error('the ingest log sync thread ended')));
    this.worker.unref();
  }

  /** Resolves once an fdatasync of `fd` that started after this call has succeeded. */
  readonly sync: SyncFn = (fd) =>
    new Promise((resolve, reject) => {
      if (this.ended) return reject(this.ended);
      const id = this.next++;
      this.waiting.set(id, { resolve, reject });
      this.worker.postMessage({ id, fd });
    });

  async close(): Promise<void> {
    await this.worker.terminate();
  }

  private end(e: Error): void {
    this.ended ??= e;
    for (const w of this.waiting.values()) w.reject(e);
    this.waiting.clear();
  }
}
