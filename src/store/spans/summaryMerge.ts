/**
 * The background merge of trace summary parts into one row per trace (see traceParts.ts). Parts are
 * folded up to the newest one seen when the merge starts, in one transaction: a reader sees either
 * the parts or their merged row, never both and never neither.
 */
import type { Database, Transaction } from '../db.js';
import { keyHalvesSql, mayBeSettled, noteMergedKeys, settledKeys } from './settledKeys.js';
import {
  type KeyScan,
  keyScan,
  MERGE_CLEANUP,
  MERGE_STATEMENTS,
  mergedBeforeSql,
  mergingKeysSql,
  MERGING_SQL,
} from './traceParts.js';

/** Folds the current parts into `traces`; returns how many parts were folded. */
export function mergeParts(db: Database): Promise<number> {
  return db.transaction((tx) => foldParts(db, tx));
}

/** The merge's work in the transaction `tx` of `db` (`mergeParts`; a bench rolls it back). */
export async function foldParts(db: Database, tx: Transaction): Promise<number> {
  const [row] = await tx.query<{ upto: string | null; n: number }>(
    'SELECT max(seq)::VARCHAR AS upto, count(*)::INTEGER AS n FROM trace_parts',
  );
  if (!row || row.upto === null) return 0;
  const upTo = BigInt(row.upto);
  const settled = settledKeys(db);
  await tx.exec(MERGING_SQL(upTo));
  let scan: KeyScan = null;
  if (settled) {
    scan = keyScan(settled.cutoffNs, mayBeSettled(settled, await tx.columns(mergingKeysSql(keyHalvesSql))));
  }
  for (const statement of MERGE_STATEMENTS(upTo, scan)) await tx.exec(statement);
  // Rows written that start before the cutoff: their keys join the filter before they can be seen.
  if (settled) {
    noteMergedKeys(db, await tx.columns(mergedBeforeSql(settled.cutoffNs, keyHalvesSql)));
  }
  for (const statement of MERGE_CLEANUP) await tx.exec(statement);
  return row.n;
}

/** Below this many free blocks (of 256 KiB) a rewrite is not worth its work. */
const RECLAIM_MIN_FREE_BLOCKS = 8;

export interface Reclaimed {
  /** The database file's blocks (used and free), and how many were free, before the rewrite. */
  blocksBefore: number;
  freeBefore: number;
}

/**
 * Rewrites the summaries into the free blocks their own rewrites left in the database file, when
 * they fit; run at shutdown, where the close's checkpoint then gives the file's freed tail back to
 * the disk. DuckDB reuses a free block but returns one only from the end of the file; the
 * summaries are what checkpoints rewrite (each merge changes their last row groups), and the last
 * large rewrite leaves their old copy's blocks as holes while the new copy ends the file. Their
 * rows appended anew and the old ones deleted, in one transaction, go into the lowest free blocks
 * (DuckDB's order), and the old copy's blocks, the file's tail, are freed (native-bench/RESULTS.md,
 * "Figures behind the code"). When the table does not fit in the holes, a rewrite would grow the
 * file instead, so none is made. Returns what the file was, or null when nothing was done.
 */
export async function reclaimSummaryBlocks(db: Database): Promise<Reclaimed | null> {
  // The holes are made by checkpoints: what the WAL still holds (the last merges) is written first.
  await db.checkpointIfLarge(1);
  const [file] = await db.query<{ total: number; free: number }>(
    'SELECT total_blocks::INTEGER AS total, free_blocks::INTEGER AS free FROM pragma_database_size() WHERE database_name = current_database()',
  );
  const [table] = await db.query<{ blocks: number }>(
    "SELECT count(DISTINCT block_id)::INTEGER AS blocks FROM pragma_storage_info('traces') WHERE block_id >= 0",
  );
  if (!file || !table) return null;
  if (file.free < Math.max(RECLAIM_MIN_FREE_BLOCKS, table.blocks) || 4 * file.free < file.total) return null;
  await db.transaction(async (tx) => {
    // Rows appended in this transaction come after every row there is: the old ones are those below.
    const [{ next } = { next: '0' }] = await tx.query<{ next: string }>(
      'SELECT (coalesce(max(rowid), -1) + 1)::VARCHAR AS next FROM traces',
    );
    await tx.exec('INSERT INTO traces SELECT * FROM traces');
    await tx.exec(`DELETE FROM traces WHERE rowid < ${BigInt(next)}`);
  });
  await db.checkpoint();
  return { blocksBefore: file.total, freeBefore: file.free };
}
