/**
 * What the operations metrics read from the store at a scrape: live segments by level, the
 * database files' sizes, stored blob bytes. Cheap: the manifest and blob tables are small, and
 * the file sizes are two stats.
 */
import { statSync } from 'node:fs';
import { join } from 'node:path';
import type { Database } from '../db.js';
import { damageTotals } from '../damageReports.js';
import { DATABASE_FILE } from '../layout.js';

export interface BackgroundCounts {
  /** Small segment files replaced by compaction. */
  compactions: number;
  /** Merges of trace summary parts run, and the parts they folded. */
  summaryMerges: number;
  summaryPartsMerged: number;
}

export interface StoreStats extends BackgroundCounts {
  segments: { level: number; files: number; rows: number; bytes: number }[];
  databaseBytes: number;
  walBytes: number;
  blobBytes: number;
  /** Ingest-log files found damaged, and the records lost in them, whose reports no operator removed yet. */
  damagedLogs: { files: number; recordsLost: number };
}

function sizeOf(path: string): number {
  try {
    return statSync(path).size;
  } catch {
    return 0; // no WAL after a checkpoint
  }
}

export async function storeStats(db: Database, dataDir: string, background: BackgroundCounts): Promise<StoreStats> {
  const [segments, blobs] = await Promise.all([
    db.query<{ level: number; files: number; rows: number; bytes: number }>(
      `SELECT level::INTEGER AS level, count(*)::DOUBLE AS files, coalesce(sum(rows), 0)::DOUBLE AS rows, coalesce(sum(bytes), 0)::DOUBLE AS bytes
         FROM segments WHERE replaced_at IS NULL GROUP BY level ORDER BY level`,
    ),
    db.query<{ bytes: number }>('SELECT coalesce(sum(bytes), 0)::DOUBLE AS bytes FROM blobs'),
  ]);
  const file = join(dataDir, DATABASE_FILE);
  return {
    segments,
    ...background,
    databaseBytes: sizeOf(file),
    walBytes: sizeOf(`${file}.wal`),
    blobBytes: blobs[0]?.bytes ?? 0,
    damagedLogs: damageTotals(dataDir),
  };
}
