/**
 * The main thread's side of ingestion: it admits spans for every compute worker (one index, so the
 * per-trace bound and replays are decided once for all), keeps plan quotas, has each flushed
 * generation committed by the store thread and then deletes its log file, tells requests that asked
 * to wait when their spans are visible, refuses new work when too much is not yet committed, and at
 * start replays the log files a crash left behind.
 *
 * Nothing here is CPU-heavy: a map lookup per span and a few messages per request.
 */
import { readdirSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import type { MessagePort } from 'node:worker_threads';
import type { Logger } from 'pino';
import { ApiError } from '../core/errors.js';
import { crashPoint } from './testHooks.js';
import { AdmissionIndex } from '../core/ingest/admission.js';
import { monthOf, quotaRefusal, type Plan } from '../core/plans.js';
import type { ComputeClient } from '../pool/computeClient.js';
import type { CoordinatorMessage, WorkerMessage } from '../pool/ingestMessages.js';
import type { StoreClient } from '../pool/storeClient.js';
import type { Scope } from '../store/admin/meta.js';
import type { AdmitAnswer, AdmitRequest, GenerationId, GenerationReport, IngestInput, IngestOutcome, IngestTimings } from './workerIngest.js';

/**
 * An ingestion request's way to its answer: to a compute worker, decode and map, the main
 * thread's admission, the log's append and fdatasync, back to the main thread.
 */
export type IngestPhase = 'dispatch' | 'decode_map' | 'admission' | 'log_sync' | 'reply';

export interface CoordinatorOptions {
  logDir: string;
  maxSpansPerTrace: number;
  /** Span ids the admission index remembers. */
  dedupeSpans: number;
  /** Request bytes in flight or not yet committed before new requests get 503. */
  maxBacklogBytes: number;
  /** How long a request that asked to wait for visibility waits at most. */
  visibleTimeoutMs: number;
}

interface WorkerState {
  port: MessagePort;
  /** Admission tickets not yet settled. */
  tickets: Set<number>;
  flushes: Map<number, () => void>;
}

interface Usage {
  month: string;
  monthSpans: number;
  storedBytes: number;
}

export const RETRY_AFTER_SECONDS = 1;
const COMMIT_RETRY_MS = 1000;
/** How far back `start` remembers committed spans. */
const RECENT_MS = 10 * 60_000;

export class IngestCoordinator {
  private readonly workers = new Map<string, WorkerState>();
  private readonly admission: AdmissionIndex;
  private readonly usage = new Map<string, Usage>();
  private readonly usageLoads = new Map<string, Promise<Usage>>();
  /** Quota reserved by a ticket, given back if it fails. */
  private readonly reserved = new Map<number, { tenantId: string; spans: number; bytes: number }>();
  /** Highest generation committed, per worker (a worker's generations commit in order). */
  private readonly committed = new Map<string, number>();
  private readonly waiters = new Map<string, (() => void)[]>();
  /** Request bytes of generations not yet committed, and of requests in flight. */
  private readonly uncommitted = new Map<string, number>();
  private inFlightBytes = 0;
  private commits: Promise<void> = Promise.resolve();
  private closing = false;
  private nextFlush = 1;
  private readonly greeted: { count: number; wake: () => void }[] = [];

  constructor(
    private readonly store: StoreClient,
    private readonly compute: ComputeClient,
    private readonly options: CoordinatorOptions,
    private readonly log: Logger,
  ) {
    this.admission = new AdmissionIndex(options.maxSpansPerTrace, options.dedupeSpans);
  }

  /** Called with each compute worker's greeting: its id and its end of the port. */
  attach(workerId: string, port: MessagePort): void {
    const state: WorkerState = { port, tickets: new Set(), flushes: new Map() };
    this.workers.set(workerId, state);
    port.on('message', (m: WorkerMessage) => this.onMessage(workerId, state, m));
    port.on('close', () => this.onWorkerGone(workerId, state));
    port.unref();
    for (const g of this.greeted.filter((g) => this.workers.size >= g.count)) {
      this.greeted.splice(this.greeted.indexOf(g), 1);
      g.wake();
    }
  }

  /**
   * Resolves once `count` compute workers have greeted, i.e. opened their DuckDB. The server listens
   * only then: a worker terminated while it is still opening DuckDB (a stop soon after the start)
   * aborts the whole process (N-API cannot throw into a thread being torn down).
   */
  whenWorkers(count: number): Promise<void> {
    if (this.workers.size >= count) return Promise.resolve();
    return new Promise((wake) => this.greeted.push({ count, wake }));
  }

  /** Spans by what became of them, since the start (the operations metrics read them). */
  readonly counts = { admitted: 0, duplicates: 0, overBound: 0, invalid: 0, quotaRefused: 0 };

  /** Bytes accepted but not yet in committed segments (with requests in flight). */
  get backlogBytes(): number {
    let n = this.inFlightBytes;
    for (const b of this.uncommitted.values()) n += b;
    return n;
  }

  /**
   * Runs one request through a compute worker. Refused with 503 before any work when the backlog is
   * over its bound. With `waitVisible`, resolves only once the spans can be read (or the wait
   * times out; the spans are durable either way). `workerMs` is the worker's part (map, admission,
   * the log's fsync), `visibleWaitMs` the wait for the commit after it.
   */
  async ingest(input: Omit<IngestInput, 'soon'>, waitVisible: boolean): Promise<IngestOutcome & { visible: boolean; workerMs: number; visibleWaitMs: number }> {
    const bytes = input.body.byteLength;
    if (this.backlogBytes + bytes > this.options.maxBacklogBytes) {
      throw new ApiError('overloaded', 'Too much ingested data is waiting to be written; retry shortly', { retry_after_seconds: RETRY_AFTER_SECONDS }, { 'Retry-After': String(RETRY_AFTER_SECONDS) });
    }
    if (input.plan) await this.usageOf(input.scope.tenantId);
    this.inFlightBytes += bytes;
    let outcome: IngestOutcome;
    const started = performance.now();
    try {
      // The body is the request's own copy (server.readBody): move it rather than copy it.
      outcome = await this.compute.run('ingest', { ...input, soon: waitVisible }, [input.body.buffer as ArrayBuffer]);
    } finally {
      this.inFlightBytes -= bytes;
    }
    const workerMs = performance.now() - started;
    this.observe(outcome.timings, performance.timeOrigin + started, performance.timeOrigin + started + workerMs);
    this.count(outcome);
    const g = outcome.generation;
    if (g && !this.isCommitted(g)) {
      const key = genKey(g);
      this.uncommitted.set(key, (this.uncommitted.get(key) ?? 0) + bytes);
    }
    const visible = g === null || !waitVisible ? g === null || this.isCommitted(g) : await this.visible(g);
    return { ...outcome, visible, workerMs, visibleWaitMs: performance.now() - started - workerMs };
  }

  /** Told where each request's time went before its answer (seconds by phase), for the operations metrics. */
  phaseObserver: ((phase: IngestPhase, seconds: number) => void) | null = null;

  private observe(t: IngestTimings, sentAt: number, answeredAt: number): void {
    const see = this.phaseObserver;
    if (!see) return;
    // Clocks of two threads: a difference below zero is their rounding, not time.
    const seconds = (ms: number) => Math.max(0, ms) / 1000;
    see('dispatch', seconds(t.startedAt - sentAt));
    see('decode_map', seconds(t.decodeMapMs));
    see('admission', seconds(t.admissionMs));
    see('log_sync', seconds(t.logSyncMs));
    see('reply', seconds(answeredAt - t.endedAt));
  }

  private count(o: IngestOutcome): void {
    this.counts.admitted += o.accepted;
    this.counts.duplicates += o.duplicates;
    this.counts.overBound += o.overBound;
    this.counts.invalid += o.rejected - o.overBound;
    this.counts.quotaRefused += o.overQuota;
  }

  /**
   * Before serving: the span ids of the last minutes of committed segments join the admission
   * index (a retry of a request whose answer a crash lost is then recognised even when its spans
   * reached a segment), then the log files a crash left are replayed.
   */
  async start(): Promise<{ files: number; spans: number; discardedBytes: number; remembered: number }> {
    let remembered = 0;
    const recent = await this.store.run('recentSpanKeys', { sinceMs: Date.now() - RECENT_MS, limit: Math.floor(this.options.dedupeSpans / 2) });
    for (const k of recent) {
      this.admission.remember(scopeKey(k.scope), k.traceIds, k.spanIds);
      remembered += k.spanIds.length;
    }
    return { ...(await this.recover()), remembered };
  }

  /**
   * Replays the log files a previous run left (before the server listens), or those of one worker
   * that ended: files a committed generation covers are deleted; the others are written as
   * segments and committed.
   */
  async recover(workerId?: string): Promise<{ files: number; spans: number; discardedBytes: number }> {
    const names = logFiles(this.options.logDir).filter((n) => workerId === undefined || n.startsWith(`${workerId}-`));
    if (names.length === 0) return { files: 0, spans: 0, discardedBytes: 0 };
    const done = new Set(await this.store.run('committedLogs', { names }));
    let spans = 0;
    let discardedBytes = 0;
    for (const name of names) {
      const path = join(this.options.logDir, name);
      if (!done.has(name)) {
        const replayed = await this.compute.run('replayLog', { path, name });
        discardedBytes += replayed.discardedBytes;
        if (replayed.discardedBytes > 0) this.log.warn({ file: name, discarded_bytes: replayed.discardedBytes }, 'ingest log ended in a torn or damaged record; the bytes after the last whole record were not replayed');
        if (replayed.report) await this.store.run('commitGeneration', replayed.report);
        for (const k of replayed.keys) {
          this.admission.remember(scopeKey(k.scope), k.traceIds, k.spanIds);
          spans += k.spanIds.length;
        }
      }
      rmSync(path, { force: true });
    }
    return { files: names.length, spans, discardedBytes };
  }

  /**
   * Shutdown: every worker writes what it holds and closes its DuckDB; resolves once all of it is
   * committed. The workers take no more requests after this.
   */
  async drain(): Promise<void> {
    this.closing = true;
    await Promise.all(
      [...this.workers.values()].map(
        (w) =>
          new Promise<void>((resolve) => {
            const id = this.nextFlush++;
            w.flushes.set(id, resolve);
            const message: CoordinatorMessage = { t: 'flush', id, close: true };
            w.port.postMessage(message);
          }),
      ),
    );
    await this.commits;
  }

  private onMessage(workerId: string, w: WorkerState, m: WorkerMessage): void {
    switch (m.t) {
      case 'admit':
        return this.reply(w, { t: 'admitted', id: m.id, answer: this.admit(w, m.request) });
      case 'settle':
        return this.settle(w, m.ticket, m.durable);
      case 'generation':
        return this.enqueueCommit(m.report);
      case 'flushed':
        w.flushes.get(m.id)?.();
        w.flushes.delete(m.id);
        return;
      case 'log':
        this.log[m.level]({ worker: workerId, err: m.err }, m.msg);
    }
  }

  private admit(w: WorkerState, req: AdmitRequest): AdmitAnswer {
    const a = this.admission.admit({ scope: scopeKey(req.scope), traceIds: req.traceIds, traceOf: req.traceOf, spanIds: req.spanIds });
    w.tickets.add(a.ticket);
    let refused = null;
    if (req.plan) {
      const dropped = new Set(a.drop);
      let spans = 0;
      let bytes = req.blobBytes;
      req.bytes.forEach((b, i) => {
        if (!dropped.has(i)) {
          spans++;
          bytes += b;
        }
      });
      refused = spans > 0 ? this.reserveQuota(a.ticket, req.scope.tenantId, req.plan, spans, bytes) : null;
    }
    return { ...a, refused };
  }

  private reserveQuota(ticket: number, tenantId: string, plan: Plan, spans: number, bytes: number) {
    const u = this.usage.get(tenantId);
    if (!u) return null; // loaded by ingest() before the request was dispatched
    const month = monthOf(Date.now());
    if (u.month !== month) Object.assign(u, { month, monthSpans: 0 });
    const refused = quotaRefusal(plan, u, spans, bytes);
    if (refused) return refused;
    u.monthSpans += spans;
    u.storedBytes += bytes;
    this.reserved.set(ticket, { tenantId, spans, bytes });
    return null;
  }

  private settle(w: WorkerState, ticket: number, durable: boolean): void {
    w.tickets.delete(ticket);
    this.admission.settle(ticket, durable);
    const r = this.reserved.get(ticket);
    this.reserved.delete(ticket);
    if (r && !durable) {
      const u = this.usage.get(r.tenantId);
      if (u) {
        u.monthSpans -= r.spans;
        u.storedBytes -= r.bytes;
      }
    }
  }

  private usageOf(tenantId: string): Promise<Usage> {
    let load = this.usageLoads.get(tenantId);
    if (!load) {
      load = this.store.run('tenantUsage', { tenantId }).then((u) => {
        this.usage.set(tenantId, u);
        return u;
      });
      load.catch(() => this.usageLoads.delete(tenantId));
      this.usageLoads.set(tenantId, load);
    }
    return load;
  }

  private enqueueCommit(report: GenerationReport): void {
    this.commits = this.commits.then(() => this.commit(report));
  }

  /** Commits a generation, retrying until the store takes it; then its log file can go. */
  private async commit(report: GenerationReport): Promise<void> {
    for (let attempt = 1; ; attempt++) {
      try {
        await this.store.run('commitGeneration', report);
        crashPoint('after-generation-commit');
        break;
      } catch (err) {
        this.log.warn({ err, log: report.log, attempt }, 'could not commit a flushed generation; retrying');
        await new Promise((r) => setTimeout(r, COMMIT_RETRY_MS));
      }
    }
    rmSync(join(this.options.logDir, report.log), { force: true });
    this.markCommitted(report);
  }

  private markCommitted(g: GenerationId): void {
    this.committed.set(g.workerId, Math.max(this.committed.get(g.workerId) ?? 0, g.seq));
    const key = genKey(g);
    this.uncommitted.delete(key);
    for (const wake of this.waiters.get(key) ?? []) wake();
    this.waiters.delete(key);
  }

  private isCommitted(g: GenerationId): boolean {
    return (this.committed.get(g.workerId) ?? 0) >= g.seq;
  }

  private visible(g: GenerationId): Promise<boolean> {
    if (this.isCommitted(g)) return Promise.resolve(true);
    return new Promise((resolve) => {
      const timer = setTimeout(() => resolve(false), this.options.visibleTimeoutMs);
      const key = genKey(g);
      const list = this.waiters.get(key) ?? [];
      list.push(() => {
        clearTimeout(timer);
        resolve(true);
      });
      this.waiters.set(key, list);
    });
  }

  /**
   * A worker thread ended (it crashed; Piscina starts another). What it admitted but had not made
   * durable is taken back; its log files that no commit covers are replayed once the commits it
   * already reported are done.
   */
  private onWorkerGone(workerId: string, w: WorkerState): void {
    this.workers.delete(workerId);
    for (const ticket of [...w.tickets]) this.settle(w, ticket, false);
    for (const wake of w.flushes.values()) wake();
    if (this.closing) return;
    this.log.warn({ worker: workerId }, 'a compute worker ended; replaying its ingest log');
    this.commits = this.commits.then(async () => {
      try {
        await this.recover(workerId);
      } catch (err) {
        this.log.error({ err }, 'could not replay the ingest log of an ended worker; it will be replayed at the next start');
      }
      for (const [key, wakes] of this.waiters) {
        if (!key.startsWith(`${workerId}:`)) continue;
        for (const wake of wakes) wake();
        this.waiters.delete(key);
        this.uncommitted.delete(key);
      }
    });
  }

  private reply(w: WorkerState, m: CoordinatorMessage): void {
    w.port.postMessage(m);
  }
}

function scopeKey(s: Scope): string {
  return `${s.tenantId}/${s.appId}/${s.environmentId}`;
}

function genKey(g: GenerationId): string {
  return `${g.workerId}:${g.seq}`;
}

/** Log files in the directory, oldest generation first within each worker. */
function logFiles(dir: string): string[] {
  try {
    return readdirSync(dir).filter((f) => f.endsWith('.log')).sort();
  } catch {
    return [];
  }
}
