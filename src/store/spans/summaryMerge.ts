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
