/**
 * Migrations of the span store (versions 2, 3, 5, then 200–299): spans, blobs, summary parts, the
 * segment manifest. Since 201 spans live in Parquet segments; the `span_schema` table (the old
 * `spans` table, empty) keeps their columns in the order of `columns.ts` (a test checks it).
 */
import { DuckDBBitValue } from '@duckdb/node-api';
import { closeSync, fsyncSync, mkdirSync, openSync, readdirSync, renameSync } from 'node:fs';
import { dirname, join } from 'node:path';
import type { Migration } from '../migration.js';
import { SPAN_COLUMNS, SQL_TYPE } from './columns.js';
import { quote } from './manifest.js';
import { SEGMENT_FORMAT_VERSION } from './segmentFormat.js';
import { LocalSegmentStore } from './segmentStore.js';
import { spanIdFilterSql } from './spanIdFilter.js';
import { ROLLUP_TABLE_SQL } from './rollups.js';
import { PART_COLUMNS, PART_TABLE_SQL, partsOfSpans, sessionKeySql, traceKeySql } from './traceParts.js';

/** The resource id of a row of the spans table as it was before segments (resource and scope were columns). */
const LEGACY_RESOURCE_ID = `hash(coalesce(resource, '') || chr(0) || coalesce(scope_name, '') || chr(0) || coalesce(scope_version, ''))`;

/** Segment columns computed from the spans table as it was before segments. */
const LEGACY_COLUMN: Record<string, string> = {
  input_preview: 'CASE WHEN input IS NULL THEN input_preview END',
  output_preview: 'CASE WHEN output IS NULL THEN output_preview END',
  resource_id: LEGACY_RESOURCE_ID,
  attributes_in_columns: 'NULL::INTEGER',
};

