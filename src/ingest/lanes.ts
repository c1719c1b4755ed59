/**
 * A compute thread as the ingest coordinator sees it — a lane: the port records and flushes go
 * through, and the generation its records are appended to. A generation is one log file and the
 * records in it; the coordinator cuts it (by age, by size, or at once for a request that waits to
 * see its spans), and once every append to it has settled the worker is told to flush it.
 */
import type { MessagePort } from 'node:worker_threads';
import type { CoordinatorMessage } from './ingestMessages.js';
import type { IngestLogFile } from './ingestLog.js';
import { logName } from './logFormat.js';

/** How many times its age a generation may stay open while its worker writes the one before. */
const GROWTH = 3;

export interface FlushPolicy {
  maxRows: number;
  maxBodyBytes: number;
  maxAgeMs: number;
}

/** One log file and the records a worker gets from it. */
export class LaneGeneration {
  log: IngestLogFile | null = null;
  /** When its first record was appended, and when it was cut (performance.now()). */
  firstAt = 0;
  cutAt = 0;
  /** When each of its records was answered (kept only for the operations metrics). */
  readonly answeredAt: number[] = [];
  /** Rows kept in its records, and their bodies' bytes. */
  rows = 0;
  /** Records appended and durable (one of an agents batch may hold blobs and no row). */
  records = 0;
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

export class Lane {
  private nextSeq = 2;
  /** Where new records go. */
  open: LaneGeneration;
  /** Generations cut whose appends are settling, and when their flush will have been sent. */
  readonly cutting = new Map<LaneGeneration, Promise<void>>();
  /** A request waits to see its spans: cut at the end of this turn of the event loop. */
  private soon = false;
  /** Generations told to flush whose report has not come back: the worker is still writing them. */
  private writing = 0;
  /** The worker ended: nothing more is sent to it (its log files are replayed). */
  gone = false;
  /** Shutdown's close requests, answered by the worker. */
  readonly closes = new Map<number, () => void>();

  constructor(
    readonly workerId: string,
    readonly port: MessagePort,
    private readonly policy: FlushPolicy,
    /** Told of each generation whose flush is sent to the worker. */
    private readonly onFlush: (gen: LaneGeneration) => void,
    /** Deletes the log file of a generation with nothing to keep (by name, in the background). */
    private readonly discard: (name: string) => void,
  ) {
    this.open = new LaneGeneration(1, logName(workerId, 1));
  }

  /** Sends a message to the worker, unless it has ended. */
  send(message: CoordinatorMessage, transfer: ArrayBuffer[] = []): void {
    if (!this.gone) this.port.postMessage(message, transfer);
  }

  /** After a record of `gen` was made durable and sent: cut by size, or soon for a waiting request. */
  appended(gen: LaneGeneration, waitVisible: boolean): void {
    if (gen !== this.open) return;
    if (gen.rows >= this.policy.maxRows || gen.bodyBytes >= this.policy.maxBodyBytes) void this.cut();
    else if (waitVisible) this.cutSoon();
  }

  /** The worker reported a flushed generation. */
  reported(): void {
    this.writing = Math.max(0, this.writing - 1);
  }

  /**
   * Cuts the open generation past its age — unless the worker has not written the last one yet:
   * then it grows, up to three times its age, instead of queueing behind it as one more small
   * segment and one more commit. A busy worker writes fewer, larger generations (its spans would
   * not be readable sooner either way); the bound keeps one from holding seconds of spans.
   */
  cutIfOld(now: number): void {
    const open = now - this.open.openedAt;
    const age = this.policy.maxAgeMs;
    if (this.open.records > 0 && open >= age && (this.writing === 0 || open >= GROWTH * age)) void this.cut();
  }

  /**
   * Closes the open generation to new records; once its appends have settled, the worker is told to
   * flush it (the promise resolves then).
   */
  cut(): Promise<void> {
    this.soon = false;
    const gen = this.open;
    if (gen.log === null) return Promise.resolve(); // nothing appended since the last cut
    this.open = new LaneGeneration(this.nextSeq, logName(this.workerId, this.nextSeq));
    this.nextSeq++;
    gen.cutAt = performance.now();
    const flushed = gen.settled().then(() => {
      this.cutting.delete(gen);
      gen.log!.close();
      if (gen.records === 0) {
        // Every append failed: nothing was answered 2xx, nothing to keep.
        this.discard(gen.name);
        return;
      }
      if (this.gone) return; // its log is replayed
      this.onFlush(gen);
      this.send({ t: 'flush', seq: gen.seq });
      this.writing++;
    });
    this.cutting.set(gen, flushed);
    return flushed;
  }

  private cutSoon(): void {
    if (this.soon) return;
    this.soon = true;
    setImmediate(() => {
      if (this.soon) void this.cut();
    });
  }
}
