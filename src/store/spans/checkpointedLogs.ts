/**
 * Committed ingest-log files wait in `ingest-log/committed/` until a checkpoint has folded their
 * commit into the database file: until then the commit lives in the WAL only, and a WAL cut short
 * (walGuard.ts) would take it with it. A start replays the waiting files whose names the database
 * lost (logReplay.ts); a checkpoint retires those it named before it began (`retireAfterCheckpoint`).
 */
import { readdirSync, rmSync, statSync } from 'node:fs';
import { join } from 'node:path';
import type { Database } from '../db.js';
import { committedLogDir } from '../layout.js';
import { committedLogs } from './manifest.js';

/** Checkpoint early when the files waiting for one pass this many bytes, or the oldest this age. */
const WAITING_BYTES = 256 * 1024 ** 2;
const WAITING_MS = 10 * 60_000;

function waiting(dataDir: string): string[] {
  try {
    return readdirSync(committedLogDir(dataDir)).filter((f) => f.endsWith('.log'));
  } catch {
    return [];
  }
}

/**
 * Called as a checkpoint begins (no transaction running): lists the files waiting, whose commits
 * the checkpoint will fold in; the function returned deletes those the database names, once it has.
 */
export function retireAfterCheckpoint(db: Database, dataDir: string): () => Promise<void> {
  const names = waiting(dataDir);
  return async () => {
    if (names.length === 0) return;
    const dir = committedLogDir(dataDir);
    try {
      for (const name of await committedLogs(db, names)) rmSync(join(dir, name), { force: true });
    } catch {
      // The checkpoint stands; the next one retires what this one left.
    }
  };
}

/** Whether the files waiting for a checkpoint have grown too many or too old to wait on the WAL's size. */
export function logsAwaitCheckpoint(dataDir: string, now = Date.now()): boolean {
  let bytes = 0;
  for (const name of waiting(dataDir)) {
    try {
      const s = statSync(join(committedLogDir(dataDir), name));
      bytes += s.size;
      if (bytes >= WAITING_BYTES || now - s.mtimeMs >= WAITING_MS) return true;
    } catch {
      // Retired meanwhile.
    }
  }
  return false;
}
