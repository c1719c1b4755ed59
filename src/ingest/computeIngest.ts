/**
 * The ingest path inside one compute thread (docs/architecture.md, "Ingestion"), after the main thread has answered:
 *
 *   durable log record (from the coordinator) → decompress → decode → map → rows → the worker's
 *   in-memory DuckDB → (the coordinator cuts the generation) → Parquet segments → the main thread
 *   has the store commit them to the manifest → the log file is deleted.
 *
 * A generation is one log file, written by the coordinator, and the rows of exactly the records in
 * it: the coordinator sends each record once it is durable, then, when it cuts the generation, a
 * flush. The generation is written as one segment per environment and day, and reported; once the
 * store has committed it, its log file goes. A crash at any point leaves either the log file
 * (replayed at start) or committed segments (whose log file the store knows to be covered).
 *
 * A record whose body this thread decoded before the answer (scan.ts) is mapped from what it holds;
 * any other record, and every replayed one, from its body.
 */
import { randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { MapOptions } from '../core/otlp/map.js';
import type { Scope } from '../store/admin/meta.js';
import { COLUMN_INDEX, type SpanRow } from '../store/spans/columns.js';
import type { SpanKeys } from '../store/spans/manifest.js';
import type { SegmentStore } from '../store/spans/segmentStore.js';
import type { BufferedCell, SegmentBuffer } from '../store/spans/segmentBuffer.js';
import { crashPoint, REFUSED_SPAN_NAME, REPLAY_FAILURES, SEGMENT_WRITE_FAILURES } from '../testHooks.js';
import { decodeLog, logName, type LogDamage, type LogHeader } from './logFormat.js';
import { prepare, type Mapped } from './prepare.js';
import { rowBytes } from './rowBytes.js';
import type { BlobRecord, GenerationReport, ResourceRecord, SegmentReport } from '../store/spans/generation.js';
import { SummaryParts } from './summaryParts.js';

/** Where a worker's flushed generations go: the coordinator, over the worker's port. */
export interface GenerationSink {
  generationReady(report: GenerationReport): void;
}

interface Cell {
  scope: Scope;
  date: string;
  rows: BufferedCell;
}

class Generation {
  /** Cells by environment and day; a cell's table is made once, by whichever record needs it first. */
  readonly cells = new Map<string, Promise<Cell>>();
  readonly blobs = new Map<string, BlobRecord & { tenantId: string; appId: string; environmentId: string }>();
  readonly resources = new Map<string, ResourceRecord & { tenantId: string; appId: string }>();
  readonly parts = new SummaryParts();
  readonly usage = new Map<string, { spans: number; bytes: number }>();
  /** Rows in the buffer. */
  rows = 0;
  bodyBytes = 0;
  skippedRecords = 0;
  /** Records being added. */
  pending = 0;
  /** Set when rows of a durable record could not be buffered: the log file is then the source. */
  broken: unknown = undefined;
  private whenSettled: (() => void) | null = null;

  constructor(
    readonly seq: number,
    private readonly buffer: SegmentBuffer,
  ) {}

  async add(
    scope: Scope,
    rows: SpanRow[],
    blobs: BlobRecord[],
    resources: ResourceRecord[],
    bytes: number,
  ): Promise<void> {
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
    for (const b of blobs)
      this.blobs.set(`${scope.tenantId}/${scope.appId}/${scope.environmentId}/${b.sha256}`, {
        ...b,
        tenantId: scope.tenantId,
        appId: scope.appId,
        environmentId: scope.environmentId,
      });
    for (const r of resources)
      this.resources.set(`${scope.tenantId}/${scope.appId}/${r.id}`, {
        ...r,
        tenantId: scope.tenantId,
        appId: scope.appId,
      });
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
const NAME = COLUMN_INDEX.name;
const COST = COLUMN_INDEX.cost;
/**
 * How soon generations whose segments could not be written are tried again: 250 ms after the first
 * failure, doubling to 5 s while they keep failing (a full disk stays full for a while, and each try
 * is a warning in the log).
 */
const RETRY_MS = 250;
const RETRY_MAX_MS = 5_000;

/** What went wrong in a worker's ingest, for the main thread's log. */
export interface IngestProblem {
  msg: string;
  /** For a failed write: how many tries in a row have failed, when the next is, and how many generations wait for it. */
  attempt?: number;
  retryInMs?: number;
  generations?: number;
}

/**
 * What a replayed log file became: its report (none when it held no rows), what it dropped, the
 * span ids it kept, and the damage found in it.
 */
export type ReplayedLog = {
  report: GenerationReport | null;
  discardedBytes: number;
  /** Records that read, and damage anywhere but a torn tail (logFormat.ts). */
  records: number;
  damage: LogDamage | null;
  skippedRecords: number;
  keys: SpanKeys[];
};

export class ComputeIngest {
  readonly workerId = randomUUID();
  /** Generations receiving records, by sequence number. */
  private readonly open = new Map<number, Generation>();
  private flushing: Promise<void> = Promise.resolve();
  /** Generations whose segments could not be written yet (e.g. a full disk); retried. */
  private failed: Generation[] = [];
  /** Writes that failed in a row (none since the last that succeeded). */
  private failures = 0;
  private timer: NodeJS.Timeout | null = null;
  private running = false;
  /** Generation writes still to fail (a test hook, testHooks.ts). */
  private injectedFailures = SEGMENT_WRITE_FAILURES;
  /** Log replays still to fail (a test hook, testHooks.ts). */
  private injectedReplayFailures = REPLAY_FAILURES;

  constructor(
    private readonly logDir: string,
    private readonly segments: SegmentStore,
    private readonly buffer: SegmentBuffer,
    private readonly sink: GenerationSink,
    private readonly costOf: MapOptions['costOf'],
    private readonly onError: (e: unknown, problem: IngestProblem) => void = () => undefined,
  ) {}

  /** From now on, generations whose write failed are tried again (see RETRY_MS). */
  start(): void {
    this.running = true;
    if (this.failed.length > 0) this.retryIn(this.retryDelay());
  }

  stop(): void {
    this.running = false;
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
  }

  /**
   * A durable record of generation `seq`: its rows (from `held`, what this thread decoded of its body
   * before the answer, or else from the body) go into the segment buffer. Should that fail, the
   * generation is written from its log file instead.
   */
  record(seq: number, header: LogHeader, body: Uint8Array, held?: () => Mapped): void {
    let gen = this.open.get(seq);
    if (!gen) this.open.set(seq, (gen = new Generation(seq, this.buffer)));
    const g = gen;
    g.bodyBytes += body.byteLength;
    g.pending++;
    let prepared: PreparedRecord;
    try {
      prepared = prepareRecord(header, body, this.costOf, held);
    } catch (e) {
      g.broken ??= e;
      g.done();
      return;
    }
    g.add(prepared.scope, prepared.rows, prepared.blobs, prepared.resources, prepared.bytes)
      .catch((e: unknown) => {
        if (g.broken === undefined)
          this.onError(e, {
            msg: "a record's rows could not be buffered; its generation will be written from its log",
          });
        g.broken ??= e;
      })
      .finally(() => g.done());
  }

  /**
   * Writes generation `seq` as segments and reports it, once its records are in (the coordinator
   * sends the flush after the last of them). Resolves when it is reported or has failed (then it
   * is retried).
   */
  flush(seq: number): Promise<void> {
    const gen = this.open.get(seq) ?? new Generation(seq, this.buffer);
    this.open.delete(seq);
    return this.chain([gen]);
  }

  /** Writes the generations that failed before; resolves when that is done. */
  retry(): Promise<void> {
    return this.chain(this.failed.splice(0));
  }

  /** Resolves once every flush asked for so far has ended. */
  idle(): Promise<void> {
    return this.flushing;
  }

  private chain(work: Generation[]): Promise<void> {
    this.flushing = this.flushing.then(async () => {
      let error: unknown;
      for (const g of work) {
        try {
          await this.write(g);
        } catch (e) {
          this.failed.push(g);
          error ??= e;
        }
      }
      if (error === undefined) {
        if (this.failed.length === 0) this.failures = 0;
        return;
      }
      this.failures++;
      const retryInMs = this.retryDelay();
      this.onError(error, {
        msg: 'segment write failed; retrying',
        attempt: this.failures,
        retryInMs,
        generations: this.failed.length,
      });
      this.retryIn(retryInMs);
    });
    return this.flushing;
  }

  private retryDelay(): number {
    return Math.min(RETRY_MAX_MS, RETRY_MS * 2 ** Math.max(0, this.failures - 1));
  }

  /** One timer at a time: a generation failing while a retry waits joins that retry. */
  private retryIn(ms: number): void {
    if (!this.running || this.timer) return;
    this.timer = setTimeout(() => {
      this.timer = null;
      void this.retry();
    }, ms);
    this.timer.unref();
  }

  /**
   * A log file left by a crash or by a worker that ended, replayed (see `replay`) after the
   * flushes asked for so far and before the next ones: flushes and replays write through the one
   * segment buffer, and a replay run beside a flush failed both writes (the worker-death test
   * under load) — most likely the buffer's shared connection, since fixed (segmentBuffer.ts);
   * one write at a time also keeps the buffer's memory to one generation's. With `record`, only that
   * record of the file (its place, from 0) is replayed, and reported under `name` (logTriage.ts).
   */
  replayFile(path: string, name: string, record?: number): Promise<ReplayedLog> {
    if (this.injectedReplayFailures > 0) {
      this.injectedReplayFailures--;
      return Promise.reject(new Error('injected log replay failure (TRACELAKE_REPLAY_FAILURES)'));
    }
    const run = this.flushing.then(() => this.replay(path, name, 0, record));
    this.flushing = run.then(
      () => undefined,
      () => undefined,
    );
    return run;
  }

  /**
   * Re-reads a log file and writes its rows as segments, with the admission decisions the records
   * carry. The report names the file, so committing it retires the file; it carries `seq`, the
   * generation the file was written for (0 for another worker's file), so that the coordinator
   * marks that generation committed.
   */
  private async replay(path: string, name: string, seq: number, record?: number): Promise<ReplayedLog> {
    const { records, discardedBytes, damage } = decodeLog(readFileSync(path));
    const gen = new Generation(seq, this.buffer);
    const keys: SpanKeys[] = [];
    for (const { header, body } of record === undefined ? records : records.slice(record, record + 1)) {
      let prepared: PreparedRecord;
      try {
        prepared = prepareRecord(header, body, this.costOf);
      } catch (e) {
        // The main thread checked the body before logging it; a record that still fails must not
        // hold the rest of the file back at every start.
        gen.skippedRecords++;
        this.onError(e, { msg: 'a logged record could not be decoded and mapped; skipped' });
        continue;
      }
      gen.bodyBytes += body.byteLength;
      await gen.add(prepared.scope, prepared.rows, prepared.blobs, prepared.resources, prepared.bytes);
      keys.push({
        scope: prepared.scope,
        traceIds: prepared.rows.map((r) => r[TRACE] as string),
        spanIds: prepared.rows.map((r) => r[SPAN] as string),
      });
    }
    try {
      const report =
        gen.rows > 0 || gen.blobs.size > 0 || gen.skippedRecords > 0 ? await this.segmentsOf(gen, name) : null;
      return { report, discardedBytes, records: records.length, damage, skippedRecords: gen.skippedRecords, keys };
    } catch (e) {
      await this.dropCells(gen); // the file is read again at the next try
      throw e;
    }
  }

  private async write(gen: Generation): Promise<void> {
    await gen.settled();
    const name = logName(this.workerId, gen.seq);
    try {
      if (this.injectedFailures > 0) {
        this.injectedFailures--;
        throw new Error('injected segment write failure (TRACELAKE_SEGMENT_WRITE_FAILURES)');
      }
      if (gen.broken === undefined) {
        this.sink.generationReady(await this.segmentsOf(gen, name));
        return;
      }
      await this.dropCells(gen);
      // Its own sequence number: a report of 0 here left the coordinator waiting for this one.
      const { report } = await this.replay(join(this.logDir, name), name, gen.seq);
      this.sink.generationReady(report ?? (await this.segmentsOf(new Generation(gen.seq, this.buffer), name)));
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
      skippedRecords: gen.skippedRecords,
    };
  }
}

interface PreparedRecord {
  scope: Scope;
  rows: SpanRow[];
  blobs: BlobRecord[];
  resources: ResourceRecord[];
  /** What the rows count against a storage cap. */
  bytes: number;
}

/** A log record's rows: decoded and mapped (unless `held` has them), without the rows admission refused. */
function prepareRecord(
  header: LogHeader,
  body: Uint8Array,
  costOf: MapOptions['costOf'],
  held?: () => Mapped,
): PreparedRecord {
  const scope = { tenantId: header.tenantId, appId: header.appId, environmentId: header.environmentId };
  const { rows, blobs, resources } = held
    ? held()
    : prepare(
        {
          body,
          encoding: header.encoding,
          contentEncoding: header.contentEncoding ?? undefined,
          maxDecompressedBytes: Number.MAX_SAFE_INTEGER,
          maxSpansPerTrace: header.maxSpansPerTrace,
          scope,
        },
        costOf,
      );
  const dropped = new Set(header.drop);
  const kept = dropped.size === 0 ? rows : rows.filter((_, i) => !dropped.has(i));
  if (REFUSED_SPAN_NAME) for (const row of kept) if (row[NAME] === REFUSED_SPAN_NAME) row[COST] = 1e300;
  // Records before the estimate was logged: what the rows themselves weigh.
  const bytes =
    header.bytes ?? kept.reduce((n, r) => n + rowBytes(r), 0) + blobs.reduce((n, b) => n + b.data.byteLength, 0);
  return { scope, rows: kept, blobs, resources, bytes };
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
