/**
 * The main thread's side of ingestion, and the way to an answer (docs/architecture.md, "Ingestion"):
 *
 *   body → decompress (libuv pool) → check and read row keys (protobuf: here, protoCheck.ts, no
 *   decoding; JSON: a compute thread's scan; agent batches: given, by the compute thread that
 *   prepared them) → admission (dedupe, the per-trace bound, plan quotas) → append to a compute
 *   thread's ingest log file → fdatasync (its own thread, shared by a group of requests) → answer;
 *   then the record goes to that thread, which decodes and maps it into its next segment. A body a
 *   compute thread decoded before the answer is held there (scan.ts): its record goes to that
 *   thread's log and lane, which maps what it holds instead of decoding the body again.
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
 * messages per request. Its parts: lanes.ts (a worker's generations and their cuts),
 * quotaLedger.ts, commitProgress.ts (what is committed, who waits, the backlog's bytes),
 * generationTimes.ts (for the metrics), logReplay.ts, logTriage.ts (a generation the store refuses).
 */
import { mkdirSync } from 'node:fs';
import { rename, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { COMMITTED_LOGS } from '../store/layout.js';
import type { MessagePort } from 'node:worker_threads';
import type { Logger } from 'pino';
import { ApiError, overloaded } from '../core/errors.js';
import { AdmissionIndex, ID_WORDS } from '../core/ingest/admission.js';
import { rowKeys, type RowKeys } from '../core/otlp/map.js';
import type { Plan, QuotaRefusal } from '../core/plans.js';
import type { ComputeClient } from './computeClient.js';
import type { ComputeMessage } from './ingestMessages.js';
import type { StoreClient } from '../store/storeClient.js';
import type { Scope } from '../store/admin/meta.js';
import { checkProtobufRequest, decompressAsync } from './decode.js';
import { IngestLogFile } from './ingestLog.js';
import { QuotaLedger } from './quotaLedger.js';
import type { LogHeader } from './logFormat.js';
import type { SyncFn } from './logSync.js';
import { estimateRowBytes } from './rowBytes.js';
import { crashPoint, DISCARD_AFTER_MAP } from '../testHooks.js';
import { Lane, type FlushPolicy } from './lanes.js';
import { replayLogs, type Replayed } from './logReplay.js';
import { triageLog, type TriageDeps } from './logTriage.js';
import { isStoreRefusal } from '../store/refusals.js';
import type { GenerationId, GenerationReport } from '../store/spans/generation.js';
import type { PrepareInput } from './prepare.js';
import type { HeldRef, RowsHeld } from './scan.js';
import { CommitProgress } from './commitProgress.js';
import { GenerationTimes } from './generationTimes.js';

/** An ingestion request's way to its answer: check (and decompress), admission, the log's append and fdatasync. */
export type IngestPhase = 'check' | 'admission' | 'log_sync';

export interface IngestRequest extends PrepareInput {
  /** The tenant's plan when it limits spans or storage. */
  plan: Plan | null;
  /** Span ids the store holds already (an agent session synced again): dropped as duplicates. */
  knownSpanIds?: string[];
  /** The row keys read already by the compute worker that prepared the body (an agents batch), and what it holds of it. */
  scanned?: RowsHeld;
  /**
   * The blobs of an agents batch that the store lacks: a request with such blobs gets a record (and
   * counts their bytes against the storage cap) even when it keeps no row.
   */
  newBlobs?: { count: number; bytes: number };
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

export interface CoordinatorOptions {
  logDir: string;
  /** Where records the store refuses are set aside (logTriage.ts). */
  quarantineDir: string;
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
  /** Compute workers in the pool (a worker that ends is replaced to keep this many). */
  workers: number;
}

const COMMIT_RETRY_MS = 1000;
/** The first wait before an ended worker's log is replayed again; it doubles up to the most. */
const REPLAY_RETRY_MS = 500;
const REPLAY_RETRY_MAX_MS = 30_000;
/** How far back `start` remembers committed spans. */
const RECENT_MS = 10 * 60_000;

export class IngestCoordinator {
  private readonly lanes = new Map<string, Lane>();
  private nextLane = 0;
  private readonly admission: AdmissionIndex;
  private readonly quotas: QuotaLedger;
  private readonly progress = new CommitProgress();
  /** Request bytes being checked, admitted or synced. */
  private inFlightBytes = 0;
  private commits: Promise<void> = Promise.resolve();
  private closing = false;
  private nextClose = 1;
  private readonly greeted: { count: number; wake: () => void }[] = [];
  /** Cuts generations past their age; runs only while a lane's open generation holds rows (`watchAges`). */
  private ageTimer: NodeJS.Timeout | null = null;
  private readonly ageCheckMs: number;

  constructor(
    private readonly store: StoreClient,
    private readonly compute: ComputeClient,
    private readonly options: CoordinatorOptions,
    private readonly log: Logger,
  ) {
    this.admission = new AdmissionIndex(options.maxSpansPerTrace, options.dedupeSpans);
    this.quotas = new QuotaLedger((tenantId) => store.run('tenantUsage', { tenantId }));
    this.ageCheckMs = Math.max(5, Math.min(50, options.flush.maxAgeMs / 4));
    mkdirSync(join(options.logDir, COMMITTED_LOGS), { recursive: true });
  }

  /** Called with each compute thread's greeting: its id and its end of the port. */
  attach(workerId: string, port: MessagePort): void {
    const lane = new Lane(
      workerId,
      port,
      this.options.flush,
      (gen) => this.times.cut({ workerId, seq: gen.seq }, gen),
      // Every append to it failed (each request was answered 5xx): if it stays, the next start replays it.
      (name) =>
        this.removeLog(
          name,
          'could not delete the ingest log file of a generation whose appends all failed; the next start will replay it',
        ),
    );
    this.lanes.set(workerId, lane);
    port.on('message', (m: ComputeMessage) => this.onMessage(workerId, lane, m));
    port.on('close', () => this.onWorkerGone(lane));
    port.unref();
    for (const g of this.greeted.filter((g) => this.lanes.size >= g.count)) {
      this.greeted.splice(this.greeted.indexOf(g), 1);
      g.wake();
    }
  }

  /**
   * Resolves once `count` compute threads have greeted, i.e. opened their DuckDB. The server listens
   * only then: a worker terminated while it is still opening DuckDB (a stop soon after the start)
   * aborts the whole process (N-API cannot throw into a thread being torn down).
   */
  whenWorkers(count: number): Promise<void> {
    if (this.lanes.size >= count) return Promise.resolve();
    return new Promise((wake) => this.greeted.push({ count, wake }));
  }

  /** Spans by what became of them, since the start (the operations metrics read them). */
  readonly counts = {
    admitted: 0,
    duplicates: 0,
    overBound: 0,
    invalid: 0,
    quotaRefused: 0,
    replayFailures: 0,
    setAside: 0,
  };

  /** Bytes accepted but not yet in committed segments (with requests in flight). */
  get backlogBytes(): number {
    return this.inFlightBytes + this.progress.pendingBytes;
  }

  /** Told where each request's time went before its answer (seconds by phase), for the operations metrics. */
  phaseObserver: ((phase: IngestPhase, seconds: number) => void) | null = null;
  /** Where generations' time goes until readable (its observers are the operations metrics'). */
  readonly times = new GenerationTimes();

  /**
   * Takes one request: refused with 503 before any work when the backlog is over its bound;
   * answered once its record is durable or, with `waitVisible`, once its spans can be read (or the
   * wait times out; they are durable either way).
   */
  async ingest(input: IngestRequest, waitVisible: boolean): Promise<IngestOutcome> {
    const claim: HeldClaim = { held: input.scanned?.held ?? null };
    try {
      return await this.ingestClaimed(input, waitVisible, claim);
    } finally {
      // No record took it: the request was refused, or failed before its append.
      if (claim.held) this.release(claim.held);
    }
  }

  private async ingestClaimed(input: IngestRequest, waitVisible: boolean, claim: HeldClaim): Promise<IngestOutcome> {
    const started = performance.now();
    const requestBytes = input.body.byteLength;
    if (this.backlogBytes + requestBytes > this.options.maxBacklogBytes)
      throw overloaded('Too much ingested data is waiting to be written; retry shortly');
    if (input.plan) await this.quotas.load(input.scope.tenantId);
    this.inFlightBytes += requestBytes;
    let record: { gen: LoggedRecord; kept: number } | null;
    let outcome: IngestOutcome;
    try {
      const checking = performance.now();
      const { keys, body } = await this.check(input, claim);
      const checked = performance.now();
      if (DISCARD_AFTER_MAP) return this.outcome({ rejected: keys.rejected, errors: keys.errors }, started);
      const admitted = this.admit(input, keys, body.byteLength);
      const admittedAt = performance.now();
      outcome = this.outcome(admitted, started);
      if (!admitted.logged && !admitted.refused) this.admission.settle(admitted.ticket, false);
      record = admitted.logged
        ? { gen: await this.append(input, admitted, body, waitVisible, claim), kept: admitted.kept }
        : null;
      if (record) outcome.accepted = record.kept;
      outcome.ackMs = performance.now() - started;
      this.observe(checked - checking, admittedAt - checked, performance.now() - admittedAt);
    } finally {
      this.inFlightBytes -= requestBytes;
    }
    this.count(outcome);
    if (!record) return outcome;
    const g = record.gen;
    this.progress.addPending(g, requestBytes);
    const waitStarted = performance.now();
    outcome.visible = waitVisible
      ? await this.progress.whenCommitted(g, this.options.visibleTimeoutMs, g.record)
      : this.progress.isCommitted(g);
    outcome.visibleWaitMs = performance.now() - waitStarted;
    return outcome;
  }

  /**
   * The body as the log keeps it (decompressed) and its row keys. A protobuf body is checked here
   * (no decoding); JSON is parsed by a compute thread, which holds what it decoded (`claim`); an
   * agents batch comes with its keys.
   */
  private async check(input: IngestRequest, claim: HeldClaim): Promise<{ keys: RowKeys; body: Uint8Array }> {
    if (input.scanned) return { keys: input.scanned.keys, body: input.body };
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
    claim.held = scanned.held;
    return { keys: scanned.keys, body: scanned.decompressed ?? input.body };
  }

  /** Tells a compute worker that a body it holds will get no record. */
  private release(held: HeldRef): void {
    this.lanes.get(held.workerId)?.send({ t: 'release', id: held.id });
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
    // The storage estimate of the kept rows: their share of the body (the main thread maps nothing);
    // without rows, the new blobs the record stores.
    const newBlobs = input.newBlobs ?? { count: 0, bytes: 0 };
    const bytes = kept > 0 ? estimateRowBytes(Math.round((bodyBytes * kept) / rows), kept) : newBlobs.bytes;
    const stores = kept > 0 || newBlobs.count > 0;
    const refused =
      input.plan && stores ? this.quotas.reserve(a.ticket, input.scope.tenantId, input.plan, kept, bytes) : null;
    const errors = [...keys.errors];
    if (a.overBound > 0)
      errors.push(`${a.overBound} span(s) over the bound of ${input.maxSpansPerTrace} spans per trace`);
    if (refused) this.admission.settle(a.ticket, false);
    return {
      rejected: keys.rejected + a.overBound,
      errors,
      duplicates,
      overBound: a.overBound,
      refused,
      drop,
      kept: refused ? 0 : kept,
      /** Whether the request gets a record: it keeps rows, or blobs the store lacks. */
      logged: stores && !refused,
      overQuota: refused ? kept : 0,
      bytes,
      ticket: a.ticket,
    };
  }

  private outcome(
    o: {
      rejected: number;
      errors: string[];
      duplicates?: number;
      overBound?: number;
      refused?: QuotaRefusal | null;
      overQuota?: number;
    },
    started: number,
  ): IngestOutcome {
    return {
      rejected: o.rejected,
      errors: o.errors,
      duplicates: o.duplicates ?? 0,
      overBound: o.overBound ?? 0,
      refused: o.refused ?? null,
      accepted: 0,
      overQuota: o.overQuota ?? 0,
      visible: true,
      ackMs: performance.now() - started,
      visibleWaitMs: 0,
    };
  }

  /**
   * Appends the record to a worker's open generation and waits for it to be durable; then hands it
   * to the worker — the one that holds the decoded body, while it lives. Admission's ticket is
   * settled either way, and quota given back on failure.
   */
  private async append(
    input: IngestRequest,
    a: ReturnType<IngestCoordinator['admit']>,
    body: Uint8Array,
    waitVisible: boolean,
    claim: HeldClaim,
  ): Promise<LoggedRecord> {
    const lane = (claim.held && this.lanes.get(claim.held.workerId)) || this.pickLane();
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
    let record: number;
    try {
      if (!gen.log) {
        gen.firstAt = performance.now();
        gen.log = new IngestLogFile(join(this.options.logDir, gen.name), this.options.sync);
      }
      record = await gen.log.append(header, body);
      crashPoint('after-log-sync');
    } catch (e) {
      gen.end();
      this.fail(a.ticket);
      throw e;
    }
    this.admission.settle(a.ticket, true);
    this.quotas.keep(a.ticket);
    if (this.times.wantsAnswers) gen.answeredAt.push(performance.now());
    gen.rows += a.kept;
    gen.records++;
    gen.bodyBytes += body.byteLength;
    const own = ownedBuffer(body);
    // A held body's worker is gone when another lane was picked: nothing is held any more.
    const held = claim.held?.workerId === lane.workerId ? claim.held.id : undefined;
    claim.held = null;
    lane.send({ t: 'record', seq: gen.seq, header, body: own, ...(held === undefined ? {} : { held }) }, [
      own.buffer as ArrayBuffer,
    ]);
    gen.end();
    lane.appended(gen, waitVisible);
    this.watchAges();
    return { workerId: lane.workerId, seq: gen.seq, record };
  }

  /** A request that will not be answered 2xx: its admission and its quota are taken back. */
  private fail(ticket: number): void {
    this.admission.settle(ticket, false);
    this.quotas.release(ticket);
  }

  private pickLane(): Lane | null {
    const lanes = [...this.lanes.values()];
    if (lanes.length === 0) return null;
    return lanes[this.nextLane++ % lanes.length]!;
  }

  /**
   * Checks the open generations' ages every `ageCheckMs` while one holds rows: run all the time, the
   * check (its async hooks and garbage included) cost an idle server's HTTP thread CPU for nothing
   * (native-bench/RESULTS.md, "Figures behind the code").
   */
  private watchAges(): void {
    if (this.ageTimer || this.closing) return;
    this.ageTimer = setInterval(() => this.cutOld(), this.ageCheckMs);
    this.ageTimer.unref();
  }

  private cutOld(): void {
    const now = Date.now();
    let holding = false;
    for (const lane of this.lanes.values()) {
      lane.cutIfOld(now);
      if (lane.open.records > 0) holding = true;
    }
    if (!holding) this.stopWatchingAges();
  }

  private stopWatchingAges(): void {
    if (this.ageTimer) clearInterval(this.ageTimer);
    this.ageTimer = null;
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
  async start(): Promise<Replayed & { remembered: number }> {
    let remembered = 0;
    const recent = await this.store.run('recentSpanKeys', {
      sinceMs: Date.now() - RECENT_MS,
      limit: Math.floor(this.options.dedupeSpans / 2),
    });
    for (const k of recent) {
      this.admission.rememberWords(scopeKey(k.scope), k.words);
      remembered += k.words.length / ID_WORDS;
    }
    return { ...(await this.recover()), remembered };
  }

  /**
   * Replays the log files a previous run left (before the server listens), or those of one worker
   * that ended (logReplay.ts).
   */
  async recover(workerId?: string): Promise<Replayed> {
    const replayed = await replayLogs(this.triageDeps(), this.options.logDir, workerId);
    this.counts.setAside += replayed.setAside;
    return replayed;
  }

  private triageDeps(): TriageDeps {
    const remember = (scope: Scope, traceIds: string[], spanIds: string[]) =>
      this.admission.remember(scopeKey(scope), traceIds, spanIds);
    return {
      store: this.store,
      compute: this.compute,
      log: this.log,
      remember,
      quarantineDir: this.options.quarantineDir,
    };
  }

  /**
   * Shutdown: every open generation is cut and flushed, every worker writes what it holds and
   * closes its DuckDB; resolves once what could be written is committed (a generation that could
   * not be written stays in its log file, replayed at the next start). The server takes no more
   * requests before this.
   */
  async drain(): Promise<void> {
    this.closing = true;
    this.stopWatchingAges();
    const lanes = [...this.lanes.values()];
    // Generations cut before, still settling, are flushed by their own cut.
    await Promise.all(lanes.flatMap((lane) => [lane.cut(), ...lane.cutting.values()]));
    await Promise.all(
      lanes.map(
        (lane) =>
          new Promise<void>((resolve) => {
            if (lane.gone) return resolve();
            const id = this.nextClose++;
            lane.closes.set(id, resolve);
            lane.send({ t: 'close', id });
          }),
      ),
    );
    await this.commits;
    await Promise.all(this.removals);
  }

  private onMessage(workerId: string, lane: Lane, m: ComputeMessage): void {
    switch (m.t) {
      case 'generation':
        lane.reported();
        if (m.report.skippedRecords > 0)
          this.log.error(
            { worker: workerId, log: m.report.log, records: m.report.skippedRecords },
            'ingest log records that could not be decoded were skipped',
          );
        this.enqueueCommit(m.report);
        return;
      case 'closed':
        lane.closes.get(m.id)?.();
        lane.closes.delete(m.id);
        return;
      case 'log':
        this.log[m.level]({ worker: workerId, err: m.err, ...m.fields }, m.msg);
    }
  }

  private enqueueCommit(report: GenerationReport): void {
    this.times.reported(report, performance.now());
    this.waitingReports.push(report);
    if (this.waitingReports.length === 1) this.commits = this.commits.then(() => this.commitWaiting());
  }

  /**
   * Deletes a log file (a committed generation's, or one whose appends all failed) off this thread
   * and never throwing; shutdown waits for it, and a failure is logged with `failed`. A synchronous
   * unlink here blocked the event loop under load (native-bench/RESULTS.md, "Figures behind the
   * code"), and a throw would have rejected the chain of commits, stopping every later one.
   */
  private removeLog(log: string, failed: string): void {
    this.settleLog(rm(join(this.options.logDir, log), { force: true }), log, failed);
  }

  /**
   * Moves a committed generation's log file aside, where it waits until a checkpoint has folded the
   * commit into the database file (store/spans/checkpointedLogs.ts): a WAL cut short before then
   * loses the commit, and the next start replays the file. If the move fails, or the process ends
   * first, the next start finds the file where it was: its name is committed, and it is deleted.
   */
  private retireLog(log: string): void {
    const aside = join(this.options.logDir, COMMITTED_LOGS, log);
    this.settleLog(
      rename(join(this.options.logDir, log), aside),
      log,
      'could not move a committed ingest log file aside',
    );
  }

  /** Tracks a deletion or move of a log file, so shutdown waits for it; a failure is logged with `failed`. */
  private settleLog(work: Promise<void>, log: string, failed: string): void {
    const removal: Promise<void> = work
      .catch((err: unknown) => this.log.warn({ err, log }, failed))
      .finally(() => this.removals.delete(removal));
    this.removals.add(removal);
  }

  /** Log files being deleted or moved aside. */
  private readonly removals = new Set<Promise<void>>();

  /** Reports waiting for the commit before them to end: the next commit takes them all. */
  private waitingReports: GenerationReport[] = [];

  /**
   * Commits the generations waiting; then their log files can go. A commit that fails is tried
   * again until the store takes it (a full disk, say, passes), unless the store refuses a value in
   * the data (store/refusals.ts), which it would do at every try, holding back every commit after
   * it: then each generation is committed alone, and the one refused is triaged (logTriage.ts).
   */
  private async commitWaiting(): Promise<void> {
    const reports = this.waitingReports;
    this.waitingReports = [];
    const committing = performance.now();
    const refusal = await this.commitRetrying(reports);
    if (!refusal) return this.committed(reports, committing);
    for (const report of reports) {
      const alone = reports.length === 1 ? refusal : await this.commitRetrying([report]);
      if (alone) await this.triage(report, alone);
      else this.committed([report], committing);
    }
  }

  /** Commits, retrying until the store takes the generations; null then, else the store's refusal of their data. */
  private async commitRetrying(reports: GenerationReport[]): Promise<Error | null> {
    for (let attempt = 1; ; attempt++) {
      try {
        await this.store.run('commitGenerations', { reports });
        crashPoint('after-generation-commit');
        return null;
      } catch (err) {
        if (isStoreRefusal(err)) return err as Error;
        this.log.warn(
          { err, logs: reports.map((r) => r.log), attempt },
          'could not commit flushed generations; retrying',
        );
        await new Promise((r) => setTimeout(r, COMMIT_RETRY_MS));
      }
    }
  }

  private committed(reports: GenerationReport[], committing: number): void {
    const committed = performance.now();
    for (const report of reports) {
      this.retireLog(report.log);
      this.progress.markCommitted(report);
      this.times.committed(report, committing, committed);
    }
  }

  /**
   * A generation the store refused: its records committed one by one, those refused set aside
   * (logTriage.ts, which deletes the log file). Tried again while the store or a worker fails.
   */
  private async triage(report: GenerationReport, refusal: Error): Promise<void> {
    this.log.error(
      { err: refusal, log: report.log },
      'the store refused a generation for a value in its data; committing its requests one by one to set aside those it refuses',
    );
    const committing = performance.now();
    for (let attempt = 1; ; attempt++) {
      try {
        const triaged = await triageLog(this.triageDeps(), this.options.logDir, report.log);
        this.counts.setAside += triaged.setAside.length;
        this.progress.markCommitted(report, new Set(triaged.setAside));
        this.times.committed(report, committing, performance.now());
        return;
      } catch (err) {
        this.log.warn({ err, log: report.log, attempt }, 'could not triage a refused generation; retrying');
        await new Promise((r) => setTimeout(r, COMMIT_RETRY_MS));
      }
    }
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
    // The pool's size, not one more than the lanes left: the replacement may greet before this
    // worker's port closes, and then the lanes are already whole.
    const replaced = this.whenWorkers(this.options.workers);
    void Promise.all([settling, replaced]).then(() => this.replayEnded(lane.workerId, 1));
  }

  /**
   * Replays an ended worker's log files after the commits before. A replay that fails leaves its
   * files, and is tried again a while later rather than at the next start: until then the spans
   * acknowledged are durable but not readable, and their bytes stay in the backlog (back-pressure
   * binds, as it should, if it never succeeds). At shutdown the next start replays them.
   */
  private replayEnded(workerId: string, attempt: number): void {
    this.commits = this.commits.then(async () => {
      if (this.closing) return;
      try {
        await this.recover(workerId);
      } catch (err) {
        this.counts.replayFailures++;
        const retryInMs = Math.min(REPLAY_RETRY_MAX_MS, REPLAY_RETRY_MS * 2 ** (attempt - 1));
        this.log.error(
          { err, attempt, retry_in_ms: retryInMs },
          'could not replay the ingest log of an ended worker; retrying',
        );
        setTimeout(() => this.replayEnded(workerId, attempt + 1), retryInMs).unref();
        return;
      }
      this.progress.releaseWorker(workerId);
      this.times.forgetWorker(workerId);
    });
  }
}

/** What a compute worker holds of a request's body until the request's record takes it (null then). */
interface HeldClaim {
  held: HeldRef | null;
}

/** A request's record: its generation, and its place in the generation's log file. */
type LoggedRecord = GenerationId & { record: number };

/**
 * A buffer that may be moved to another thread: the body itself when it owns its memory, else a
 * copy (a small Buffer can be a slice of Node's shared pool, which must never be detached).
 */
function ownedBuffer(body: Uint8Array): Uint8Array {
  return body.byteOffset === 0 &&
    body.byteLength === body.buffer.byteLength &&
    !(body.buffer instanceof SharedArrayBuffer)
    ? body
    : new Uint8Array(body);
}

function scopeKey(s: Scope): string {
  return `${s.tenantId}/${s.appId}/${s.environmentId}`;
}
