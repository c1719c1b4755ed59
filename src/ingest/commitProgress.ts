/**
 * Which generations of the ingest log are committed (their spans readable), who waits for them
 * (`X-Tracelake-Wait: visible`), and the request bytes still waiting for their commit (part of the
 * ingest backlog that back-pressure bounds). A worker's generations commit in order, so one number
 * per worker says which are: the highest committed — except a generation whose segments failed and
 * is tried again after later ones: so a commit wakes the waiters and drops the bytes of its own
 * generation only, never of earlier ones (they may still be on their way). A generation the store
 * refused and whose records were committed one by one (logTriage.ts) is committed but for the
 * records set aside: their requests are told their spans are not visible.
 */
import type { GenerationId } from '../store/spans/generation.js';

export class CommitProgress {
  /** Highest generation committed, per worker. */
  private readonly committed = new Map<string, number>();
  /** Told, when the generation commits, which of its records were set aside. */
  private readonly waiters = new Map<string, ((setAside: ReadonlySet<number>) => void)[]>();
  /** Request bytes of generations not yet committed, by generation. */
  private readonly pending = new Map<string, number>();

  /** Request bytes of the generations not yet committed. */
  get pendingBytes(): number {
    let n = 0;
    for (const b of this.pending.values()) n += b;
    return n;
  }

  isCommitted(g: GenerationId): boolean {
    return (this.committed.get(g.workerId) ?? 0) >= g.seq;
  }

  /** Counts a request's bytes in the backlog until its generation commits (nothing once it has). */
  addPending(g: GenerationId, bytes: number): void {
    if (this.isCommitted(g)) return;
    const key = keyOf(g);
    this.pending.set(key, (this.pending.get(key) ?? 0) + bytes);
  }

  /**
   * The generation is committed (but for the records `setAside`, by their place in its log file):
   * its bytes leave the backlog and its waiters wake.
   */
  markCommitted(g: GenerationId, setAside: ReadonlySet<number> = NONE): void {
    this.committed.set(g.workerId, Math.max(this.committed.get(g.workerId) ?? 0, g.seq));
    const key = keyOf(g);
    this.pending.delete(key);
    for (const wake of this.waiters.get(key) ?? []) wake(setAside);
    this.waiters.delete(key);
  }

  /**
   * Resolves true once the generation is committed with the request's record (`record`, its place
   * in the log file), false if that record was set aside or after `timeoutMs` (never with null).
   */
  whenCommitted(g: GenerationId, timeoutMs: number | null, record = -1): Promise<boolean> {
    if (this.isCommitted(g)) return Promise.resolve(true);
    return new Promise((resolve) => {
      const timer = timeoutMs === null ? null : setTimeout(() => resolve(false), timeoutMs);
      const key = keyOf(g);
      const list = this.waiters.get(key) ?? [];
      list.push((setAside) => {
        if (timer) clearTimeout(timer);
        resolve(!setAside.has(record));
      });
      this.waiters.set(key, list);
    });
  }

  /**
   * A worker ended and another replayed its log: the generations it left wake their waiters, and
   * their bytes leave the backlog.
   */
  releaseWorker(workerId: string): void {
    const prefix = `${workerId}:`;
    for (const [key, wakes] of this.waiters) {
      if (!key.startsWith(prefix)) continue;
      for (const wake of wakes) wake(NONE);
      this.waiters.delete(key);
    }
    for (const key of this.pending.keys()) if (key.startsWith(prefix)) this.pending.delete(key);
  }
}

const NONE: ReadonlySet<number> = new Set();

export function keyOf(g: GenerationId): string {
  return `${g.workerId}:${g.seq}`;
}
