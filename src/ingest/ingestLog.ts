/**
 * One file of the ingest log, written by the main thread for one compute thread's generation:
 * records are appended as requests are admitted, and a request is answered once an fdatasync has
 * covered its record. Syncs are shared: every record appended while a sync runs waits for the next
 * one, so a busy server pays one sync per group of requests, not one per request (group commit).
 *
 * A failed write or sync truncates the file back to what the last good sync covered and fails
 * every request waiting on it: a request that was not answered 2xx leaves nothing to replay.
 */
import { closeSync, fdatasync, ftruncateSync, openSync, writevSync } from 'node:fs';
import type { SyncFn } from './logSync.js';
import { encodeRecord, type LogHeader } from './logFormat.js';

export class IngestLogFile {
  private readonly fd: number;
  private written = 0;
  /** Bytes an fdatasync has covered. */
  private synced = 0;
  /** Records written, and those an fdatasync has covered. */
  private records = 0;
  private syncedRecords = 0;
  private syncing = false;
  private waiters: { upTo: number; resolve: () => void; reject: (e: Error) => void }[] = [];
  private closed = false;
  /** Bumped by each failure, so a sync that started before it cannot vouch for what came after. */
  private epoch = 0;

  /** Creates the file; it must not exist. `sync` makes its writes durable (default: the libuv pool's fdatasync). */
  constructor(
    readonly path: string,
    private readonly syncFd: SyncFn = poolSync,
  ) {
    this.fd = openSync(path, 'wx', 0o600);
  }

  /**
   * Appends a record and resolves when it is durable, with its place in the file (0 for the first
   * record): the record a triage of the file finds refused (logTriage.ts) is known by it.
   */
  append(header: LogHeader, body: Uint8Array): Promise<number> {
    if (this.closed) return Promise.reject(new Error('ingest log file is closed'));
    const buffers = encodeRecord({ ...header, place: this.records }, body);
    const size = buffers.reduce((n, b) => n + b.length, 0);
    try {
      const n = writevSync(this.fd, buffers, this.written);
      // On a regular file a short write means the disk (or the file-size limit) is full.
      if (n !== size)
        throw new Error(
          `short write to the ingest log (${n} of ${size} bytes): No space left on device, or the file size limit`,
        );
    } catch (e) {
      this.fail(e as Error);
      return Promise.reject(e as Error);
    }
    this.written += size;
    const upTo = this.written;
    const index = this.records++;
    return new Promise((resolve, reject) => {
      this.waiters.push({ upTo, resolve: () => resolve(index), reject });
      this.sync();
    });
  }

  /** Bytes appended so far. */
  get size(): number {
    return this.written;
  }

  /** Closes the file; call once every append has settled. */
  close(): void {
    if (this.closed) return;
    this.closed = true;
    closeSync(this.fd);
  }

  private sync(): void {
    if (this.syncing || this.waiters.length === 0) return;
    this.syncing = true;
    const target = this.written;
    const targetRecords = this.records;
    const epoch = this.epoch;
    const settled = (err: Error | null) => {
      this.syncing = false;
      // A failure meanwhile truncated the file and failed everyone this sync was for.
      if (epoch !== this.epoch) return this.sync();
      if (err) return this.fail(err);
      this.synced = target;
      this.syncedRecords = targetRecords;
      const done = this.waiters.filter((w) => w.upTo <= target);
      this.waiters = this.waiters.filter((w) => w.upTo > target);
      for (const w of done) w.resolve();
      this.sync();
    };
    this.syncFd(this.fd).then(
      () => settled(null),
      (e: unknown) => settled(e as Error),
    );
  }

  /**
   * Drops everything after the last good sync and fails the requests that wrote it: none of them
   * will be answered 2xx, so none of them may be replayed.
   */
  private fail(err: Error): void {
    this.epoch++;
    try {
      ftruncateSync(this.fd, this.synced);
    } catch {
      // The file may be gone with its disk; replay stops at the first bad record anyway.
    }
    this.written = this.synced;
    this.records = this.syncedRecords;
    for (const w of this.waiters.splice(0)) w.reject(err);
  }
}

const poolSync: SyncFn = (fd) =>
  new Promise((resolve, reject) => fdatasync(fd, (err) => (err ? reject(err) : resolve())));
