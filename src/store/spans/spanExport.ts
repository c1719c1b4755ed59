/**
 * Span exports (`GET /v1/spans?format=parquet|arrow`): every span the filter and window select, in
 * the list's order, written by the store thread to a temporary file that the HTTP layer streams out
 * and deletes. Times are exact nanoseconds (`start_ns`, `end_ns`) and a millisecond timestamp
 * (`start_time`). Parquet is written by DuckDB itself; Arrow IPC (stream format) by `apache-arrow`,
 * one record batch per DuckDB chunk, so memory stays at a chunk whatever the size of the export.
 */
import { randomBytes } from 'node:crypto';
import { createWriteStream, readdirSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import {
  Field,
  Float64,
  Int32,
  List,
  RecordBatch,
  RecordBatchStreamWriter,
  Schema,
  Struct,
  Int64,
  TimestampMillisecond,
  Utf8,
  makeData,
  vectorFromArray,
  type DataType,
} from 'apache-arrow';
import type { DuckDBValue } from '@duckdb/node-api';
import { storeDirs } from '../db.js';
import { PREVIEW_CHARS } from './columns.js';
import { quote, segmentsFor, spansFrom } from './manifest.js';
import { scopeSql, type SpanSource } from './reads.js';
import { SPAN_SORTS, type CompiledFilter, type SearchQuery } from './search.js';

export type ExportFormat = 'parquet' | 'arrow';

export interface ExportFile {
  path: string;
  rows: number;
}

/** The exported columns: name, SQL over the span row `x`, Arrow type, and the SQL for Parquet when it differs. */
const COLUMNS: readonly (readonly [string, string, DataType, string?])[] = [
  ['id', 'x.span_id', new Utf8()],
  ['trace_id', 'x.trace_id', new Utf8()],
  ['parent_id', 'x.parent_id', new Utf8()],
  ['name', 'x.name', new Utf8()],
  ['type', 'x.type', new Utf8()],
  ['span_kind', 'x.span_kind', new Utf8()],
  ['status', 'x.status', new Utf8()],
  ['status_message', 'x.status_message', new Utf8()],
  ['start_ns', 'x.start_ns', new Int64()],
  ['end_ns', 'x.end_ns', new Int64()],
  ['start_time', '(x.start_ns // 1000000)::DOUBLE', new TimestampMillisecond('UTC'), 'make_timestamp(x.start_ns // 1000)'],
  ['duration_ms', '((x.end_ns - x.start_ns) / 1e6)::DOUBLE', new Float64()],
  ['model', 'x.model', new Utf8()],
  ['prompt_name', 'x.prompt_name', new Utf8()],
  ['service_name', 'x.service_name', new Utf8()],
  ['input_tokens', 'x.input_tokens', new Int32()],
  ['output_tokens', 'x.output_tokens', new Int32()],
  ['cached_input_tokens', 'x.cached_input_tokens', new Int32()],
  ['tokens', 'x.tokens', new Int32()],
  ['cost', 'x.cost', new Float64()],
  ['session_id', 'x.session_id', new Utf8()],
  ['user_id', 'x.user_id', new Utf8()],
  ['run_id', 'x.run_id', new Utf8()],
  ['tags', 'coalesce(x.tags, [])', new List(new Field('item', new Utf8(), true))],
  ['input_preview', `coalesce(x.input_preview, left(x.input, ${PREVIEW_CHARS}))`, new Utf8()],
  ['output_preview', `coalesce(x.output_preview, left(x.output, ${PREVIEW_CHARS}))`, new Utf8()],
  ['metadata', 'x.metadata', new Utf8()],
  ['environment_id', 'x.environment_id::VARCHAR', new Utf8()],
];

export async function exportSpans(src: SpanSource, q: SearchQuery, filter: CompiledFilter, format: ExportFormat, limit: number | null): Promise<ExportFile> {
  const s = scopeSql(q.scope, 'x');
  const n = s.params.length;
  const from = BigInt(Math.trunc(q.fromMs)) * 1_000_000n;
  const to = BigInt(Math.trunc(q.toMs)) * 1_000_000n;
  const params: DuckDBValue[] = [...s.params, from, to, ...(filter.params as DuckDBValue[])];
  const files = await segmentsFor(src.db, src.segments, q.scope, from, to);
  const sort = `${SPAN_SORTS[q.sortBy] ?? SPAN_SORTS.start} ${q.sortOrder === 'asc' ? 'ASC' : 'DESC'} NULLS LAST, x.trace_id, x.span_id`;
  const page = limit === null ? '' : ` LIMIT ${Math.trunc(limit)} OFFSET ${Math.trunc(q.offset)}`;
  const sql = `SELECT ${COLUMNS.map(([name, expr, , parquet]) => `${format === 'parquet' ? (parquet ?? expr) : expr} AS ${name}`).join(', ')}
                 FROM ${spansFrom(files)} x
                WHERE ${s.sql} AND x.start_ns >= $${n + 1} AND x.start_ns < $${n + 2} AND (${filter.sql})
                ORDER BY ${sort}${page}`;
  const path = join(storeDirs(src.db.options.dataDir).tmp, `export-${randomBytes(8).toString('hex')}.${format === 'parquet' ? 'parquet' : 'arrows'}`);
  if (format === 'parquet') {
    await src.db.exec(`COPY (${sql}) TO ${quote(path)} (FORMAT parquet, COMPRESSION zstd)`, params);
    const [row] = await src.db.query<{ n: number }>(`SELECT count(*)::INTEGER AS n FROM read_parquet(${quote(path)})`);
    return { path, rows: row?.n ?? 0 };
  }
  return { path, rows: await writeArrow(src, sql, params, path) };
}

const SCHEMA = new Schema(COLUMNS.map(([name, , type]) => new Field(name, type, true)));

async function writeArrow(src: SpanSource, sql: string, params: DuckDBValue[], path: string): Promise<number> {
  const out = createWriteStream(path);
  const writer = RecordBatchStreamWriter.throughNode();
  const finished = new Promise<void>((resolve, reject) => {
    out.on('finish', resolve);
    out.on('error', reject);
    writer.on('error', reject);
  });
  writer.pipe(out);
  let rows = 0;
  try {
    rows = await src.db.streamColumns(sql, params, (columns) => {
      const children = COLUMNS.map(([, , type], i) => vectorFromArray(columns[i] as unknown[], type).data[0]!);
      const struct = makeData({ type: new Struct(SCHEMA.fields), length: children[0]?.length ?? 0, nullCount: 0, children });
      writer.write(new RecordBatch(SCHEMA, struct));
    });
    // An export with no rows is still a valid stream: the schema, then the end.
    if (rows === 0) writer.write(new RecordBatch(SCHEMA, makeData({ type: new Struct(SCHEMA.fields), length: 0, nullCount: 0, children: COLUMNS.map(([, , type]) => vectorFromArray([], type).data[0]!) })));
  } finally {
    writer.end();
  }
  await finished;
  return rows;
}

/** Export files a crash left in the temporary directory (at start, before anything exports). */
export function removeStaleExports(dataDir: string): void {
  const dir = storeDirs(dataDir).tmp;
  for (const name of readdirSync(dir)) if (name.startsWith('export-')) rmSync(join(dir, name), { force: true });
}
