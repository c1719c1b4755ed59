/**
 * The background merge of trace summary parts into one row per trace (see traceParts.ts). Parts are
 * folded up to the newest one seen when the merge starts, in one transaction: a reader sees either
 * the parts or their merged row, never both and never neither.
 */
import type { Database } from '../db.js';
import { MERGE_STATEMENTS } from './traceParts.js';

/** Folds the current parts into `traces`; returns how many parts were folded. */
export async function mergeParts(db: Database): Promise<number> {
  return db.transaction(async (tx) => {
    const [row] = await tx.query<{ upto: string | null; n: number }>('SELECT max(seq)::VARCHAR AS upto, count(*)::INTEGER AS n FROM trace_parts');
    if (!row || row.upto === null) return 0;
    for (const statement of MERGE_STATEMENTS(BigInt(row.upto))) await tx.exec(statement);
    return row.n;
  });
}

/** Below this many free blocks (of 256 KiB) a rewrite is not worth its work. */
const RECLAIM_MIN_FREE_BLOCKS = 8;

export interface Reclaimed {
  /** The database file's blocks (used and free) before and after, and their size in bytes. */
  blocksBefore: number;
  blocksAfter: number;
  blockSize: number;
}

/**
 * Gives the free space the summaries' rewrites leave in the database file back to the disk, when
 * it is worth it. DuckDB reuses a free block but returns one to the disk only from the end of the
 * file; the summaries are what the checkpoints rewrite (each merge changes their last row groups),
 * and the last large rewrite leaves their old copy's blocks as holes while the new copy ends the
 * file: after a load of 1M spans, 35 of its 95 blocks were free (9 of 25 MB). When the table fits
 * in the holes, this writes it again (its rows appended anew and the old ones deleted, in one
 * transaction): DuckDB fills the lowest free blocks first, and the checkpoint after frees the
 * blocks the old copy held — the file's tail, which DuckDB then cuts off (25 → 18 MB on that
 * store). When the table does not fit, a rewrite would only move the holes, so none is made; nor
 * when the file has `unchangedSince` blocks, as the last rewrite left it (a rewrite whose old copy
 * was not the file's tail moved the holes without cutting the file, and another would too).
 * Returns the file's blocks before and after, or null when nothing was done.
 */
export async function reclaimSummaryBlocks(db: Database, unchangedSince?: number): Promise<Reclaimed | null> {
  // The holes are made by checkpoints: what the WAL still holds is written first (at shutdown, the
  // last merges' rewrite of the table is what leaves them).
  await db.checkpointIfLarge(1);
  const before = await fileBlocks(db);
  if (before.total === unchangedSince) return null;
  const [table] = await db.query<{ blocks: number }>(
    'SELECT count(DISTINCT block_id)::INTEGER AS blocks FROM pragma_storage_info(\'traces\') WHERE block_id >= 0',
  );
  const needed = Math.max(RECLAIM_MIN_FREE_BLOCKS, table?.blocks ?? 0);
  if (before.free < needed || 4 * before.free < before.total) return null;
  await db.transaction(async (tx) => {
    // Rows appended in this transaction come after every row there is: the old ones are those below.
    const [{ next } = { next: '0' }] = await tx.query<{ next: string }>('SELECT (coalesce(max(rowid), -1) + 1)::VARCHAR AS next FROM traces');
    await tx.exec('INSERT INTO traces SELECT * FROM traces');
    await tx.exec(`DELETE FROM traces WHERE rowid < ${BigInt(next)}`);
  });
  await db.checkpoint();
  return { blocksBefore: before.total, blocksAfter: (await fileBlocks(db)).total, blockSize: before.blockSize };
}

/** The database file's blocks, how many of them are free, and their size. */
async function fileBlocks(db: Database): Promise<{ total: number; free: number; blockSize: number }> {
  const [row] = await db.query<{ total: number; free: number; blockSize: number }>(
    `SELECT total_blocks::INTEGER AS total, free_blocks::INTEGER AS free, block_size::INTEGER AS "blockSize"
       FROM pragma_database_size() WHERE database_name = current_database()`,
  );
  return row ?? { total: 0, free: 0, blockSize: 0 };
}
