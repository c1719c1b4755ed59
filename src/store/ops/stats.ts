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
import { DUCKDB_MEMORY_SQL, type MemoryByTag } from '../duckdb.js';

/** The store thread's background jobs (storeThread.ts), each timed. */
export const BACKGROUND_JOBS = [
  'verify',
  'checkpoint',
  'merge',
  'settle',
  'compaction',
  'rollup',
  'retention',
  'purge',
  'prune',
] as const;
export type BackgroundJob = (typeof BACKGROUND_JOBS)[number];

export interface BackgroundCounts {
  /** Small segment files replaced by compaction. */
  compactions: number;
  /** Merges of trace summary parts run, and the parts they folded. */
  summaryMerges: number;
  summaryPartsMerged: number;
  /** Seconds each background job took since the start. */
  backgroundSeconds: Record<BackgroundJob, number>;
  /** What the compaction's own DuckDB holds in memory (nothing before its first run). */
  compactionMemory: MemoryByTag;
}

export interface StoreStats extends BackgroundCounts {
  segments: { level: number; files: number; rows: number; bytes: number }[];
  databaseBytes: number;
  walBytes: number;
  blobBytes: number;
  /** Ingest-log files found damaged, and the records lost in them, whose reports no operator removed yet. */
  damagedLogs: { files: number; recordsLost: number };
  /** What the store's DuckDB holds in memory. */
  memory: MemoryByTag;
  /** Summary parts committed and not merged yet. */
  partsWaiting: number;
}

function sizeOf(path: string): number {
  try {
    return statSync(path).size;
  } catch {
    return 0; // no WAL after a checkpoint
  }
}

export async function storeStats(db: Database, dataDir: string, background: BackgroundCounts): Promise<StoreStats> {
  const [segments, blobs, memory, parts] = await Promise.all([
    db.query<{ level: number; files: number; rows: number; bytes: number }>(
      `SELECT level::INTEGER AS level, count(*)::DOUBLE AS files, coalesce(sum(rows), 0)::DOUBLE AS rows, coalesce(sum(bytes), 0)::DOUBLE AS bytes
         FROM segments WHERE replaced_at IS NULL GROUP BY level ORDER BY level`,
    ),
    db.query<{ bytes: number }>('SELECT coalesce(sum(bytes), 0)::DOUBLE AS bytes FROM blobs'),
    db.query<{ tag: string; bytes: number }>(DUCKDB_MEMORY_SQL),
    db.query<{ n: number }>('SELECT count(*)::DOUBLE AS n FROM trace_parts'),
  ]);
  const file = join(dataDir, DATABASE_FILE);
  return {
    segments,
    ...background,
    databaseBytes: sizeOf(file),
    walBytes: sizeOf(`${file}.wal`),
    blobBytes: blobs[0]?.bytes ?? 0,
    damagedLogs: damageTotals(dataDir),
    memory: Object.fromEntries(memory.map((m) => [m.tag, m.bytes])),
    partsWaiting: parts[0]?.n ?? 0,
  };
}
