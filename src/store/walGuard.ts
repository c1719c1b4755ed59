/**
 * A guard on DuckDB's write-ahead log. DuckDB replays its WAL at open and silently drops what it
 * cannot read: garbage at the head drops all of it, a truncated WAL everything past the cut, and
 * the next checkpoint removes the evidence. So the store keeps a watermark beside the database —
 * the WAL's size and a hash of its head, recorded after every transaction's commit (before its
 * caller is answered), after checkpoints and once a second for the rest — and before each
 * open compares the WAL with it. A WAL shorter than the watermark, or with another head, is
 * damaged: it is copied to `quarantine/` before DuckDB touches it, and the damage is logged and
 * reported (`/v1/health/files`) — never a silent loss.
 *
 * Checkpoints are explicit (automatic ones are off, see db.ts), so the watermark always knows
 * when the WAL restarts. A WAL that is missing altogether is not judged: a clean stop leaves none.
 */
import { createHash } from 'node:crypto';
import {
  closeSync,
  copyFileSync,
  existsSync,
  fstatSync,
  mkdirSync,
  openSync,
  readdirSync,
  readFileSync,
  readSync,
  renameSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import { join } from 'node:path';

/** Bytes of the WAL's head that the watermark hashes (the header entry and the first commits). */
const HEAD_BYTES = 4096;
export const QUARANTINE_DIR = 'quarantine';

interface Watermark {
  size: number;
  head: string;
  headBytes: number;
}

export interface WalDamage {
  reason: string;
  /** The quarantined copy of the WAL as it was found. */
  copy: string;
  foundBytes: number;
  expectedBytes: number;
}

/** Beside the database: `tracelake.duckdb.wal-watermark`. */
const watermarkPath = (dbPath: string) => `${dbPath}.wal-watermark`;

function walState(walPath: string): Watermark | null {
  let fd: number;
  try {
    fd = openSync(walPath, 'r');
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ENOENT') return null;
    throw e;
  }
  try {
    const size = fstatSync(fd).size;
    const head = Buffer.alloc(Math.min(HEAD_BYTES, size));
    readSync(fd, head, 0, head.length, 0);
    return { size, head: createHash('sha256').update(head).digest('hex'), headBytes: head.length };
  } finally {
    closeSync(fd);
  }
}

/**
 * Records the WAL's current state as the watermark (after commits, and after a checkpoint), and
 * returns it. Given the record this process made last (`previous`), an unchanged state is not
 * written again: an idle store records every second, and the write and rename were most of what
 * that cost (native-bench/RESULTS.md, "Figures behind the code"). Best-effort and cheap: a lost
 * update only makes the next check less strict.
 */
export function recordWatermark(dbPath: string, previous: string | null = null): string {
  const recorded = JSON.stringify(walState(`${dbPath}.wal`) ?? { size: 0, head: '', headBytes: 0 });
  if (recorded === previous) return recorded;
  const path = watermarkPath(dbPath);
  const temp = `${path}.tmp`;
  writeFileSync(temp, recorded);
  renameSync(temp, path);
  return recorded;
}

function readWatermark(dbPath: string): Watermark | null {
  try {
    const w = JSON.parse(readFileSync(watermarkPath(dbPath), 'utf8')) as Watermark;
    return Number.isInteger(w.size) && typeof w.head === 'string' && Number.isInteger(w.headBytes) ? w : null;
  } catch {
    return null;
  }
}

/**
 * Compares the WAL with the watermark before DuckDB opens the database; on damage, copies the WAL
 * into `<dataDir>/quarantine/` and says what was found. Null when the WAL looks whole.
 */
export function checkWal(dataDir: string, dbPath: string, now = new Date()): WalDamage | null {
  const mark = readWatermark(dbPath);
  const found = walState(`${dbPath}.wal`);
  if (!mark || !found || mark.size === 0) return null;
  let reason: string | null = null;
  if (found.size < mark.size)
    reason = `the WAL is ${found.size} bytes, shorter than the ${mark.size} bytes already committed to it (truncated)`;
  else if (found.headBytes >= mark.headBytes) {
    // Compare the same span of bytes the watermark hashed.
    const head = headHash(`${dbPath}.wal`, mark.headBytes);
    if (head !== mark.head)
      reason = `the first ${mark.headBytes} bytes of the WAL are not those committed (overwritten)`;
  }
  if (!reason) return null;
  const dir = join(dataDir, QUARANTINE_DIR);
  mkdirSync(dir, { recursive: true });
  const copy = join(dir, `${now.toISOString().replaceAll(':', '-')}-tracelake.duckdb.wal`);
  copyFileSync(`${dbPath}.wal`, copy);
  return { reason, copy, foundBytes: found.size, expectedBytes: mark.size };
}

function headHash(walPath: string, bytes: number): string {
  const fd = openSync(walPath, 'r');
  try {
    const head = Buffer.alloc(bytes);
    readSync(fd, head, 0, bytes, 0);
    return createHash('sha256').update(head).digest('hex');
  } finally {
    closeSync(fd);
  }
}

/**
 * What the quarantine holds (for `/v1/health/files`): its files, and those of its directories
 * (`segments/`, `ingest-log/`) by their path in it.
 */
export function quarantined(dataDir: string): { name: string; bytes: number }[] {
  const dir = join(dataDir, QUARANTINE_DIR);
  if (!existsSync(dir)) return [];
  return readdirSync(dir, { withFileTypes: true })
    .flatMap((e) => (e.isDirectory() ? readdirSync(join(dir, e.name)).map((f) => `${e.name}/${f}`) : [e.name]))
    .sort()
    .map((name) => ({ name, bytes: statSync(join(dir, name)).size }));
}
