/**
 * The trace hints of a database (traceHintTable.ts): one table per database, on the store thread
 * that owns it, filled in the background from the stored summaries the first time it is asked for
 * and kept up by every commit of summary parts.
 */
import type { PartRow } from './traceParts.js';
import type { Database } from '../db.js';
import { DEFAULT_TRACE_HINT_SLOTS, TraceHints } from './traceHintTable.js';

let slots = DEFAULT_TRACE_HINT_SLOTS;
const tables = new WeakMap<Database, TraceHints>();
/** Each table's fill from the stored summaries (settles, never rejects). */
const fills = new WeakMap<Database, Promise<void>>();

/** Sets the size of tables made from now on; 0 turns hints off (every trace read is sequential). */
export function setTraceHintSlots(n: number): void {
  slots = n;
}

/** The database's table, null when hints are off. The first call starts its filling. */
export function traceHints(db: Database): TraceHints | null {
  if (slots <= 0) return null;
  let table = tables.get(db);
  if (!table) {
    table = new TraceHints(slots);
    tables.set(db, table);
    // A fill that fails leaves fewer hints, never a wrong answer: reads check every hint.
    fills.set(
      db,
      fillFromSummaries(db, table).catch(() => undefined),
    );
  }
  return table;
}

/** Databases closing: their fill stops at its next chunk. */
const stopping = new WeakSet<Database>();

/**
 * Stops the database's fill and settles once it has (before the database closes: a query still
 * streaming then would end the process).
 */
export function stopFilling(db: Database): Promise<void> {
  stopping.add(db);
  return hintsFilled(db);
}

/** Settles once the database's table has been filled from the stored summaries (at once: no table). */
export function hintsFilled(db: Database): Promise<void> {
  return fills.get(db) ?? Promise.resolve();
}

/**
 * Notes the ranges of committed summary parts, once the table exists: until then its fill, which
 * reads the stored summaries, will find them.
 */
export function noteParts(db: Database, parts: readonly PartRow[]): void {
  tables.get(db)?.noteParts(parts);
}

/**
 * Notes every stored summary's and part's range, app by app, as they come: the table keeps the
 * traces that ended last whatever the order.
 */
async function fillFromSummaries(db: Database, table: TraceHints): Promise<void> {
  const apps = await db.query<{ tenant_id: string; app_id: string }>(
    `SELECT DISTINCT tenant_id::VARCHAR AS tenant_id, app_id::VARCHAR AS app_id
       FROM (SELECT tenant_id, app_id FROM traces UNION ALL SELECT tenant_id, app_id FROM trace_parts)`,
  );
  for (const app of apps) {
    if (stopping.has(db)) return;
    await db.streamColumns(
      `SELECT trace_id, start_ns, end_ns FROM traces WHERE tenant_id = $1 AND app_id = $2
       UNION ALL SELECT trace_id, start_ns, end_ns FROM trace_parts WHERE tenant_id = $1 AND app_id = $2`,
      [app.tenant_id, app.app_id],
      (columns, rows) => {
        const [ids, starts, ends] = columns as [string[], bigint[], bigint[]];
        for (let i = 0; i < rows; i++) table.note(app.tenant_id, app.app_id, ids[i]!, starts[i]!, ends[i]!);
        return stopping.has(db) ? 'stop' : undefined;
      },
    );
  }
}
