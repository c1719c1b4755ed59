/**
 * Keeps the acknowledgement path first when the cores are busy (Linux only): every thread of the
 * process other than the main thread (which checks, admits, logs and answers) and the log sync
 * thread runs at a lower priority — the compute and store workers, DuckDB's and libuv's threads,
 * V8's helpers. Linux keeps a nice value per thread, and the threads are found in /proc; threads
 * start later (DuckDB's, libuv's pool), so the sweep runs again every second. Among the lowered
 * threads nothing changes: decoding, segments, compaction and reads share the cores as before.
 */
import { readdirSync } from 'node:fs';
import { getPriority, setPriority } from 'node:os';

export class AckPriority {
  private readonly lowered = new Set<number>();
  private readonly timer: NodeJS.Timeout;

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
      if (keep.has(tid) || this.lowered.has(tid)) continue;
      try {
        if (getPriority(tid) < this.nice) setPriority(tid, this.nice);
        this.lowered.add(tid);
      } catch {
        // The thread ended meanwhile.
      }
    }
  }
}
