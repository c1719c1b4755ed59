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
export interface Migration {
  version: number;
  name: string;
  sql: string[];
}
