/**
 * One schema migration. A migration is applied once, in its own transaction, and recorded in
 * `schema_migrations`; never edit one that has shipped — add the next.
 *
 * Conventions: ids are UUID; times are TIMESTAMP in UTC; every tenant-owned row carries tenant_id
 * (and app_id / environment_id where it belongs to one). No foreign keys: DuckDB checks them eagerly
 * and they would make the cascading deletes of environments and apps harder, not safer.
 * Each domain keeps its own list (admin/, spans/, scores/ `migrations.ts`) in its own range of
 * versions; `migrations.ts` assembles them.
 */
import type { Transaction } from './db.js';

export interface Migration {
  version: number;
  name: string;
  sql: string[];
  /** Work SQL alone cannot express (it needs the store's directories, or a decision on data), after `sql`. */
  apply?: (tx: Transaction, ctx: MigrationContext) => Promise<void>;
}

export interface MigrationContext {
  /** Absolute path of the segment directory. */
  segmentsDir: string;
}
