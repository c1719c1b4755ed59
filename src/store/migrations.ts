/**
 * Schema migrations, in order. A migration is applied once, in its own transaction, and recorded in
 * `schema_migrations`; never edit one that has shipped — add the next.
 *
 * Conventions: ids are UUID; times are TIMESTAMP in UTC; every tenant-owned row carries tenant_id
 * (and app_id / environment_id where it belongs to one). No foreign keys: DuckDB checks them eagerly
 * and they would make the cascading deletes of environments and apps harder, not safer.
 * The span table's columns must stay in the order of `spanColumns.ts` (a test checks it).
 */
import { SCORE_MIGRATIONS } from './scoreMigrations.js';
import { PARTS_FROM_SPANS_SQL } from './traceParts.js';

export interface Migration {
  version: number;
  name: string;
  sql: string[];
}

const BASE_MIGRATIONS: readonly Migration[] = [
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
    version: 2,
    name: 'spans (hot table) and content-addressed blobs',
    sql: [
      `CREATE TABLE spans (
         tenant_id UUID,
         app_id UUID,
         environment_id UUID,
         trace_id VARCHAR,
         span_id VARCHAR,
         parent_id VARCHAR,
         name VARCHAR,
         type VARCHAR,
         span_kind VARCHAR,
         status VARCHAR,
         status_message VARCHAR,
         start_ns BIGINT,
         end_ns BIGINT,
         model VARCHAR,
         prompt_name VARCHAR,
         service_name VARCHAR,
         input_tokens INTEGER,
         output_tokens INTEGER,
         cached_input_tokens INTEGER,
         tokens INTEGER,
         cost DOUBLE,
         input_preview VARCHAR,
         output_preview VARCHAR,
         input VARCHAR,
         output VARCHAR,
         input_ref VARCHAR,
         output_ref VARCHAR,
         session_id VARCHAR,
         user_id VARCHAR,
         run_id VARCHAR,
         tags VARCHAR[],
         metadata VARCHAR,
         graph VARCHAR,
         attributes VARCHAR,
         resource VARCHAR,
         scope_name VARCHAR,
         scope_version VARCHAR
       )`,
      // Trace reads and the idempotency check look spans up by trace id.
      'CREATE INDEX spans_trace_id ON spans (trace_id)',
      `CREATE TABLE blobs (
         tenant_id UUID NOT NULL,
         app_id UUID NOT NULL,
         sha256 VARCHAR NOT NULL,
         media_type VARCHAR NOT NULL,
         bytes BIGINT NOT NULL,
         data BLOB NOT NULL,
         created_at TIMESTAMP NOT NULL DEFAULT (now()::TIMESTAMP),
         PRIMARY KEY (tenant_id, app_id, sha256)
       )`,
    ],
  },
  {
    version: 3,
    name: 'per-trace summary parts, backfilled from stored spans',
    sql: [
      `CREATE TABLE trace_parts (
         tenant_id UUID,
         app_id UUID,
         environment_id UUID,
         trace_id VARCHAR,
         start_ns BIGINT,
         end_ns BIGINT,
         best_r INTEGER,
         best_s BIGINT,
         best_name VARCHAR,
         best_input_preview VARCHAR,
         best_output_preview VARCHAR,
         cost DOUBLE,
         tokens DOUBLE,
         span_count INTEGER,
         has_error INTEGER,
         has_ok INTEGER,
         tags VARCHAR[],
         session_id VARCHAR,
         user_id VARCHAR
       )`,
      PARTS_FROM_SPANS_SQL,
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
    version: 5,
    name: 'index summary parts by trace id (a trace read merges its own parts)',
    sql: ['CREATE INDEX trace_parts_trace_id ON trace_parts (trace_id)'],
  },
];

/** Every migration; each feature's own list keeps to its range of versions. */
export const MIGRATIONS: readonly Migration[] = [...BASE_MIGRATIONS, ...SCORE_MIGRATIONS];