/** The summary parts of migration 3, computed from the spans table as it was then. */
const PARTS_FROM_SPANS_SQL = `
  INSERT INTO trace_parts
  SELECT tenant_id, app_id, any_value(environment_id), trace_id, min(start_ns), max(end_ns),
         arg_min(CASE WHEN parent_id IS NULL THEN 0 ELSE 1 END, {'r': parent_id IS NOT NULL, 's': start_ns}),
         arg_min(start_ns, {'r': parent_id IS NOT NULL, 's': start_ns}),
         arg_min(name, {'r': parent_id IS NOT NULL, 's': start_ns}),
         arg_min(input_preview, {'r': parent_id IS NOT NULL, 's': start_ns}),
         arg_min(output_preview, {'r': parent_id IS NOT NULL, 's': start_ns}),
         coalesce(sum(cost), 0), coalesce(sum(tokens), 0)::DOUBLE,
         (count(*) FILTER (WHERE type <> 'EVENT'))::INTEGER,
         bool_or(status = 'ERROR')::INTEGER, bool_or(status = 'OK')::INTEGER,
         list_distinct(flatten(list(coalesce(tags, [])))),
         any_value(session_id) FILTER (WHERE session_id IS NOT NULL),
         any_value(user_id) FILTER (WHERE user_id IS NOT NULL)
    FROM spans GROUP BY tenant_id, app_id, trace_id`;

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
  {
    version: 200,
    name: 'segment manifest, summary parts with a sequence, merged trace summaries',
    sql: [
      'CREATE SEQUENCE segment_ids START 1',
      `CREATE TABLE segments (
         id BIGINT PRIMARY KEY DEFAULT nextval('segment_ids'),
         tenant_id UUID NOT NULL,
         app_id UUID NOT NULL,
         environment_id UUID,
         date DATE NOT NULL,
         path VARCHAR NOT NULL UNIQUE,
         level INTEGER NOT NULL,
         format_version INTEGER NOT NULL,
         rows BIGINT NOT NULL,
         bytes BIGINT NOT NULL,
         min_start_ns BIGINT NOT NULL,
         max_start_ns BIGINT NOT NULL,
         created_at TIMESTAMP NOT NULL DEFAULT (now()::TIMESTAMP),
         replaced_at TIMESTAMP
       )`,
      'CREATE TABLE committed_logs (name VARCHAR PRIMARY KEY, committed_at TIMESTAMP NOT NULL DEFAULT (now()::TIMESTAMP))',
      'DROP INDEX trace_parts_trace_id',
      'DROP TABLE trace_parts',
      'CREATE SEQUENCE trace_part_seq START 1',
      `CREATE TABLE trace_parts (${PART_TABLE_SQL}, seq BIGINT NOT NULL DEFAULT nextval('trace_part_seq'))`,
      `CREATE TABLE traces (${PART_TABLE_SQL})`,
      // A trace read by id finds its merged row through this instead of a scan (native-bench/RESULTS.md,
      // "Figures behind the code").
      'CREATE INDEX traces_trace_id ON traces (trace_id)',
      `CREATE TABLE resources (
         tenant_id UUID NOT NULL,
         app_id UUID NOT NULL,
         resource_id UBIGINT NOT NULL,
         resource VARCHAR,
         scope_name VARCHAR,
         scope_version VARCHAR,
         PRIMARY KEY (tenant_id, app_id, resource_id)
       )`,
      // Rebuilt from the spans (the old parts had no run id); the next merge folds them into traces.
      `INSERT INTO trace_parts (${PART_COLUMNS.join(', ')}) ${partsOfSpans('spans')}`,
    ],
  },
  {
    version: 201,
    name: 'spans move from the DuckDB table into Parquet segments',
    sql: [],
    async apply(tx, { segmentsDir }) {
      const [{ n } = { n: 0 }] = await tx.query<{ n: number }>('SELECT count(*)::INTEGER AS n FROM spans');
      if (n > 0) {
        // One sorted file per tenant, app and day, written by DuckDB's partitioned COPY into the
        // temporary directory (a crash leaves nothing the manifest names: the next start clears
        // it), then moved into the Hive layout; the manifest rows are read back from the files.
        const staging = join(segmentsDir, '.tmp', 'migrating');
        await tx.exec(
          `INSERT INTO resources (tenant_id, app_id, resource_id, resource, scope_name, scope_version)
           SELECT DISTINCT tenant_id, app_id, ${LEGACY_RESOURCE_ID}, resource, scope_name, scope_version FROM spans ON CONFLICT DO NOTHING`,
        );
        await tx.exec(
          `COPY (SELECT ${SPAN_COLUMNS.map(([name]) => `${LEGACY_COLUMN[name] ?? name} AS ${name}`).join(', ')},
                        tenant_id AS tenant, app_id AS app, strftime(make_timestamp(start_ns // 1000), '%Y-%m-%d') AS date
                   FROM spans ORDER BY start_ns, trace_id, span_id)
             TO ${quote(staging)} (FORMAT parquet, COMPRESSION zstd, PARTITION_BY (tenant, app, date),
                                   FILENAME_PATTERN 'migrated-{uuid}', ROW_GROUP_SIZE 16384,
                                   KV_METADATA {tracelake_format: '${SEGMENT_FORMAT_VERSION}'})`,
        );
        for (const file of readdirSync(staging, { recursive: true })
          .map(String)
          .filter((f) => f.endsWith('.parquet'))) {
          const target = join(segmentsDir, file);
          mkdirSync(dirname(target), { recursive: true });
          fsyncFile(join(staging, file));
          renameSync(join(staging, file), target);
          fsyncFile(dirname(target));
        }
        const root = segmentsDir.endsWith('/') ? segmentsDir : `${segmentsDir}/`;
        const files = quote(`${root}tenant=*/app=*/date=*/migrated-*.parquet`);
        await tx.exec(
          `INSERT INTO segments (tenant_id, app_id, environment_id, date, path, level, format_version, rows, bytes, min_start_ns, max_start_ns)
           SELECT f.tenant_id, f.app_id, f.environment_id, f.date, replace(f.filename, ${quote(root)}, ''), 1, ${SEGMENT_FORMAT_VERSION},
                  f.rows, b.size, f.min_start_ns, f.max_start_ns
             FROM (SELECT filename, any_value(tenant_id) AS tenant_id, any_value(app_id) AS app_id,
                          CASE WHEN count(DISTINCT environment_id) = 1 THEN any_value(environment_id) END AS environment_id,
                          strftime(make_timestamp(min(start_ns) // 1000), '%Y-%m-%d')::DATE AS date,
                          count(*) AS rows, min(start_ns) AS min_start_ns, max(start_ns) AS max_start_ns
                     FROM read_parquet(${files}, filename = true, hive_partitioning = false) GROUP BY filename) f
             JOIN read_blob(${files}) b ON b.filename = f.filename`,
        );
      }
      // An empty table of the segment columns stands for the spans of an empty file list.
      await tx.exec('DROP INDEX spans_trace_id');
      await tx.exec('DROP TABLE spans');
      await tx.exec(
        `CREATE TABLE span_schema (${SPAN_COLUMNS.map(([name, kind]) => `${name} ${SQL_TYPE[kind]}`).join(', ')})`,
      );
    },
  },
  {
    version: 202,
    name: 'blob references per environment (an environment-pinned reader reads the blobs of its own spans only)',
    sql: [
      `CREATE TABLE blob_refs (
         tenant_id UUID NOT NULL, app_id UUID NOT NULL, environment_id UUID NOT NULL, sha256 VARCHAR NOT NULL,
         PRIMARY KEY (tenant_id, app_id, environment_id, sha256)
       )`,
    ],
    async apply(tx, { segmentsDir }) {
      // Which environments name each stored blob: read once from the live segments' ref columns.
      const files = await tx.query<{ path: string }>('SELECT path FROM segments WHERE replaced_at IS NULL');
      if (files.length === 0) return;
      const list = `[${files.map((f) => quote(join(segmentsDir, f.path))).join(', ')}]`;
      await tx.exec(
        `INSERT INTO blob_refs
         SELECT DISTINCT tenant_id, app_id, environment_id, ref
           FROM (SELECT tenant_id, app_id, environment_id, unnest([input_ref, output_ref]) AS ref
                   FROM read_parquet(${list}, hive_partitioning = false))
          WHERE ref IS NOT NULL
         ON CONFLICT DO NOTHING`,
      );
    },
  },
  {
    version: 203,
    name: "trace summaries keep the root span's metadata (trace filters on metadata.<key> test the trace's own)",
    sql: [],
    async apply(tx, { segmentsDir }) {
      // Migration 200 builds the summary tables from today's PART_TABLE_SQL: a store created since
      // has the column already. An older one gets both tables rebuilt, so the column sits where a
      // new store has it (the appender writes parts by position) — before `seq`.
      const [has] = await tx.query<{ n: number }>(
        "SELECT count(*)::INTEGER AS n FROM duckdb_columns() WHERE table_name = 'traces' AND column_name = 'best_metadata'",
      );
      if ((has?.n ?? 0) > 0) return;
      // The generation's columns come with 207's PART_TABLE_SQL, which this one builds from too.
      const old = PART_COLUMNS.filter((c) => c !== 'best_metadata' && !c.startsWith('gen_')).join(', ');
      await tx.exec(
        `CREATE TABLE trace_parts_203 (${PART_TABLE_SQL}, seq BIGINT NOT NULL DEFAULT nextval('trace_part_seq'))`,
      );
      await tx.exec(`INSERT INTO trace_parts_203 (${old}, seq) SELECT ${old}, seq FROM trace_parts`);
      await tx.exec('DROP TABLE trace_parts');
      await tx.exec('ALTER TABLE trace_parts_203 RENAME TO trace_parts');
      await tx.exec(`CREATE TABLE traces_203 (${PART_TABLE_SQL})`);
      await tx.exec(`INSERT INTO traces_203 (${old}) SELECT ${old} FROM traces`);
      await tx.exec('DROP INDEX traces_trace_id');
      await tx.exec('DROP TABLE traces');
      await tx.exec('ALTER TABLE traces_203 RENAME TO traces');
      await tx.exec('CREATE INDEX traces_trace_id ON traces (trace_id)');
      // Each trace's root metadata, read once from the live segments, given to its row and parts
      // alike (merging then picks it whichever candidate wins).
      const files = await tx.query<{ path: string }>('SELECT path FROM segments WHERE replaced_at IS NULL');
      if (files.length === 0) return;
      const list = `[${files.map((f) => quote(join(segmentsDir, f.path))).join(', ')}]`;
      await tx.exec(
        `CREATE TEMP TABLE root_metadata AS
         SELECT tenant_id, app_id, environment_id, trace_id,
                arg_min_null(metadata, {'r': parent_id IS NOT NULL, 's': start_ns}) AS metadata
           FROM read_parquet(${list}, hive_partitioning = false) GROUP BY ALL`,
      );
      for (const table of ['traces', 'trace_parts']) {
        await tx.exec(
          `UPDATE ${table} SET best_metadata = m.metadata FROM root_metadata m
            WHERE ${table}.tenant_id = m.tenant_id AND ${table}.app_id = m.app_id
              AND ${table}.environment_id = m.environment_id AND ${table}.trace_id = m.trace_id`,
        );
      }
      await tx.exec('DROP TABLE root_metadata');
    },
  },
  {
    version: 204,
    name: 'trace summaries found by a 64-bit key column instead of an index on the trace id (the index and its free blocks were most of the file)',
    sql: [
      // DuckDB alters no table that an index depends on: the index goes first.
      'DROP INDEX IF EXISTS traces_trace_id',
      'ALTER TABLE traces ADD COLUMN trace_key UBIGINT',
      `UPDATE traces SET trace_key = ${traceKeySql('trace_id')}`,
    ],
  },
  {
    version: 205,
    name: 'segment format 2: attributes a column holds are stored once (attributes_in_columns)',
    // A store that ran 201 with this version has the column already.
    sql: ['ALTER TABLE span_schema ADD COLUMN IF NOT EXISTS attributes_in_columns INTEGER'],
  },
  {
    version: 206,
    name: 'compacted segments get a span id filter (a span by id without its trace reads only the files that may hold it)',
    sql: ['ALTER TABLE segments ADD COLUMN span_filter BIT'],
    async apply(tx, { segmentsDir }) {
      // Ingested (level 0) files are compacted within minutes and have none; compacted ones are read
      // once each here (native-bench/RESULTS.md, "spanIdFilter").
      const files = await tx.query<{ id: number; path: string; rows: number }>(
        'SELECT id::DOUBLE AS id, path, rows::DOUBLE AS rows FROM segments WHERE replaced_at IS NULL AND level > 0 ORDER BY id',
      );
      for (const f of files) {
        const relation = `read_parquet(${quote(join(segmentsDir, f.path))}, hive_partitioning = false)`;
        await tx.exec(`UPDATE segments SET span_filter = (${spanIdFilterSql(relation, f.rows)}) WHERE id = $1`, [
          Math.trunc(f.id),
        ]);
      }
    },
  },
  {
    version: 207,
    name: "trace summaries keep their earliest generation's previews (the trace's preview when its root has none)",
    sql: [],
    async apply(tx) {
      // As in 203: a store created since has the columns; an older one gets `trace_parts` rebuilt so
      // they sit where a new store has them (the appender writes parts by position), before `seq`.
      // `traces` is written by name: its columns are added. Existing summaries keep none (their
      // generations' previews are not read back from the segments): new parts bring them.
      const [has] = await tx.query<{ n: number }>(
        "SELECT count(*)::INTEGER AS n FROM duckdb_columns() WHERE table_name = 'trace_parts' AND column_name = 'gen_s'",
      );
      if ((has?.n ?? 0) > 0) return;
      const old = PART_COLUMNS.filter((c) => !c.startsWith('gen_')).join(', ');
      await tx.exec(
        `CREATE TABLE trace_parts_207 (${PART_TABLE_SQL}, seq BIGINT NOT NULL DEFAULT nextval('trace_part_seq'))`,
      );
      await tx.exec(`INSERT INTO trace_parts_207 (${old}, seq) SELECT ${old}, seq FROM trace_parts`);
      await tx.exec('DROP TABLE trace_parts');
      await tx.exec('ALTER TABLE trace_parts_207 RENAME TO trace_parts');
      for (const column of ['gen_s BIGINT', 'gen_input_preview VARCHAR', 'gen_output_preview VARCHAR'])
        await tx.exec(`ALTER TABLE traces ADD COLUMN ${column}`);
    },
  },
  {
    version: 208,
    name: "a session's traces found by a 64-bit key column (comparing every summary's session id was most of a session's read in a large store)",
    sql: [
      'ALTER TABLE traces ADD COLUMN session_key UBIGINT',
      `UPDATE traces SET session_key = ${sessionKeySql('session_id')}`,
    ],
  },
  {
    version: 209,
    name: 'span rollups by hour (metrics over a month read a few thousand rows, not every span)',
    // Existing compacted files are rolled up by the store's background work, one a tick.
    // No DEFAULT: under a locked configuration DuckDB refuses to add a column with one. NULL is "not yet".
    sql: [ROLLUP_TABLE_SQL, 'ALTER TABLE segments ADD COLUMN rolled_up BOOLEAN'],
  },
  {
    version: 210,
    name: 'span id filters move from the manifest to a file beside each segment (DuckDB rewrote their row group at every checkpoint after a segment was added)',
    sql: [],
    async apply(tx, { segmentsDir }) {
      const store = new LocalSegmentStore(segmentsDir);
      // DuckDB hands a BIT over as its text; the filter's file holds DuckDB's bytes of it.
      const files = await tx.query<{ path: string; filter: string }>(
        'SELECT path, span_filter::VARCHAR AS filter FROM segments WHERE replaced_at IS NULL AND span_filter IS NOT NULL',
      );
      for (const f of files) await store.writeSpanFilter(f.path, DuckDBBitValue.fromString(f.filter).data);
      await tx.exec('ALTER TABLE segments DROP COLUMN span_filter');
    },
  },
];

function fsyncFile(path: string): void {
  const fd = openSync(path, 'r');
  try {
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
}
