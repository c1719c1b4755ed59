/**
 * One task at a time per key, in order of arrival; a task that fails does not stop the next. The
 * store thread runs many tasks at once, each on its own DuckDB connection: two transactions changing
 * the same row end in a write conflict for one of them (a claim race, trials racing the run's
 * completion), and two that check before they insert both pass the check (store/admin/checkedCreations.ts).
 * Run through a lock, the loser reads the winner's committed state.
 */
export class KeyedLock {
  private readonly tails = new Map<string, Promise<unknown>>();

  async run<T>(key: string, work: () => Promise<T>): Promise<T> {
    const before = this.tails.get(key) ?? Promise.resolve();
    const mine = before.then(work, work);
    const tail = mine.catch(() => undefined);
    this.tails.set(key, tail);
    try {
      return await mine;
    } finally {
      if (this.tails.get(key) === tail) this.tails.delete(key);
    }
  }
}
