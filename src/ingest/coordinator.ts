/**
 * The main thread's side of ingestion, and the way to an answer (ARCHITECTURE §2):
 *
 *   body → decompress (libuv pool) → check and read row keys (protobuf: here, protoCheck.ts, no
 *   decoding; JSON and agent batches: a compute worker) → admission (dedupe, the per-trace bound,
 *   plan quotas) → append to a worker's ingest log file → fdatasync (its own thread, shared by a
 *   group of requests) → answer; then the record goes to that worker, which decodes and maps it
 *   into its next segment.
 *
 * So an answer waits for no decoding or mapping, only for the check, one sync and this thread: a
 * 2xx means the body is durable, `partialSuccess` is exact (the check refuses what decoding would,
 * and reads the ids mapping would keep), and a refused request stores nothing. The coordinator
 * also cuts each worker's generations (by size, by age, or at once for a request that waits until
 * its spans are visible), has each flushed generation committed by the store thread and then
 * deletes its log file, tells waiting requests when their spans are visible, refuses new work when
 * too much is not yet committed, and at start replays the log files a crash left behind.
 *
 * Nothing here is CPU-heavy: a walk over the body's bytes, a map lookup per span and a few
 * messages per request.
 */
import { readdirSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import type { MessagePort } from 'node:worker_threads';
import type { Logger } from 'pino';
import { ApiError } from '../core/errors.js';
import { AdmissionIndex } from '../core/ingest/admission.js';
import { rowKeys, type RowKeys } from '../core/otlp/map.js';
import { monthOf, quotaRefusal, type Plan, type QuotaRefusal } from '../core/plans.js';
import type { ComputeClient } from '../pool/computeClient.js';
import type { CoordinatorMessage, WorkerMessage } from '../pool/ingestMessages.js';
import type { StoreClient } from '../pool/storeClient.js';
import type { Scope } from '../store/admin/meta.js';
import { checkProtobufRequest, decompressAsync } from './decode.js';
import { IngestLogFile } from './ingestLog.js';
import type { LogHeader } from './logFormat.js';
import type { SyncFn } from './logSync.js';
import { estimateRowBytes } from './rowBytes.js';
import { crashPoint, DISCARD_AFTER_MAP } from './testHooks.js';
import { logName, type GenerationId, type GenerationReport, type PrepareInput } from './workerIngest.js';

/** An ingestion request's way to its answer: check (and decompress), admission, the log's append and fdatasync. */
export type IngestPhase = 'check' | 'admission' | 'log_sync';

/**
 * A generation's way from its first record to readable: open (until it is cut), write (the worker's
 * rows to segments, until its report arrives), queue (waiting for the commits before it), commit.
 */
export type GenerationStage = 'open' | 'write' | 'queue' | 'commit';

export interface IngestRequest extends PrepareInput {
  /** The tenant's plan when it limits spans or storage. */
  plan: Plan | null;
  /** Span ids the store holds already (an agent session synced again): dropped as duplicates. */
  knownSpanIds?: string[];
}

export interface IngestOutcome {
  /** Spans refused by mapping (bad ids, times) and by admission (over the bound). */
  rejected: number;
  errors: string[];
  duplicates: number;
  overBound: number;
  refused: QuotaRefusal | null;
  /** Rows kept: durable in the ingest log. */
  accepted: number;
  /** Rows refused because the request was over the plan's quota (then `accepted` is 0). */
  overQuota: number;
  /** Whether the rows are readable already (always, when none was kept). */
  visible: boolean;
  /** Time until the record was durable, and then until visible (when the request waited for it). */
  ackMs: number;
  visibleWaitMs: number;
}

export interface FlushPolicy {
  maxRows: number;
  maxBodyBytes: number;
  maxAgeMs: number;
}

export interface CoordinatorOptions {
  logDir: string;
  maxSpansPerTrace: number;
  /** Span ids the admission index remembers. */
  dedupeSpans: number;
  /** Request bytes in flight or not yet committed before new requests get 503. */
  maxBacklogBytes: number;
  /** How long a request that asked to wait for visibility waits at most. */
  visibleTimeoutMs: number;
  flush: FlushPolicy;
  /** Makes log appends durable (the log sync thread). */
  sync: SyncFn;
}

/** One log file and the records a worker gets from it. */
class LaneGeneration {
  log: IngestLogFile | null = null;
  /** When its first record was appended, and when it was cut (performance.now()). */
  firstAt = 0;
  cutAt = 0;
  /** When each of its records was answered (kept only for the operations metrics). */
  readonly answeredAt: number[] = [];
  /** Rows kept in its records, and their bodies' bytes. */
  rows = 0;
  bodyBytes = 0;
  /** Appends not yet durable or failed. */
  private pending = 0;
  private whenSettled: (() => void)[] = [];
  readonly openedAt = Date.now();

  constructor(
    readonly seq: number,
    readonly name: string,
  ) {}

  begin(): void {
    this.pending++;
  }

  end(): void {
    if (--this.pending === 0) for (const wake of this.whenSettled.splice(0)) wake();
  }

  /** Resolves once every append begun has ended. */
  settled(): Promise<void> {
    return this.pending === 0 ? Promise.resolve() : new Promise((resolve) => this.whenSettled.push(resolve));
  }
}

/** A compute worker as the coordinator sees it: its port, and the generation its records go to. */
interface Lane {
  workerId: string;
  port: MessagePort;
  nextSeq: number;
  open: LaneGeneration;
  /** Generations cut whose appends are settling, and when their flush will have been sent. */
  cutting: Map<LaneGeneration, Promise<void>>;
  /** A request waits to see its spans: cut at the end of this turn of the event loop. */
  soon: boolean;
  /** Generations told to flush whose report has not come back: the worker is still writing them. */
  writing: number;
  gone: boolean;
  closes: Map<number, () => void>;
}

interface Usage {
  month: string;
  monthSpans: number;
  storedBytes: number;
}

export const RETRY_AFTER_SECONDS = 1;
const COMMIT_RETRY_MS = 1000;
/** How many times its age a generation may stay open while its worker writes the one before. */
const GROWTH = 3;
/** How far back `start` remembers committed spans. */
const RECENT_MS = 10 * 60_000;

export class IngestCoordinator {
  private readonly lanes = new Map<string, Lane>();
  private nextLane = 0;
  private readonly admission: AdmissionIndex;
  private readonly usage = new Map<string, Usage>();
  private readonly usageLoads = new Map<string, Promise<Usage>>();
  /** Highest generation committed, per worker (a worker's generations commit in order). */
  private readonly committed = new Map<string, number>();
  private readonly waiters = new Map<string, (() => void)[]>();
  /** Request bytes of generations not yet committed. */
  private readonly uncommitted = new Map<string, number>();
  /** Request bytes being checked, admitted or synced. */
  private inFlightBytes = 0;
  private commits: Promise<void> = Promise.resolve();
  private closing = false;
  private nextClose = 1;
  private readonly greeted: { count: number; wake: () => void }[] = [];
  private readonly timer: NodeJS.Timeout;

  constructor(
    private readonly store: StoreClient,
    private readonly compute: ComputeClient,
    private readonly options: CoordinatorOptions,
    private readonly log: Logger,
  ) {
    this.admission = new AdmissionIndex(options.maxSpansPerTrace, options.dedupeSpans);
    this.timer = setInterval(() => this.cutOld(), Math.max(5, Math.min(50, options.flush.maxAgeMs / 4)));
    this.timer.unref();
  }

  /** Called with each compute worker's greeting: its id and its end of the port. */
  attach(workerId: string, port: MessagePort): void {
    const lane: Lane = { workerId, port, nextSeq: 2, open: new LaneGeneration(1, logName(workerId, 1)), cutting: new Map(), soon: false, writing: 0, gone: false, closes: new Map() };
    this.lanes.set(workerId, lane);
    port.on('message', (m: WorkerMessage) => this.onMessage(workerId, lane, m));
    port.on('close', () => this.onWorkerGone(lane));
    port.unref();
    for (const g of this.greeted.filter((g) => this.lanes.size >= g.count)) {
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
    if (this.lanes.size >= count) return Promise.resolve();
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

  /** Told where each request's time went before its answer (seconds by phase), for the operations metrics. */
  phaseObserver: ((phase: IngestPhase, seconds: number) => void) | null = null;
  /** Told where each generation's time went until it was readable (seconds by stage). */
  generationObserver: ((stage: GenerationStage, seconds: number) => void) | null = null;
  /** Told, for each request kept, the time from its answer to its spans being readable (seconds). */
  visibleObserver: ((seconds: number) => void) | null = null;
  /** Cut and report times of generations on their way, and their records' answer times, by generation key. */
  private readonly stages = new Map<string, { firstAt: number; cutAt: number; reportedAt: number; answeredAt: number[] }>();

  /**
   * Takes one request: refused with 503 before any work when the backlog is over its bound;
   * answered once its record is durable or, with `waitVisible`, once its spans can be read (or the
   * wait times out; they are durable either way).
   */
  async ingest(input: IngestRequest, waitVisible: boolean): Promise<IngestOutcome> {
    const started = performance.now();
    const requestBytes = input.body.byteLength;
    if (this.backlogBytes + requestBytes > this.options.maxBacklogBytes) throw overloaded('Too much ingested data is waiting to be written; retry shortly');
    if (input.plan) await this.usageOf(input.scope.tenantId);
    this.inFlightBytes += requestBytes;
    let record: { gen: GenerationId; kept: number } | null;
    let outcome: IngestOutcome;
    try {
      const checking = performance.now();
      const { keys, body } = await this.check(input);
      const checked = performance.now();
      if (DISCARD_AFTER_MAP) return this.outcome({ rejected: keys.rejected, errors: keys.errors }, started);
      const admitted = this.admit(input, keys, body.byteLength);
      const admittedAt = performance.now();
      outcome = this.outcome(admitted, started);
      if (admitted.kept === 0 && !admitted.refused) this.admission.settle(admitted.ticket, false);
      record = admitted.kept > 0 ? { gen: await this.append(input, admitted, body, waitVisible), kept: admitted.kept } : null;
      if (record) outcome.accepted = record.kept;
      outcome.ackMs = performance.now() - started;
      this.observe(checked - checking, admittedAt - checked, performance.now() - admittedAt);
    } finally {
      this.inFlightBytes -= requestBytes;
    }
    this.count(outcome);
    if (!record) return outcome;
    const g = record.gen;
    const key = genKey(g);
    if (!this.isCommitted(g)) this.uncommitted.set(key, (this.uncommitted.get(key) ?? 0) + requestBytes);
    const waitStarted = performance.now();
    outcome.visible = waitVisible ? await this.visible(g) : this.isCommitted(g);
    outcome.visibleWaitMs = performance.now() - waitStarted;
    return outcome;
  }

  /**
   * The body as the log keeps it (decompressed) and its row keys. A protobuf body is checked here
   * (no decoding); JSON and agent batches are parsed by a compute worker.
   */
  private async check(input: IngestRequest): Promise<{ keys: RowKeys; body: Uint8Array }> {
    if (input.encoding === 'protobuf' && !DISCARD_AFTER_MAP) {
      const body = await decompressAsync(input.body, input.contentEncoding, input.maxDecompressedBytes);
      return { keys: rowKeys(checkProtobufRequest(body), { maxSpansPerTrace: input.maxSpansPerTrace }), body };
    }
    const task = {
      body: input.body,
      encoding: input.encoding,
      contentEncoding: input.contentEncoding,
      maxDecompressedBytes: input.maxDecompressedBytes,
      maxSpansPerTrace: input.maxSpansPerTrace,
      scope: input.scope,
      discard: DISCARD_AFTER_MAP,
    };
    // A scan is pure: one that failed with its worker (the thread ended under it) is run again.
    const scanned = await this.compute.run('scan', task).catch((e: unknown) => {
      if (e instanceof ApiError) throw e;
      return this.compute.run('scan', task);
    });
    return { keys: scanned.keys, body: scanned.decompressed ?? input.body };
  }

  /** Admission of the rows: replays and rows over the bound dropped, the plan's quotas kept. */
  private admit(input: IngestRequest, keys: RowKeys, bodyBytes: number) {
    // Rows the store holds already are not put to admission; they are dropped like its duplicates.
    const known = input.knownSpanIds && input.knownSpanIds.length > 0 ? new Set(input.knownSpanIds) : null;
    const candidates = known ? keys.spanIds.flatMap((span, i) => (known.has(span) ? [] : [i])) : null;
    const a = this.admission.admit({
      scope: scopeKey(input.scope),
      traceIds: keys.traceIds,
      traceOf: candidates ? candidates.map((i) => keys.traceOf[i]!) : keys.traceOf,
      spanIds: candidates ? candidates.map((i) => keys.spanIds[i]!) : keys.spanIds,
    });
    let drop = a.drop;
    let duplicates = a.duplicates;
    if (candidates) {
      const kept = new Set(candidates);
      const knownRows = keys.spanIds.flatMap((_, i) => (kept.has(i) ? [] : [i]));
      drop = [...knownRows, ...a.drop.map((i) => candidates[i]!)].sort((x, y) => x - y);
      duplicates += knownRows.length;
    }
    const rows = keys.spanIds.length;
    const kept = rows - drop.length;
    // The storage estimate of the kept rows: their share of the body (the main thread maps nothing).
    const bytes = kept === 0 ? 0 : estimateRowBytes(Math.round((bodyBytes * kept) / rows), kept);
    const refused = input.plan && kept > 0 ? this.reserveQuota(a.ticket, input.scope.tenantId, input.plan, kept, bytes) : null;
    const errors = [...keys.errors];
    if (a.overBound > 0) errors.push(`${a.overBound} span(s) over the bound of ${input.maxSpansPerTrace} spans per trace`);
    if (refused) this.admission.settle(a.ticket, false);
    return { rejected: keys.rejected + a.overBound, errors, duplicates, overBound: a.overBound, refused, drop, kept: refused ? 0 : kept, overQuota: refused ? kept : 0, bytes, ticket: a.ticket };
  }

  private outcome(o: { rejected: number; errors: string[]; duplicates?: number; overBound?: number; refused?: QuotaRefusal | null; overQuota?: number }, started: number): IngestOutcome {
    return { rejected: o.rejected, errors: o.errors, duplicates: o.duplicates ?? 0, overBound: o.overBound ?? 0, refused: o.refused ?? null, accepted: 0, overQuota: o.overQuota ?? 0, visible: true, ackMs: performance.now() - started, visibleWaitMs: 0 };
  }

  /**
   * Appends the record to a worker's open generation and waits for it to be durable; then hands it
   * to the worker. Admission's ticket is settled either way, and quota given back on failure.
   */
  private async append(input: IngestRequest, a: ReturnType<IngestCoordinator['admit']>, body: Uint8Array, waitVisible: boolean): Promise<GenerationId> {
    const lane = this.pickLane();
    if (!lane) {
      this.fail(a.ticket);
      throw overloaded('No compute worker is ready; retry shortly');
    }
    const gen = lane.open;
    const header: LogHeader = {
      tenantId: input.scope.tenantId,
      appId: input.scope.appId,
      environmentId: input.scope.environmentId,
      encoding: input.encoding,
      contentEncoding: null,
      maxSpansPerTrace: input.maxSpansPerTrace,
      drop: a.drop,
      receivedAtMs: Date.now(),
      bytes: a.bytes,
    };
    gen.begin();
    try {
      if (!gen.log) {
        gen.firstAt = performance.now();
        gen.log = new IngestLogFile(join(this.options.logDir, gen.name), this.options.sync);
      }
      await gen.log.append(header, body);
      crashPoint('after-log-sync');
    } catch (e) {
      gen.end();
      this.fail(a.ticket);
      throw e;
    }
    this.admission.settle(a.ticket, true);
    this.reserved.delete(a.ticket);
    if (this.visibleObserver) gen.answeredAt.push(performance.now());
    gen.rows += a.kept;
    gen.bodyBytes += body.byteLength;
    const own = ownedBuffer(body);
    const message: CoordinatorMessage = { t: 'record', seq: gen.seq, header, body: own };
    if (!lane.gone) lane.port.postMessage(message, [own.buffer as ArrayBuffer]);
    gen.end();
    if (gen === lane.open) {
      if (gen.rows >= this.options.flush.maxRows || gen.bodyBytes >= this.options.flush.maxBodyBytes) void this.cut(lane);
      else if (waitVisible) this.cutSoon(lane);
    }
    return { workerId: lane.workerId, seq: gen.seq };
  }

  /** A request that will not be answered 2xx: its admission and its quota are taken back. */
  private fail(ticket: number): void {
    this.admission.settle(ticket, false);
    const r = this.reserved.get(ticket);
    this.reserved.delete(ticket);
    const u = r && this.usage.get(r.tenantId);
    if (r && u) {
      u.monthSpans -= r.spans;
      u.storedBytes -= r.bytes;
    }
  }

  /** Quota reserved by an admission ticket, given back if its request fails. */
  private readonly reserved = new Map<number, { tenantId: string; spans: number; bytes: number }>();

  private reserveQuota(ticket: number, tenantId: string, plan: Plan, spans: number, bytes: number): QuotaRefusal | null {
    const u = this.usage.get(tenantId);
    if (!u) return null; // loaded by ingest() before the request was checked
    const month = monthOf(Date.now());
    if (u.month !== month) Object.assign(u, { month, monthSpans: 0 });
    const refused = quotaRefusal(plan, u, spans, bytes);
    if (refused) return refused;
    u.monthSpans += spans;
    u.storedBytes += bytes;
    this.reserved.set(ticket, { tenantId, spans, bytes });
    return null;
  }

  private pickLane(): Lane | null {
    const lanes = [...this.lanes.values()];
    if (lanes.length === 0) return null;
    return lanes[this.nextLane++ % lanes.length]!;
  }

  /**
   * Closes the lane's open generation to new records; once its appends have settled, the worker is
   * told to flush it (the promise resolves then).
   */
  private cut(lane: Lane): Promise<void> {
    lane.soon = false;
    const gen = lane.open;
    if (gen.log === null) return Promise.resolve(); // nothing appended since the last cut
    lane.open = new LaneGeneration(lane.nextSeq, logName(lane.workerId, lane.nextSeq));
    lane.nextSeq++;
    gen.cutAt = performance.now();
    const flushed = gen.settled().then(() => {
      lane.cutting.delete(gen);
      gen.log!.close();
      if (gen.rows === 0) {
        // Every append failed: nothing was answered 2xx, nothing to keep.
        rmSync(join(this.options.logDir, gen.name), { force: true });
        return;
      }
      if (lane.gone) return; // its log is replayed (onWorkerGone)
      if (this.generationObserver || this.visibleObserver) this.stages.set(genKey({ workerId: lane.workerId, seq: gen.seq }), { firstAt: gen.firstAt, cutAt: gen.cutAt, reportedAt: 0, answeredAt: gen.answeredAt });
      const message: CoordinatorMessage = { t: 'flush', seq: gen.seq };
      lane.port.postMessage(message);
      lane.writing++;
    });
    lane.cutting.set(gen, flushed);
    return flushed;
  }

  private cutSoon(lane: Lane): void {
    if (lane.soon) return;
    lane.soon = true;
    setImmediate(() => {
      if (lane.soon) void this.cut(lane);
    });
  }

  /**
   * Cuts generations past their age — unless the worker has not written the last one yet: then the
   * open one grows, up to three times its age, instead of queueing behind it as one more small
   * segment and one more commit. A busy worker writes fewer, larger generations (its spans would
   * not be readable sooner either way); the bound keeps one from holding seconds of spans.
   */
  private cutOld(): void {
    const now = Date.now();
    const age = this.options.flush.maxAgeMs;
    for (const lane of this.lanes.values()) {
      const open = now - lane.open.openedAt;
      if (lane.open.rows > 0 && open >= age && (lane.writing === 0 || open >= GROWTH * age)) void this.cut(lane);
    }
  }

  private observe(checkMs: number, admissionMs: number, logSyncMs: number): void {
    const see = this.phaseObserver;
    if (!see) return;
    see('check', checkMs / 1000);
    see('admission', admissionMs / 1000);
    see('log_sync', logSyncMs / 1000);
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
        if (replayed.skippedRecords > 0) this.log.error({ file: name, records: replayed.skippedRecords }, 'ingest log records that could not be decoded were skipped');
        if (replayed.report) await this.store.run('commitGenerations', { reports: [replayed.report] });
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
   * Shutdown: every open generation is cut and flushed, every worker writes what it holds and
   * closes its DuckDB; resolves once what could be written is committed (a generation that could
   * not be written stays in its log file, replayed at the next start). The server takes no more
   * requests before this.
   */
  async drain(): Promise<void> {
    this.closing = true;
    clearInterval(this.timer);
    const lanes = [...this.lanes.values()];
    // Generations cut before, still settling, are flushed by their own cut.
    await Promise.all(lanes.flatMap((lane) => [this.cut(lane), ...lane.cutting.values()]));
    await Promise.all(
      lanes.map(
        (lane) =>
          new Promise<void>((resolve) => {
            if (lane.gone) return resolve();
            const id = this.nextClose++;
            lane.closes.set(id, resolve);
            const message: CoordinatorMessage = { t: 'close', id };
            lane.port.postMessage(message);
          }),
      ),
    );
    await this.commits;
  }

  private onMessage(workerId: string, lane: Lane, m: WorkerMessage): void {
    switch (m.t) {
      case 'generation':
        lane.writing = Math.max(0, lane.writing - 1);
        if (m.report.skippedRecords > 0) this.log.error({ worker: workerId, log: m.report.log, records: m.report.skippedRecords }, 'ingest log records that could not be decoded were skipped');
        return this.enqueueCommit(m.report);
      case 'closed':
        lane.closes.get(m.id)?.();
        lane.closes.delete(m.id);
        return;
      case 'log':
        this.log[m.level]({ worker: workerId, err: m.err }, m.msg);
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
    const stage = this.stages.get(genKey(report));
    if (stage) stage.reportedAt = performance.now();
    this.waitingReports.push(report);
    if (this.waitingReports.length === 1) this.commits = this.commits.then(() => this.commitWaiting());
  }

  /** Reports waiting for the commit before them to end: the next commit takes them all. */
  private waitingReports: GenerationReport[] = [];

  /** Commits the generations waiting, retrying until the store takes them; then their log files can go. */
  private async commitWaiting(): Promise<void> {
    const reports = this.waitingReports;
    this.waitingReports = [];
    const committing = performance.now();
    for (let attempt = 1; ; attempt++) {
      try {
        await this.store.run('commitGenerations', { reports });
        crashPoint('after-generation-commit');
        break;
      } catch (err) {
        this.log.warn({ err, logs: reports.map((r) => r.log), attempt }, 'could not commit flushed generations; retrying');
        await new Promise((r) => setTimeout(r, COMMIT_RETRY_MS));
      }
    }
    const committed = performance.now();
    for (const report of reports) {
      rmSync(join(this.options.logDir, report.log), { force: true });
      this.markCommitted(report);
      const stage = this.stages.get(genKey(report));
      this.stages.delete(genKey(report));
      const see = this.generationObserver;
      if (stage && see) {
        see('open', (stage.cutAt - stage.firstAt) / 1000);
        see('write', (stage.reportedAt - stage.cutAt) / 1000);
        see('queue', (committing - stage.reportedAt) / 1000);
        see('commit', (committed - committing) / 1000);
      }
      if (stage && this.visibleObserver) for (const at of stage.answeredAt) this.visibleObserver((committed - at) / 1000);
    }
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

  /** Resolves true once the generation is committed, or false after the visibility timeout (when `timeout`). */
  private visible(g: GenerationId, timeout = true): Promise<boolean> {
    if (this.isCommitted(g)) return Promise.resolve(true);
    return new Promise((resolve) => {
      const timer = timeout ? setTimeout(() => resolve(false), this.options.visibleTimeoutMs) : null;
      const key = genKey(g);
      const list = this.waiters.get(key) ?? [];
      list.push(() => {
        if (timer) clearTimeout(timer);
        resolve(true);
      });
      this.waiters.set(key, list);
    });
  }

  /**
   * A worker thread ended (it crashed; Piscina starts another). No record goes to it any more; once
   * the appends to its files have settled, the files no commit covers are replayed by another
   * worker, after the commits it already reported.
   */
  private onWorkerGone(lane: Lane): void {
    lane.gone = true;
    this.lanes.delete(lane.workerId);
    for (const wake of lane.closes.values()) wake();
    if (this.closing) return;
    this.log.warn({ worker: lane.workerId }, 'a compute worker ended; replaying its ingest log');
    const open = lane.open;
    const settling = Promise.all([open.settled().then(() => open.log?.close()), ...lane.cutting.values()]);
    // The replay runs on a worker: it is queued once the pool has replaced this one (its greeting),
    // after the commits this one reported, without holding the other workers' commits meanwhile.
    const replaced = this.whenWorkers(this.lanes.size + 1);
    void Promise.all([settling, replaced]).then(() => {
      this.commits = this.commits.then(async () => {
        try {
          await this.recover(lane.workerId);
        } catch (err) {
          this.log.error({ err }, 'could not replay the ingest log of an ended worker; it will be replayed at the next start');
        }
        for (const [key, wakes] of this.waiters) {
          if (!key.startsWith(`${lane.workerId}:`)) continue;
          for (const wake of wakes) wake();
          this.waiters.delete(key);
          this.uncommitted.delete(key);
        }
      });
    });
  }
}

function overloaded(message: string): ApiError {
  return new ApiError('overloaded', message, { retry_after_seconds: RETRY_AFTER_SECONDS }, { 'Retry-After': String(RETRY_AFTER_SECONDS) });
}

/**
 * A buffer that may be moved to another thread: the body itself when it owns its memory, else a
 * copy (a small Buffer can be a slice of Node's shared pool, which must never be detached).
 */
function ownedBuffer(body: Uint8Array): Uint8Array {
  return body.byteOffset === 0 && body.byteLength === body.buffer.byteLength && !(body.buffer instanceof SharedArrayBuffer) ? body : new Uint8Array(body);
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
