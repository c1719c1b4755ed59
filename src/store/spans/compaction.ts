/**
 * Compaction (docs/segments.md): small segments written by ingestion become large files sorted by
 * start time then trace, one app and one day each, so a window reads few files and a trace's spans
 * sit in one row group. One compaction at a time, in the store thread's DuckDB:
 *
 *   pick a group → COPY its files, sorted, to a temporary file → fsync, rename, fsync dir →
 *   one transaction: the new manifest row in, the old rows marked replaced → later (after every
 *   query that may still hold the old list has ended) the old files are deleted, then their rows.
 *
 * A crash before the transaction leaves a published file no row names (swept at start); a crash
 * after it leaves replaced files that the purge deletes. Readers only ever see whole files the
 * manifest names, so answers are the same before and after (summaries do not point at files: a
 * trace finds its spans through its time range).
 */
import type { DuckDBBitValue } from '@duckdb/node-api';
import { crashPoint } from '../../testHooks.js';
import type { Database } from '../db.js';
import type { FileEngine } from './fileEngine.js';
import { forgetSegments, insertSegment, quote, spansFrom } from './manifest.js';
import { SEGMENT_COPY_OPTIONS, SEGMENT_FORMAT_VERSION } from './segmentFormat.js';
import type { SegmentStore } from './segmentStore.js';
import { spanIdFilterSql } from './spanIdFilter.js';

export interface CompactionPolicy {
  /** Rows a compacted file aims for. */
  targetRows: number;
  /** A group is compacted once it has this many small files… */
  minFiles: number;
  /** …or its oldest small file is this old (so quiet apps are compacted too). */
  maxAgeMs: number;
}

export const COMPACTED_LEVEL = 1;

interface Candidate {
  id: number;
  tenant_id: string;
  app_id: string;
  environment_id: string | null;
  date: string;
  path: string;
  rows: number;
  min_start_ns: string;
  max_start_ns: string;
  format_version: number;
}

/**
 * Compacts one group of small segments if one is due; returns the number of files replaced (0 when
 * there was nothing to do).
 */
export async function compactOnce(
  db: Database,
  engine: FileEngine,
  store: SegmentStore,
  policy: CompactionPolicy,
): Promise<number> {
  const group = await pickGroup(db, policy);
  if (group.length === 0) return 0;
  const first = group[0]!;
  const rows = group.reduce((n, s) => n + s.rows, 0);
  const temp = store.tempPath();
  await engine.run(
    `COPY (SELECT * FROM ${spansFrom(group.map((s) => ({ path: store.readPath(s.path), formatVersion: s.format_version })))} ORDER BY start_ns, trace_id, span_id)
       TO ${quote(temp)} (${SEGMENT_COPY_OPTIONS})`,
  );
  // Off this thread, like the COPY: DuckDB reads the new file's span ids back (spanIdFilter.ts).
  const spanFilter = await engine.value(
    spanIdFilterSql(`read_parquet(${quote(temp)}, hive_partitioning = false)`, rows),
  );
  const environments = new Set(group.map((s) => s.environment_id));
  const key = await store.publish(temp, {
    tenantId: first.tenant_id,
    appId: first.app_id,
    date: first.date,
    name: `compacted-${first.id}-${group.length}`,
  });
  // Beside the file, not in its manifest row: DuckDB rewrites a row group whole at the checkpoint
  // after a row joins it, and the filters made that row group large (native-bench/RESULTS.md,
  // "Where the time and memory go").
  if (spanFilter) await store.writeSpanFilter(key, (spanFilter as DuckDBBitValue).data);
  crashPoint('after-compaction-publish');
  await db.transaction(async (tx) => {
    await insertSegment(tx, key, {
      tenantId: first.tenant_id,
      appId: first.app_id,
      // A file that mixes environments has none in the manifest; its rows keep theirs.
      environmentId: environments.size === 1 ? first.environment_id : null,
      date: first.date,
      rows,
      bytes: store.size(key),
      minStartNs: BigInt(
        group.reduce((m, s) => (BigInt(s.min_start_ns) < BigInt(m) ? s.min_start_ns : m), first.min_start_ns),
      ),
      maxStartNs: BigInt(
        group.reduce((m, s) => (BigInt(s.max_start_ns) > BigInt(m) ? s.max_start_ns : m), first.max_start_ns),
      ),
      level: COMPACTED_LEVEL,
      formatVersion: SEGMENT_FORMAT_VERSION,
    });
    await tx.exec(
      `UPDATE segments SET replaced_at = now()::TIMESTAMP WHERE id IN (${group.map((s) => Number(s.id)).join(', ')}) AND replaced_at IS NULL`,
    );
  });
  forgetSegments(db, [{ tenantId: first.tenant_id, appId: first.app_id }]);
  crashPoint('after-compaction-commit');
  return group.length;
}

