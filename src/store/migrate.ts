import type { Database } from './db.js';
import { storeDirs } from './layout.js';
import type { Migration } from './migration.js';
import { MIGRATIONS } from './migrations.js';

/**
 * Brings the schema up to the newest migration. Idempotent: applied versions are skipped, and each
 * migration commits together with its `schema_migrations` row (a new store's all at once), so a
 * crash leaves no half-applied one. Returns the versions applied by this call.
 */
export async function migrate(db: Database, migrations: readonly Migration[] = MIGRATIONS): Promise<number[]> {
  await db.exec(`CREATE TABLE IF NOT EXISTS schema_migrations (
    version INTEGER PRIMARY KEY,
    name VARCHAR NOT NULL,
    applied_at TIMESTAMP NOT NULL DEFAULT (now()::TIMESTAMP)
  )`);
  const done = new Set(
    (await db.query<{ version: number }>('SELECT version FROM schema_migrations')).map((r) => r.version),
  );
  const pending = [...migrations].sort((a, b) => a.version - b.version).filter((m) => !done.has(m.version));
  // A new store takes every migration in one transaction: a start on a fresh data directory (every
  // test's, every first run's) paid a commit for each (native-bench/RESULTS.md, "start"). A store that has some
  // takes the rest one by one, as an upgrade's data rewrites are best committed apart.
  const batches = done.size === 0 ? [pending] : pending.map((m) => [m]);
  const applied: number[] = [];
  for (const batch of batches.filter((b) => b.length > 0)) {
    await db.transaction(async (tx) => {
      for (const m of batch) {
        for (const statement of m.sql) await tx.exec(statement);
        await m.apply?.(tx, { segmentsDir: storeDirs(db.options.dataDir).segments });
        await tx.exec('INSERT INTO schema_migrations (version, name) VALUES ($1, $2)', [m.version, m.name]);
      }
    });
    applied.push(...batch.map((m) => m.version));
  }
  // Schema changes go into the database file now rather than waiting in the WAL: DuckDB replays
  // some DDL from its WAL badly (see admin migration 6), and a schema is read at every start.
  if (applied.length > 0) await db.checkpoint();
  return applied;
}
