/**
 * What `/health` knows beyond "the process answers": a fatal store error (the process is about to
 * exit to be restarted), and the last ingestion health checks — refreshed at most every few
 * seconds, so a supervisor polling `/health` sees a broken store without loading it with checks.
 */
import type { DependencyCheck } from '../store/health.js';

/** How long a health check result stands for `/health`. */
const FRESH_MS = 5_000;

export class Liveness {
  private fatalReason: string | null = null;
  private last: { at: number; failing: DependencyCheck[] } | null = null;
  private running: Promise<DependencyCheck[]> | null = null;

  constructor(private readonly check: () => Promise<DependencyCheck[]>) {}

  /** Marks the store dead; `/health` answers unhealthy from now on. */
  markFatal(reason: string): void {
    this.fatalReason ??= reason;
  }

  get fatal(): string | null {
    return this.fatalReason;
  }

  /** The failing dependencies (empty when healthy), from a check at most `FRESH_MS` old. */
  async failing(now = Date.now()): Promise<DependencyCheck[]> {
    if (this.fatalReason) return [{ name: 'duckdb', status: 'unhealthy', latencyMs: 0, error: this.fatalReason }];
    if (this.last && now - this.last.at < FRESH_MS) return this.last.failing;
    // Concurrent probes share one check.
    this.running ??= this.check().finally(() => (this.running = null));
    const failing = (await this.running).filter((d) => d.status !== 'healthy');
    this.last = { at: now, failing };
    return failing;
  }
}
