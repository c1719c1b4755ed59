/**
 * The main thread's side of worker runs: who watches a run's thread (the live page's streams get
 * each event and change as it happens), who waits for work (a claim long-polls until a turn is
 * queued), which workers are alive, the sweep that expires leases (of turns and of eval runs), and tracing — a run becomes a
 * coding-agent session pushed through the agents-sync path (ingest/agentsBatch.ts, the segment
 * engine), so its cost, tokens and tools are in the normal trace, span, session and metrics reads.
 */
import type { Logger } from 'pino';
import { sessionTraceId } from '../core/agents/ids.js';
import { planOf, quotaPlan, type PlanTable } from '../core/plans.js';
import type { IngestCoordinator } from '../ingest/coordinator.js';
import type { ComputeClient } from '../ingest/computeClient.js';
import type { StoreClient } from '../store/storeClient.js';
import type { WorkerEventView } from '../store/workers/views.js';
import type { WorkerRunDetail } from '../store/workers/views.js';
import { KeyedLock } from '../core/keyedLock.js';
import { oneAtATime } from '../core/oneAtATime.js';

/** What a run's watchers are told: new events, or the run after a change (its turns included). */
export type RunNews = { type: 'events'; events: WorkerEventView[] } | { type: 'run'; run: WorkerRunDetail };

export interface WorkerSettings {
  leaseMs: number;
  /** Claims a turn gets before a lost lease fails it (docs/decisions.md, "Workers"). */
  maxAttempts: number;
  maxSpansPerTrace: number;
}

export class WorkerService {
  private readonly watchers = new Map<string, Set<(news: RunNews) => void>>();
  private readonly waiting = new Set<() => void>();
  /** tenant → worker name → when it was last heard from. */
  private readonly heard = new Map<string, Map<string, number>>();
  private readonly tracing = new KeyedLock();
  private sweeper: NodeJS.Timeout | null = null;
  /** No lease can expire before this (epoch ms): sweeps until then have nothing to do (`sweep`). */
  private quietUntil = 0;
  /** One tick of the sweeper: on a busy store a sweep outlasts the interval, and must not pile up. */
  private readonly sweepIfIdle = oneAtATime(() =>
    this.sweep().catch((err: unknown) => this.log.warn({ err }, 'worker lease sweep failed')),
  );

  constructor(
    private readonly store: StoreClient,
    private readonly compute: ComputeClient,
    private readonly ingest: IngestCoordinator,
    private readonly plans: PlanTable,
    private readonly log: Logger,
    readonly settings: WorkerSettings,
    /** Drops a revoked key from the auth cache (an eval run ended by the sweep revokes its keys). */
    private readonly forgetKey: (keyHash: string) => void = () => undefined,
  ) {}

  /** Starts the lease sweep: every half lease (at most every second), expired leases are settled. */
  start(): void {
    const every = Math.max(100, Math.min(1000, Math.floor(this.settings.leaseMs / 2)));
    this.sweeper = setInterval(() => void this.sweepIfIdle(), every);
    this.sweeper.unref();
  }

  stop(): void {
    if (this.sweeper) clearInterval(this.sweeper);
    this.sweeper = null;
    for (const wake of [...this.waiting]) wake();
  }

  /** The trace id of a run (its session id is the run's id, its agent the profile). */
  static traceIdOf(scope: { tenantId: string; appId: string }, runId: string, profile: string): string {
    return sessionTraceId({ tenantId: scope.tenantId, appId: scope.appId, agent: profile, sessionId: runId });
  }

  watch(runId: string, fn: (news: RunNews) => void): () => void {
    let set = this.watchers.get(runId);
    if (!set) this.watchers.set(runId, (set = new Set()));
    set.add(fn);
    return () => {
      set.delete(fn);
      if (set.size === 0 && this.watchers.get(runId) === set) this.watchers.delete(runId);
    };
  }

  /** Whether anyone watches the run (news worth building for it). */
  watched(runId: string): boolean {
    return this.watchers.has(runId);
  }

  tell(runId: string, news: RunNews): void {
    for (const fn of this.watchers.get(runId) ?? []) fn(news);
  }

  /** Tells a run's watchers how it stands now (after a turn changed). */
  async tellRun(runId: string, scope: { tenantId: string; appId: string }): Promise<void> {
    if (!this.watchers.has(runId)) return;
    const run = await this.store.run('getWorkerRun', { scope: { ...scope, environmentId: null }, id: runId });
    if (run) this.tell(runId, { type: 'run', run });
  }

  /** A turn was queued: every waiting claim looks again. */
  workQueued(): void {
    for (const wake of [...this.waiting]) wake();
  }

  /** Resolves when work may have been queued, after `ms`, or when `cancelled` is called. */
  waitForWork(ms: number): { done: Promise<void>; cancel: () => void } {
    let wake: () => void = () => undefined;
    const done = new Promise<void>((resolve) => {
      const timer = setTimeout(() => wake(), ms);
      wake = () => {
        clearTimeout(timer);
        this.waiting.delete(wake);
        resolve();
      };
      this.waiting.add(wake);
    });
    return { done, cancel: () => wake() };
  }

