/**
 * Migrations of the administration tables (versions 1–99 that are not the span store's): tenants,
 * apps, environments, API keys, and the usage counters behind plan quotas.
 */
import type { Migration } from '../migration.js';

export const ADMIN_MIGRATIONS: readonly Migration[] = [
  {
    version: 1,
    name: 'metadata: tenants, apps, environments, api keys',
    sql: [
      `CREATE TABLE tenants (
         id UUID PRIMARY KEY,
         name VARCHAR NOT NULL,
         plan VARCHAR NOT NULL DEFAULT 'self_hosted',
         created_at TIMESTAMP NOT NULL DEFAULT (now()::TIMESTAMP)
       )`,
      `CREATE TABLE apps (
         id UUID PRIMARY KEY,
         tenant_id UUID NOT NULL,
         name VARCHAR NOT NULL,
         display_name VARCHAR,
         entry_point VARCHAR,
         runtime VARCHAR NOT NULL DEFAULT 'nodejs',
         commit_sha VARCHAR,
         runtime_app_name VARCHAR,
         runtime_machine_id VARCHAR,
         created_at TIMESTAMP NOT NULL DEFAULT (now()::TIMESTAMP),
         created_by VARCHAR,
         updated_at TIMESTAMP NOT NULL DEFAULT (now()::TIMESTAMP),
         updated_by VARCHAR,
         UNIQUE (tenant_id, name)
       )`,
      `CREATE TABLE environments (
         id UUID PRIMARY KEY,
         tenant_id UUID NOT NULL,
         app_id UUID NOT NULL,
         name VARCHAR NOT NULL,
         kind VARCHAR NOT NULL CHECK (kind IN ('development', 'preview', 'production')),
         is_default BOOLEAN NOT NULL DEFAULT false,
         created_at TIMESTAMP NOT NULL DEFAULT (now()::TIMESTAMP),
         updated_at TIMESTAMP NOT NULL DEFAULT (now()::TIMESTAMP),
         UNIQUE (app_id, name)
       )`,
      `CREATE TABLE api_keys (
         id UUID PRIMARY KEY,
         tenant_id UUID NOT NULL,
         app_id UUID NOT NULL,
         environment_id UUID,
         allowed_kinds VARCHAR[],
         name VARCHAR NOT NULL,
         key_hash VARCHAR NOT NULL UNIQUE,
         key_prefix VARCHAR NOT NULL,
         role VARCHAR NOT NULL,
         permissions VARCHAR[] NOT NULL,
         created_at TIMESTAMP NOT NULL DEFAULT (now()::TIMESTAMP),
         created_by VARCHAR,
         expires_at TIMESTAMP,
         last_used_at TIMESTAMP,
         revoked_at TIMESTAMP
       )`,
    ],
  },
  {
    version: 4,
    name: 'tenant usage for plan quotas, backfilled from stored spans',
    sql: [
      `CREATE TABLE tenant_usage (
         tenant_id UUID NOT NULL,
         month VARCHAR NOT NULL,
         spans BIGINT NOT NULL,
         bytes BIGINT NOT NULL,
         PRIMARY KEY (tenant_id, month)
       )`,
      `INSERT INTO tenant_usage
       SELECT tenant_id, strftime(make_timestamp(start_ns // 1000), '%Y-%m'), count(*),
              sum(200 + coalesce(length(input), 0) + coalesce(length(output), 0) + coalesce(length(attributes), 0) + coalesce(length(metadata), 0))
         FROM spans GROUP BY ALL`,
    ],
  },
  {
    version: 6,
    name: 'app settings: retention of their spans in days (no row or null: the server default)',
    // A table of its own, not a column added to apps: DuckDB 1.5 cannot replay an ALTER TABLE ADD
    // COLUMN of a table with default expressions from its WAL (the store would not open again).
    sql: ['CREATE TABLE app_settings (app_id UUID PRIMARY KEY, tenant_id UUID NOT NULL, retention_days INTEGER)'],
  },
  {
    version: 7,
    name: "store identity: the check value of the store's secret",
    sql: ['CREATE TABLE store_identity (secret_check VARCHAR NOT NULL)'],
  },
];
