/**
 * Migrations of the span store (versions 2, 3, 5, then 200–299): spans, blobs, summary parts.
 * The span table's columns must stay in the order of `columns.ts` (a test checks it).
 */
import type { Migration } from '../migration.js';
import { PARTS_FROM_SPANS_SQL } from './traceParts.js';

export const SPAN_MIGRATIONS: readonly Migration[] = [
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
    version: 5,
    name: 'index summary parts by trace id (a trace read merges its own parts)',
    sql: ['CREATE INDEX trace_parts_trace_id ON trace_parts (trace_id)'],
  },
];