  heardFrom(tenantId: string, worker: string, now = Date.now()): void {
    let names = this.heard.get(tenantId);
    if (!names) this.heard.set(tenantId, (names = new Map()));
    names.set(worker, now);
  }

  /** Workers heard from within a lease: a session's next turn waits for the one that ran its last. */
  liveWorkers(tenantId: string, now = Date.now()): string[] {
    const names = this.heard.get(tenantId);
    if (!names) return [];
    const live: string[] = [];
    for (const [name, at] of names) {
      if (now - at <= this.settings.leaseMs) live.push(name);
      else names.delete(name);
    }
    return live;
  }

  /**
   * Settles expired leases: each turn is queued again, failed or cancelled (core/workers/turns.ts).
   * Runs only once a lease can have expired: each sweep reads when the earliest held lease ends, and
   * a lease granted since cannot end before a whole lease from the sweep's start (every grant and
   * heartbeat is for `leaseMs`; a claim whose transaction began before the sweep ends that much
   * sooner, milliseconds), so the next sweep is due at the sooner of the two. A sweep every second
   * was most of an idle server's CPU (native-bench/RESULTS.md, "idle"; docs/decisions.md, "Workers").
   */
  async sweep(): Promise<void> {
    const now = Date.now();
    if (now < this.quietUntil) return;
    // Before the leases are read: what is granted from here on is bounded by this.
    const bound = now + this.settings.leaseMs;
    // Eval runs whose lease expired fail (`lease_expired`): the eval state table has no way back to queued.
    for (const ended of await this.store.run('expireWorkerEvalLeases', {})) {
      this.log.warn(
        { eval_run_id: ended.runId, tenant_id: ended.tenantId },
        'a worker lease on an eval run expired: the run failed',
      );
      for (const hash of ended.revokedKeyHashes) this.forgetKey(hash);
    }
    const changed = await this.store.run('expireWorkerLeases', { maxAttempts: this.settings.maxAttempts });
    const next = await this.store.run('nextWorkerLeaseExpiry', {});
    this.quietUntil = Math.min(bound, next === null ? Infinity : Date.now() + next);
    if (changed.length === 0) return;
    for (const { turn } of changed) {
      this.log.warn(
        {
          run_id: turn.run_id,
          turn_index: turn.turn_index,
          attempt: turn.attempt,
          worker: turn.worker,
          status: turn.status,
        },
        'a worker lease expired',
      );
    }
    if (changed.some((c) => c.turn.status === 'queued')) this.workQueued();
    for (const { tenantId, turn } of changed) {
      const scope = await this.store.run('workerRunScope', { runId: turn.run_id });
      if (scope) await this.tellRun(turn.run_id, scope);
      if (turn.status !== 'queued') void this.trace(turn.run_id, tenantId);
    }
  }

  /**
   * Traces the run's ended turns (again: what is traced already is known by its span ids and
   * skipped) and records their figures. Runs of one run one at a time; failures are logged, never
   * thrown: the turn has ended whatever becomes of its trace.
   */
  async trace(runId: string, tenantId: string): Promise<void> {
    await this.tracing.run(runId, async () => {
      try {
        await this.traceNow(runId);
      } catch (err) {
        this.log.warn({ err, run_id: runId, tenant_id: tenantId }, 'could not trace a worker run');
      }
      // Watchers learn of the ended turn after its figures, so a page shows them with its status.
      const scope = await this.store.run('workerRunScope', { runId }).catch(() => null);
      if (scope) await this.tellRun(runId, scope).catch(() => undefined);
    });
  }

  private async traceNow(runId: string): Promise<void> {
    const inputs = await this.store.run('workerTraceInputs', { runId });
    if (!inputs) return;
    const plan = planOf(this.plans, inputs.plan);
    // Built in a compute thread: a long run's events would hold this thread up (see TraceInputs).
    const { prepared, figures } = await this.compute.run('prepareRunTrace', {
      text: inputs.text,
      ceiling: { tier: plan.agents_tier, blobCapBytes: plan.agents_blob_cap_bytes },
      scope: inputs.scope,
    });
    if (prepared) {
      for (const r of prepared.rejected)
        this.log.warn({ run_id: runId, reason: r.reason }, 'the trace of a worker run was refused');
      if (prepared.sessions.length > 0) {
        const traceIds = prepared.sessions.map((s) => WorkerService.traceIdOf(inputs.scope, s.id, s.agent));
        const known = await this.store.run('agentsKnown', {
          scope: inputs.scope,
          traceIds,
          blobShas: prepared.blobShas,
        });
        const outcome = await this.ingest.ingest(
          {
            body: prepared.body,
            encoding: 'agents',
            contentEncoding: undefined,
            maxDecompressedBytes: prepared.body.byteLength,
            maxSpansPerTrace: this.settings.maxSpansPerTrace,
            scope: inputs.scope,
            plan: quotaPlan(plan),
            knownSpanIds: known.spanIds,
            scanned: { keys: prepared.keys, held: prepared.held },
          },
          true,
        );
        if (outcome.refused)
          this.log.warn(
            { run_id: runId, code: outcome.refused.code },
            "the trace of a worker run was refused by the plan's quota",
          );
      }
    }
    if (figures.length > 0)
      await this.store.run('recordWorkerFigures', { tenantId: inputs.scope.tenantId, runId, figures });
  }
}
