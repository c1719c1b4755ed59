/**
 * Trace summaries made in bulk, as ingestion makes them: parts written, then folded by the store's
 * own merge. Each call adds one part (one span) to each of `count` traces, so a second call makes
 * the merge delete and write every summary again — the churn that leaves holes in the database file.
 */
import type { Database } from '../../src/store/db.js';
import { mergeParts } from '../../src/store/spans/summaryMerge.js';

export interface SummaryScope {
  tenantId: string;
  appId: string;
  environmentId: string;
}

/** DuckDB writes a row group of an insert to the file as soon as it is full (122,880 rows). */
const BELOW_A_ROW_GROUP = 100_000;

export interface MergedTracesOptions {
  /** How far after its trace's start the new span is. */
  offsetNs?: bigint;
  /** The first trace's index (traces `from` … `from + count - 1`). */
  from?: number;
  /**
   * Parts inserted in batches smaller than a row group, so DuckDB keeps them in memory and the
   * merge deletes them before any reaches the file: the summaries' rewrites alone leave holes.
   * Otherwise one insert, whose full row groups are written to the file and freed by the merge.
   */
  partsInMemory?: boolean;
}

/**
 * A part for each of `count` traces — trace i has the id MD5(i) in hex, is named `trace <i>` and
 * starts `firstNs` + i seconds, its span `offsetNs` after that — merged into the summaries, then a
 * checkpoint.
 */
export async function mergedTraces(
  db: Database,
  scope: SummaryScope,
  count: number,
  firstNs: bigint,
  { offsetNs = 0n, from = 0, partsInMemory = false }: MergedTracesOptions = {},
): Promise<void> {
  const batch = partsInMemory ? BELOW_A_ROW_GROUP : count;
  for (let first = from; first < from + count; first += batch) {
    const end = Math.min(first + batch, from + count);
    await db.exec(
      `INSERT INTO trace_parts (tenant_id, app_id, environment_id, trace_id, start_ns, end_ns, best_r, best_s, best_name, cost, tokens, span_count, has_error, has_ok, tags)
       SELECT $1, $2, $3, md5(i::VARCHAR), $4 + i * 1000000000, $4 + i * 1000000000 + 5, 0, 1, 'trace ' || i, i / 1000, i, 1, 0, 1, []
         FROM range(${first}, ${end}) r(i)`,
      [scope.tenantId, scope.appId, scope.environmentId, firstNs + offsetNs],
    );
  }
  await mergeParts(db);
  await db.checkpoint();
}
