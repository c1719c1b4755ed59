/**
 * Work run one at a time per key. The store thread is the store's one writer, but its transactions
 * overlap across awaits, and DuckDB's snapshot isolation lets two of them pass the same check — a
 * name that must be free, a count under a plan's limit — and both insert: twelve keys created at
 * once under a limit of five were all stored (2026-11-28). Creations that check, then write, run
 * through here, keyed by what their check reads.
 */
export class OneAtATime {
  private readonly tails = new Map<string, Promise<void>>();

  /** Runs `work` once the work of `key` queued before it has ended, whether it failed or not. */
  run<T>(key: string, work: () => Promise<T>): Promise<T> {
    const run = (this.tails.get(key) ?? Promise.resolve()).then(work);
    const tail = run.then(
      () => undefined,
      () => undefined,
    );
    this.tails.set(key, tail);
    void tail.then(() => {
      if (this.tails.get(key) === tail) this.tails.delete(key);
    });
    return run;
  }

  /** Keys with work queued or running. */
  get keys(): number {
    return this.tails.size;
  }
}
