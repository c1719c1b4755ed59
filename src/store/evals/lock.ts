/**
 * One task at a time per key, inside the store thread. The store thread runs many tasks at once,
 * each on its own DuckDB connection, and two transactions changing the same row end in a write
 * conflict for one of them: a claim race, or trials racing the run's completion, is decided here
 * by order of arrival instead, and the loser reads the winner's committed state.
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
