/**
 * Keeps the acknowledgement path first when the cores are busy (Linux only): the threads that do
 * the background work run at a lower priority — the compute and store workers, DuckDB's and
 * libuv's threads. Linux keeps a nice value per thread, and the threads are found in /proc;
 * threads start later (DuckDB's, libuv's pool), so the sweep runs again every second. Among the
 * lowered threads nothing changes: decoding, segments, compaction and reads share the cores as
 * before. With a nice value of 0 the sweep still runs and counts, and changes no thread: the
 * operations metrics then show, sweep after sweep, that none was lowered.
 *
 * Kept at the process's priority: the main thread (it checks, admits, logs and answers), the log
 * sync thread, and the threads Node's platform starts before any script runs (`platformThreads`):
 * V8's worker pool does the concurrent part of the main thread's garbage collection, and lowered
 * it left the main thread to finish the marking itself, with longer pauses on the answering
 * thread (docs/decisions.md, "The answering threads come first").
 */
import { readdirSync } from 'node:fs';
import { availableParallelism, getPriority, setPriority } from 'node:os';
import { platformThreads } from './platformThreads.js';

/** Thread ids of the process (Linux), or none. */
function threadIds(): number[] {
  try {
    return readdirSync('/proc/self/task').map(Number);
  } catch {
    return [];
  }
}

/** Read as this module is evaluated: before the server starts a worker, a database or DuckDB's threads. */
const PLATFORM = platformThreads(
  threadIds(),
  process.pid,
  process.execArgv,
  process.env.NODE_OPTIONS ?? '',
  availableParallelism(),
);

export class AckPriority {
  /** Threads already seen (lowered, or left as they were). */
  private readonly seen = new Set<number>();
  private readonly timer: NodeJS.Timeout;
  /** Sweeps done since the start. */
  sweeps = 0;
  /** Threads whose priority this process lowered. */
  lowered = 0;
  /** Node's platform threads, kept at the process's priority. */
  readonly platform: readonly number[] = PLATFORM;

  /** `keep`: more thread ids that stay at the process's priority (the log sync thread's). */
  constructor(
    private readonly nice: number,
    private readonly keep: () => number[],
  ) {
    // The first sweep waits a second: the log sync thread tells its id as it starts.
    this.timer = setInterval(() => this.sweep(), 1000);
    this.timer.unref();
  }

  stop(): void {
    clearInterval(this.timer);
  }

  private sweep(): void {
    const tids = threadIds();
    if (tids.length === 0) {
      this.stop(); // not Linux
      return;
    }
    const keep = new Set([process.pid, ...this.platform, ...this.keep()]);
    for (const tid of tids) {
      if (keep.has(tid) || this.seen.has(tid)) continue;
      try {
        if (this.nice > 0 && getPriority(tid) < this.nice) {
          setPriority(tid, this.nice);
          this.lowered++;
        }
        this.seen.add(tid);
      } catch {
        // The thread ended meanwhile.
      }
    }
    this.sweeps++;
  }
}
