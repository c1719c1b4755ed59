/**
 * Keeps the acknowledgement path first when the cores are busy (Linux only): every thread of the
 * process other than the main thread (which checks, admits, logs and answers) and the log sync
 * thread runs at a lower priority — the compute and store workers, DuckDB's and libuv's threads,
 * V8's helpers. Linux keeps a nice value per thread, and the threads are found in /proc; threads
 * start later (DuckDB's, libuv's pool), so the sweep runs again every second. Among the lowered
 * threads nothing changes: decoding, segments, compaction and reads share the cores as before.
 * With a nice value of 0 the sweep still runs and counts, and changes no thread: the operations
 * metrics then show, sweep after sweep, that none was lowered.
 */
import { readdirSync } from 'node:fs';
import { getPriority, setPriority } from 'node:os';

export class AckPriority {
  /** Threads already seen (lowered, or left as they were). */
  private readonly seen = new Set<number>();
  private readonly timer: NodeJS.Timeout;
  /** Sweeps done since the start. */
  sweeps = 0;
  /** Threads whose priority this process lowered. */
  lowered = 0;

  /** `keep`: thread ids that stay at the process's priority (the main thread's is the pid). */
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
    let tids: string[];
    try {
      tids = readdirSync('/proc/self/task');
    } catch {
      return this.stop(); // not Linux
    }
    const keep = new Set([process.pid, ...this.keep()]);
    for (const name of tids) {
      const tid = Number(name);
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
