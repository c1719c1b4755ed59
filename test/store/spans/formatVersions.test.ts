/**
 * `spansFrom` chooses its reader by each file's format version: format-2 files as they are,
 * format-1 files (no `attributes_in_columns`) with the column as null, a list of both by column
 * name, and a version it does not know refused. Run on DuckDB over real Parquet files.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DuckDBInstance } from '@duckdb/node-api';
import t from 'tap';
import { SPAN_COLUMNS, SQL_TYPE } from '../../../src/store/spans/columns.js';
import { spansFrom } from '../../../src/store/spans/manifest.js';
import { SEGMENT_COPY_OPTIONS } from '../../../src/store/spans/segmentFormat.js';

t.test('files of format 1, format 2 and both read with the same columns', async (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'tracelake-formats-'));
  t.teardown(() => rmSync(dir, { recursive: true, force: true }));
  const c = await (await DuckDBInstance.create(':memory:')).connect();
  await c.run(
    `CREATE TABLE span_schema (${SPAN_COLUMNS.map(([name, kind]) => `${name} ${SQL_TYPE[kind]}`).join(', ')})`,
  );
  const v1 = join(dir, 'v1.parquet');
  const v2 = join(dir, 'v2.parquet');
  // Format 1: the attributes whole, no attributes_in_columns column.
  await c.run(
    `COPY (SELECT * EXCLUDE (attributes_in_columns) REPLACE ('s1' AS span_id, 's-1' AS session_id, '{"session.id":"s-1"}' AS attributes) FROM (SELECT NULL::INTEGER AS x) LEFT JOIN span_schema ON true) TO '${v1}' (${SEGMENT_COPY_OPTIONS})`,
  );
  await c.run(
    `COPY (SELECT * REPLACE ('s2' AS span_id, 's-2' AS session_id, NULL AS attributes, 1 AS attributes_in_columns) FROM (SELECT NULL::INTEGER AS x) LEFT JOIN span_schema ON true) TO '${v2}' (${SEGMENT_COPY_OPTIONS})`,
  );
  const read = async (files: { path: string; formatVersion: number }[]) =>
    (await c.runAndReadAll(`SELECT * FROM ${spansFrom(files)} ORDER BY span_id`))
      .getRowObjectsJson()
      .map((r) => [r.span_id, r.attributes, r.attributes_in_columns]);
  const columns = async (files: { path: string; formatVersion: number }[]) =>
    (await c.runAndReadAll(`DESCRIBE SELECT * FROM ${spansFrom(files)}`)).getRows().map((r) => String(r[0]));

  t.same(await read([{ path: v2, formatVersion: 2 }]), [['s2', null, 1]], 'format 2 as stored');
  t.same(
    await read([{ path: v1, formatVersion: 1 }]),
    [['s1', '{"session.id":"s-1"}', null]],
    'format 1: no key left out',
  );
  t.same(
    await read([
      { path: v1, formatVersion: 1 },
      { path: v2, formatVersion: 2 },
    ]),
    [
      ['s1', '{"session.id":"s-1"}', null],
      ['s2', null, 1],
    ],
    'both, by column name',
  );
  const format = SPAN_COLUMNS.map(([name]) => name);
  for (const files of [
    [{ path: v1, formatVersion: 1 }],
    [{ path: v2, formatVersion: 2 }],
    [
      { path: v1, formatVersion: 1 },
      { path: v2, formatVersion: 2 },
    ],
    [],
  ]) {
    t.same(
      await columns(files),
      format,
      `the format's columns in order (${files.map((f) => f.formatVersion).join(', ') || 'no files'})`,
    );
  }
  t.throws(() => spansFrom([{ path: v2, formatVersion: 3 }]), /segment format 3 is not readable/);
});
