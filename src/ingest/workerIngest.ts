/**
 * The ingest path inside one compute worker (ARCHITECTURE §2–3):
 *
 *   body → decompress → decode → map → rows → admission (main thread) → ingest log (fdatasync,
 *   shared by a group of requests) → answer; rows wait in memory → Parquet segments → the main
 *   thread has the store commit them to the manifest → the log file is deleted.
 *
 * Rows and log records are kept in generations: a generation is one log file and the rows of
 * exactly the records in it. A generation is flushed (by size, by age, or because a request asked to
 * wait until its spans are visible) into one segment per environment and day, and reported; once
 * the store has committed it, its log file goes. A crash at any point leaves either the log file
 * (replayed at start) or committed segments (whose log file the store knows to be covered).
 */
import { randomUUID } from 'node:crypto';
import { readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import type { Plan, QuotaRefusal } from '../core/plans.js';
import type { SpanRecord } from '../core/span.js';
import { mapExportRequest, type MapOptions } from '../core/otlp/map.js';
import type { Scope } from '../store/admin/meta.js';
import { COLUMN_INDEX, type SpanRow } from '../store/spans/columns.js';
import type { SegmentStore } from '../store/spans/segmentStore.js';
import type { BufferedCell, SegmentBuffer } from '../store/spans/segmentBuffer.js';
import { crashPoint, DISCARD_AFTER_MAP } from './testHooks.js';
import { mapSession } from '../core/agents/map.js';
import { isTextMedia } from '../core/agents/scrub.js';
import { decodeAgentBatch } from './agentsBatch.js';
import { decodeRequest, decompress, type OtlpEncoding } from './decode.js';
import { IngestLogFile } from './ingestLog.js';
import { decodeLog, type LogHeader } from './logFormat.js';
import { rowBytes } from './rowBytes.js';
import { toRows, type BlobRecord, type ResourceRecord } from './rows.js';
import { SummaryParts, type PartRow } from './summaryParts.js';

/** OTLP bodies, or a coding-agent batch already checked, clamped and scrubbed (ingest/agentsBatch.ts). */
export type IngestEncoding = OtlpEncoding | 'agents';

export interface IngestInput {
  body: Uint8Array;
  encoding: IngestEncoding;
  contentEncoding: string | undefined;
  maxDecompressedBytes: number;
  maxSpansPerTrace: number;
  scope: Scope;
  /** The tenant's plan when it limits spans or storage. */
  plan: Plan | null;
  /** Flush soon: the caller will wait until the spans are visible. */
  soon: boolean;
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
  /** Spans kept: durable in the ingest log. */
  accepted: number;
  /** Spans refused because the request was over the plan's quota (then `accepted` is 0). */
  overQuota: number;
  /** Where the accepted rows went; null when nothing was kept. */
  generation: GenerationId | null;
  /** Where the request's time went in the worker (the operations metrics' ingest phases). */
  timings: IngestTimings;
}

/**
 * The worker's part of a request, in milliseconds. `startedAt` and `endedAt` are wall-clock
 * (`performance.timeOrigin + performance.now()`), comparable with the main thread's clock.
 */
export interface IngestTimings {
  startedAt: number;
  decodeMapMs: number;
  /** The round trip to the main thread's admission index. */
  admissionMs: number;
  /** The log append and the fdatasync covering it (0 when nothing was kept). */
  logSyncMs: number;
  endedAt: number;
}

const clock = () => performance.timeOrigin + performance.now();

export interface GenerationId {
  workerId: string;
  seq: number;
}

/** What admission needs to know of a request. */
export interface AdmitRequest {
  scope: Scope;
  /** Distinct trace ids; `traceOf[i]` is the index of row i's trace among them. */
  traceIds: string[];
  traceOf: number[];
  spanIds: string[];
  plan: Plan | null;
  /** Estimated bytes each row adds to storage (plans with a storage cap). */
  bytes: number[];
  /** Bytes of the request's out-of-line fields (stored once, whatever admission decides on rows). */
  blobBytes: number;
}

export interface AdmitAnswer {
  drop: number[];
  duplicates: number;
  overBound: number;
  refused: QuotaRefusal | null;
  ticket: number;
}

export interface SegmentReport {
  key: string;
  tenantId: string;
  appId: string;
  environmentId: string;
  date: string;
  rows: number;
  bytes: number;
  minStartNs: bigint;
  maxStartNs: bigint;
}

/** A flushed generation, for the store to commit in one transaction. */
export interface GenerationReport extends GenerationId {
  /** The log file this generation's rows came from (its name in the log directory). */
  log: string;
  segments: SegmentReport[];
  /** Trace summary parts of the generation's spans, one per trace. */
  parts: PartRow[];
  resources: (ResourceRecord & { tenantId: string; appId: string })[];
  blobs: (BlobRecord & { tenantId: string; appId: string; environmentId: string })[];
  usage: { tenantId: string; spans: number; bytes: number }[];
  /** Request body bytes in the generation. */
  bodyBytes: number;
}

export interface Admitter {
  admit(req: AdmitRequest): Promise<AdmitAnswer>;
  settle(ticket: number, durable: boolean): void;
  generationReady(report: GenerationReport): void;
}

export interface FlushPolicy {
  maxRows: number;
  maxBodyBytes: number;
  maxAgeMs: number;
}

interface Cell {
  scope: Scope;
  date: string;
  rows: BufferedCell;
}

class Generation {
  /** Cells by environment and day; a cell's table is made once, by whichever request needs it first. */
  readonly cells = new Map<string, Promise<Cell>>();
  readonly blobs = new Map<string, BlobRecord & { tenantId: string; appId: string; environmentId: string }>();
  readonly resources = new Map<string, ResourceRecord & { tenantId: string; appId: string }>();
  readonly parts = new SummaryParts();
  readonly usage = new Map<string, { spans: number; bytes: number }>();
  /** Rows in the buffer. */
  rows = 0;
  /** Rows of durable records (in the buffer, or about to be). */
  accepted = 0;
  bodyBytes = 0;
  /** Requests between their log append and adding their rows. */
  pending = 0;
  /** Set when rows of a durable record could not be buffered: the log file is then the source. */
  broken: unknown = undefined;
  private whenSettled: (() => void) | null = null;
  log: IngestLogFile | null = null;
  readonly openedAt = Date.now();

  constructor(
    readonly seq: number,
    private readonly buffer: SegmentBuffer,
  ) {}

  async add(scope: Scope, rows: SpanRow[], blobs: BlobRecord[], resources: ResourceRecord[], bytes: number): Promise<void> {
    this.parts.add(rows);
    const byDay = new Map<string, SpanRow[]>();
    for (const row of rows) {
      const date = dayOf(row[START] as bigint);
      const list = byDay.get(date);
      if (list) list.push(row);
      else byDay.set(date, [row]);
    }
    for (const [date, dayRows] of byDay) {
      const key = `${scope.tenantId}/${scope.appId}/${scope.environmentId}/${date}`;
      let cell = this.cells.get(key);
      if (!cell) this.cells.set(key, (cell = this.buffer.cell().then((buffered) => ({ scope, date, rows: buffered }))));
      this.buffer.append((await cell).rows, dayRows);
    }
    for (const b of blobs) this.blobs.set(`${scope.tenantId}/${scope.appId}/${scope.environmentId}/${b.sha256}`, { ...b, tenantId: scope.tenantId, appId: scope.appId, environmentId: scope.environmentId });
    for (const r of resources) this.resources.set(`${scope.tenantId}/${scope.appId}/${r.id}`, { ...r, tenantId: scope.tenantId, appId: scope.appId });
    const u = this.usage.get(scope.tenantId) ?? { spans: 0, bytes: 0 };
    u.spans += rows.length;
    u.bytes += bytes;
    this.usage.set(scope.tenantId, u);
    this.rows += rows.length;
  }

  settled(): Promise<void> {
    return this.pending === 0 ? Promise.resolve() : new Promise((resolve) => (this.whenSettled = resolve));
  }

  done(): void {
    if (--this.pending === 0) this.whenSettled?.();
  }
}

const START = COLUMN_INDEX.start_ns;
const TRACE = COLUMN_INDEX.trace_id;
const SPAN = COLUMN_INDEX.span_id;

export class WorkerIngest {
  readonly workerId = randomUUID();
  private current: Generation;
  private nextSeq = 1;
  private flushing: Promise<void> = Promise.resolve();
  /** Generations whose segments could not be written yet (e.g. a full disk); retried. */
  private failed: Generation[] = [];
  private timer: NodeJS.Timeout | null = null;
  private soon = false;

  constructor(
    private readonly logDir: string,
    private readonly segments: SegmentStore,
    private readonly buffer: SegmentBuffer,
    private readonly admitter: Admitter,
    private readonly policy: FlushPolicy,
    private readonly costOf: MapOptions['costOf'],
    private readonly onError: (e: unknown) => void = () => undefined,
  ) {
    this.current = new Generation(this.nextSeq++, buffer);
  }

  /** Checks the age of the open generation every few milliseconds. */
  start(): void {
    this.timer ??= setInterval(() => this.tick(), Math.max(5, Math.min(50, this.policy.maxAgeMs / 4)));
    this.timer.unref();
  }

  stop(): void {
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
  }

  async ingest(input: IngestInput): Promise<IngestOutcome> {
    const startedAt = clock();
    const { rows, blobs, resources, rejected, errors } = prepare(input, this.costOf);
    const timings: IngestTimings = { startedAt, decodeMapMs: clock() - startedAt, admissionMs: 0, logSyncMs: 0, endedAt: 0 };
    const ended = (o: IngestOutcome): IngestOutcome => ((timings.endedAt = clock()), o);
    if (DISCARD_AFTER_MAP) return ended({ rejected, errors, duplicates: 0, overBound: 0, refused: null, accepted: 0, overQuota: 0, generation: null, timings });
    const bytes = rows.map(rowBytes);
    // Rows the store holds already are not put to admission; they are dropped like its duplicates.
    const known = input.knownSpanIds && input.knownSpanIds.length > 0 ? new Set(input.knownSpanIds) : null;
    const candidates = known ? rows.flatMap((r, i) => (known.has(r[SPAN] as string) ? [] : [i])) : null;
    const admitted = candidates ? candidates.map((i) => rows[i]!) : rows;
    const traceIndex = new Map<string, number>();
    const traceOf = admitted.map((r) => {
      const id = r[TRACE] as string;
      let at = traceIndex.get(id);
      if (at === undefined) traceIndex.set(id, (at = traceIndex.size));
      return at;
    });
    const admitting = clock();
    const answer = await this.admitter.admit({
      scope: input.scope,
      traceIds: [...traceIndex.keys()],
      traceOf,
      spanIds: admitted.map((r) => r[SPAN] as string),
      plan: input.plan,
      bytes: candidates ? candidates.map((i) => bytes[i]!) : bytes,
      blobBytes: blobs.reduce((n, b) => n + b.data.byteLength, 0),
    });
    if (candidates) {
      const kept = new Set(candidates);
      const knownRows = rows.flatMap((_, i) => (kept.has(i) ? [] : [i]));
      answer.drop = [...knownRows, ...answer.drop.map((i) => candidates[i]!)].sort((a, b) => a - b);
      answer.duplicates += knownRows.length;
    }
    timings.admissionMs = clock() - admitting;
    const outcome: IngestOutcome = { rejected: rejected + answer.overBound, errors, duplicates: answer.duplicates, overBound: answer.overBound, refused: answer.refused, accepted: 0, overQuota: 0, generation: null, timings };
    if (answer.overBound > 0) errors.push(`${answer.overBound} span(s) over the bound of ${input.maxSpansPerTrace} spans per trace`);
    const dropped = new Set(answer.drop);
    if (answer.refused) outcome.overQuota = rows.length - dropped.size;
    const kept = answer.refused ? [] : rows.filter((_, i) => !dropped.has(i));
    if (kept.length === 0) {
      this.admitter.settle(answer.ticket, false);
      return ended(outcome);
    }
    const keptBytes = bytes.reduce((n, b, i) => (dropped.has(i) ? n : n + b), 0) + blobs.reduce((n, b) => n + b.data.byteLength, 0);
    const gen = this.current;
    gen.pending++;
    try {
      gen.log ??= new IngestLogFile(join(this.logDir, logName(this.workerId, gen.seq)));
      const header: LogHeader = {
        tenantId: input.scope.tenantId,
        appId: input.scope.appId,
        environmentId: input.scope.environmentId,
        encoding: input.encoding,
        contentEncoding: input.contentEncoding ?? null,
        maxSpansPerTrace: input.maxSpansPerTrace,
        drop: answer.drop,
        receivedAtMs: Date.now(),
      };
      gen.bodyBytes += input.body.byteLength;
      gen.accepted += kept.length;
      const logging = clock();
      await gen.log.append(header, input.body);
      timings.logSyncMs = clock() - logging;
      crashPoint('after-log-sync');
    } catch (e) {
      gen.accepted -= kept.length;
      gen.done();
      this.admitter.settle(answer.ticket, false);
      throw e;
    }
    this.admitter.settle(answer.ticket, true);
    // The record is durable: answer now, and move the rows into the segment buffer right after (the
    // generation is not written before they are in). Should that fail, the generation is written
    // from its log file instead.
    setImmediate(() => {
      gen
        .add(input.scope, kept, blobs, resources, keptBytes)
        .catch((e: unknown) => {
          gen.broken ??= e;
        })
        .finally(() => gen.done());
    });
    outcome.generation = { workerId: this.workerId, seq: gen.seq };
    outcome.accepted = kept.length;
    if (input.soon) this.soon = true;
    if (gen === this.current && (gen.accepted >= this.policy.maxRows || gen.bodyBytes >= this.policy.maxBodyBytes || input.soon)) this.flushSoon();
    return ended(outcome);
  }

  /** Flushes the open generation (and retries failed ones); resolves when they are reported. */
  flush(): Promise<void> {
    const gen = this.current;
    if (gen.accepted > 0 || gen.pending > 0) this.current = new Generation(this.nextSeq++, this.buffer);
    const retry = this.failed.splice(0);
    const work = [...retry, ...(gen === this.current ? [] : [gen])];
    this.flushing = this.flushing.then(async () => {
      for (const g of work) {
        try {
          await this.write(g);
        } catch (e) {
          this.failed.push(g);
          this.onError(e);
        }
      }
    });
    return this.flushing;
  }

  /**
   * Re-reads a log file left by a crash and writes its rows as segments, with the admission
   * decisions the records carry. The report names the file, so committing it retires the file.
   */
  async replay(path: string, name: string): Promise<{ report: GenerationReport | null; discardedBytes: number; keys: { scope: Scope; traceIds: string[]; spanIds: string[] }[] }> {
    const { records, discardedBytes } = decodeLog(readFileSync(path));
    const gen = new Generation(0, this.buffer);
    const keys: { scope: Scope; traceIds: string[]; spanIds: string[] }[] = [];
    for (const { header, body } of records) {
      const scope = { tenantId: header.tenantId, appId: header.appId, environmentId: header.environmentId };
      const { rows, blobs, resources } = prepare(
        { body, encoding: header.encoding, contentEncoding: header.contentEncoding ?? undefined, maxDecompressedBytes: Number.MAX_SAFE_INTEGER, maxSpansPerTrace: header.maxSpansPerTrace, scope, plan: null, soon: false },
        this.costOf,
      );
      const dropped = new Set(header.drop);
      const kept = rows.filter((_, i) => !dropped.has(i));
      gen.bodyBytes += body.byteLength;
      await gen.add(scope, kept, blobs, resources, kept.reduce((n, r) => n + rowBytes(r), 0) + blobs.reduce((n, b) => n + b.data.byteLength, 0));
      keys.push({ scope, traceIds: kept.map((r) => r[TRACE] as string), spanIds: kept.map((r) => r[SPAN] as string) });
    }
    const report = gen.rows > 0 ? await this.segmentsOf(gen, name) : null;
    return { report, discardedBytes, keys };
  }

  private tick(): void {
    const gen = this.current;
    if (this.failed.length > 0 || (gen.accepted > 0 && (this.soon || Date.now() - gen.openedAt >= this.policy.maxAgeMs))) this.flushSoon();
  }

  private flushSoon(): void {
    this.soon = false;
    void this.flush();
  }

  private async write(gen: Generation): Promise<void> {
    await gen.settled();
    gen.log?.close();
    const name = logName(this.workerId, gen.seq);
    if (gen.accepted === 0) {
      // Every request of it failed: nothing to keep, and its log holds nothing durable.
      if (gen.log) rmSync(gen.log.path, { force: true });
      return;
    }
    if (gen.broken !== undefined) {
      await this.dropCells(gen);
      this.onError(gen.broken);
      const { report } = await this.replay(join(this.logDir, name), name);
      if (report) this.admitter.generationReady(report);
      return;
    }
    try {
      this.admitter.generationReady(await this.segmentsOf(gen, name));
    } catch (e) {
      // Some cells may be written and freed already: a retry starts again from the log file.
      gen.broken = e;
      throw e;
    }
  }

  private async dropCells(gen: Generation): Promise<void> {
    for (const pending of gen.cells.values()) await this.buffer.drop((await pending).rows).catch(() => undefined);
  }

  private async segmentsOf(gen: Generation, log: string): Promise<GenerationReport> {
    const segments: SegmentReport[] = [];
    let n = 0;
    for (const pending of gen.cells.values()) {
      const cell = await pending;
      const temp = this.segments.tempPath();
      const written = await this.buffer.write(cell.rows, cell.scope, temp);
      const key = await this.segments.publish(temp, {
        tenantId: cell.scope.tenantId,
        appId: cell.scope.appId,
        date: cell.date,
        name: `${log.replace(/\.log$/, '')}-${n++}`,
      });
      crashPoint('after-segment-publish');
      segments.push({
        key,
        ...cell.scope,
        date: cell.date,
        rows: written.rows,
        bytes: this.segments.size(key),
        minStartNs: written.minStartNs,
        maxStartNs: written.maxStartNs,
      });
    }
    return {
      workerId: this.workerId,
      seq: gen.seq,
      log,
      segments,
      parts: gen.parts.rows(),
      resources: [...gen.resources.values()],
      blobs: [...gen.blobs.values()],
      usage: [...gen.usage].map(([tenantId, u]) => ({ tenantId, ...u })),
      bodyBytes: gen.bodyBytes,
    };
  }
}

/** Decode, map and build rows: the CPU work of a request, done once. */
export function prepare(input: IngestInput, costOf: MapOptions['costOf']): { rows: SpanRow[]; blobs: BlobRecord[]; resources: ResourceRecord[]; rejected: number; errors: string[] } {
  if (input.encoding === 'agents') return prepareAgents(input, costOf);
  const bytes = decompress(input.body, input.contentEncoding, input.maxDecompressedBytes);
  const request = decodeRequest(bytes, input.encoding);
  const mapped = mapExportRequest(request, { maxSpansPerTrace: input.maxSpansPerTrace, costOf });
  const { rows, blobs, resources } = toRows(input.scope, mapped.spans as SpanRecord[]);
  return { rows, blobs, resources, rejected: mapped.rejected, errors: mapped.errors };
}

/** A coding-agent batch (checked, clamped and scrubbed before it was logged) → rows and its blobs. */
function prepareAgents(input: IngestInput, costOf: MapOptions['costOf']): { rows: SpanRow[]; blobs: BlobRecord[]; resources: ResourceRecord[]; rejected: number; errors: string[] } {
  const batch = decodeAgentBatch(input.body);
  const blobTexts = new Map<string, string>();
  for (const b of batch.blobs) if (isTextMedia(b.mediaType)) blobTexts.set(b.sha256, Buffer.from(b.data).toString('utf8'));
  const spans = batch.sessions.flatMap((s) => mapSession(s, input.scope, { costOf, blobTexts }));
  const { rows, blobs, resources } = toRows(input.scope, spans);
  const all = new Map(batch.blobs.map((b) => [b.sha256, b]));
  for (const b of blobs) all.set(b.sha256, b);
  return { rows, blobs: [...all.values()], resources, rejected: 0, errors: [] };
}

/** Log files are named by worker and generation, so a crashed worker's files are recognisable. */
export function logName(workerId: string, seq: number): string {
  return `${workerId}-${String(seq).padStart(8, '0')}.log`;
}

/** UTC day of a time in nanoseconds. */
export function dayOf(ns: bigint): string {
  // Spans come in time order more often than not: the last day's range answers most calls.
  if (ns >= lastDay.from && ns < lastDay.to) return lastDay.name;
  const day = ns >= 0n ? ns / DAY_NS : (ns - DAY_NS + 1n) / DAY_NS;
  const ms = Number(day) * 86_400_000;
  const name = Number.isFinite(ms) && Math.abs(ms) < 8.64e15 ? new Date(ms).toISOString().slice(0, 10) : '1970-01-01';
  lastDay = { from: day * DAY_NS, to: (day + 1n) * DAY_NS, name };
  return name;
}

const DAY_NS = 86_400_000_000_000n;
let lastDay = { from: 0n, to: 0n, name: '' };