/**
 * The oldest due group: small (level 0) live segments of one app and day, oldest first, up to the
 * target size. Due when it has `minFiles` files, enough rows, or an old enough file — then even
 * alone: a day's last small file (the one left when the others filled a compacted file, or the
 * only one of a quiet app) is rewritten sorted, or it would stay small and unsorted for good (a
 * 10M-span load ended with one such file, and nothing compacted it).
 */
async function pickGroup(db: Database, policy: CompactionPolicy): Promise<Candidate[]> {
  const groups = await db.query<{ tenant_id: string; app_id: string; date: string }>(
    `SELECT tenant_id::VARCHAR AS tenant_id, app_id::VARCHAR AS app_id, date::VARCHAR AS date
       FROM segments WHERE replaced_at IS NULL AND level = 0
      GROUP BY ALL
     HAVING (count(*) >= 2 AND (count(*) >= $1 OR sum(rows) >= $2)) OR max(epoch_ms(now()::TIMESTAMP) - epoch_ms(created_at)) >= $3
      ORDER BY min(created_at) LIMIT 1`,
    [policy.minFiles, policy.targetRows, policy.maxAgeMs],
  );
  const g = groups[0];
  if (!g) return [];
  const files = await db.query<Candidate>(
    `SELECT id::DOUBLE AS id, tenant_id::VARCHAR AS tenant_id, app_id::VARCHAR AS app_id, environment_id::VARCHAR AS environment_id,
            date::VARCHAR AS date, path, rows::DOUBLE AS rows, min_start_ns::VARCHAR AS min_start_ns, max_start_ns::VARCHAR AS max_start_ns,
            format_version
       FROM segments WHERE replaced_at IS NULL AND level = 0 AND tenant_id = $1 AND app_id = $2 AND date = $3::DATE
      ORDER BY created_at, id`,
    [g.tenant_id, g.app_id, g.date],
  );
  const picked: Candidate[] = [];
  let rows = 0;
  for (const f of files) {
    if (picked.length >= 2 && rows + f.rows > policy.targetRows) break;
    picked.push(f);
    rows += f.rows;
  }
  return picked;
}

/**
 * Deletes the files of segments replaced (by compaction or retention) more than `graceMs` ago —
 * long enough that no query that listed them is still running — and then their manifest rows and
 * rollups.
 */
export async function purgeReplaced(db: Database, store: SegmentStore, graceMs: number): Promise<number> {
  const gone = await db.query<{ id: number; path: string }>(
    `SELECT id::DOUBLE AS id, path FROM segments WHERE replaced_at IS NOT NULL AND epoch_ms(now()::TIMESTAMP) - epoch_ms(replaced_at) >= $1`,
    [graceMs],
  );
  for (const s of gone) await store.remove(s.path);
  if (gone.length === 0) return 0;
  const ids = gone.map((s) => Number(s.id)).join(', ');
  await db.transaction(async (tx) => {
    await tx.exec(`DELETE FROM span_rollups WHERE segment_id IN (${ids})`);
    await tx.exec(`DELETE FROM segments WHERE id IN (${ids})`);
  });
  return gone.length;
}
