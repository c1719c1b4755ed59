/**
 * Span exports (`GET /v1/spans?format=parquet|arrow`): every span the filter and window select, in
 * the list's order, written by the store thread to a temporary file that the HTTP layer streams out
 * and deletes. Times are exact nanoseconds (`start_ns`, `end_ns`) and a millisecond timestamp
 * (`start_time`). Parquet is written by DuckDB itself; Arrow IPC (stream format) by `apache-arrow`,
 * one record batch per DuckDB chunk, so memory stays at a chunk whatever the size of the export.
 * `apache-arrow` is loaded at the first Arrow export rather than by every start of the store thread
 * (native-bench/RESULTS.md, "Figures behind the code").
 */
import { randomBytes } from 'node:crypto';
import { createWriteStream, readdirSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import type { DataType } from 'apache-arrow';
import type { DuckDBValue } from '@duckdb/node-api';
import type { Filter } from '../../core/filter/index.js';
import { storeDirs } from '../layout.js';
import { PREVIEW_CHARS } from './columns.js';
import { quote, segmentsFor, spansFrom } from './manifest.js';
import type { SpanSource } from './reads.js';
import { scopeSql } from '../scope.js';
import { filterSql } from '../filterSql.js';
import { SPAN_SORTS, type SearchQuery } from './search.js';

export type ExportFormat = 'parquet' | 'arrow';

export interface ExportFile {
  path: string;
  rows: number;
}

/** Arrow types of the exported columns, by name (apache-arrow makes them once loaded). */
type ArrowType = 'utf8' | 'int32' | 'int64' | 'float64' | 'timestamp_ms' | 'utf8_list';

/** The exported columns: name, SQL over the span row `x`, Arrow type, and the SQL for Parquet when it differs. */
const COLUMNS: readonly (readonly [string, string, ArrowType, string?])[] = [
  ['id', 'x.span_id', 'utf8'],
  ['trace_id', 'x.trace_id', 'utf8'],
  ['parent_id', 'x.parent_id', 'utf8'],
  ['name', 'x.name', 'utf8'],
  ['type', 'x.type', 'utf8'],
  ['span_kind', 'x.span_kind', 'utf8'],
  ['status', 'x.status', 'utf8'],
  ['status_message', 'x.status_message', 'utf8'],
  ['start_ns', 'x.start_ns', 'int64'],
  ['end_ns', 'x.end_ns', 'int64'],
  ['start_time', '(x.start_ns // 1000000)::DOUBLE', 'timestamp_ms', 'make_timestamp(x.start_ns // 1000)'],
  ['duration_ms', '((x.end_ns - x.start_ns) / 1e6)::DOUBLE', 'float64'],
  ['model', 'x.model', 'utf8'],
  ['prompt_name', 'x.prompt_name', 'utf8'],
  ['service_name', 'x.service_name', 'utf8'],
  ['input_tokens', 'x.input_tokens', 'int32'],
  ['output_tokens', 'x.output_tokens', 'int32'],
  ['cached_input_tokens', 'x.cached_input_tokens', 'int32'],
  ['tokens', 'x.tokens', 'int32'],
  ['cost', 'x.cost', 'float64'],
  ['session_id', 'x.session_id', 'utf8'],
  ['user_id', 'x.user_id', 'utf8'],
  ['run_id', 'x.run_id', 'utf8'],
  ['tags', 'coalesce(x.tags, [])', 'utf8_list'],
  ['input_preview', `coalesce(x.input_preview, left(x.input, ${PREVIEW_CHARS}))`, 'utf8'],
  ['output_preview', `coalesce(x.output_preview, left(x.output, ${PREVIEW_CHARS}))`, 'utf8'],
  ['metadata', 'x.metadata', 'utf8'],
  ['environment_id', 'x.environment_id::VARCHAR', 'utf8'],
];

export async function exportSpans(
  src: SpanSource,
  q: SearchQuery,
  filter: Filter,
  format: ExportFormat,
  limit: number | null,
): Promise<ExportFile> {
  const s = scopeSql(q.scope, 'x');
  const n = s.params.length;
  const from = BigInt(Math.trunc(q.fromMs)) * 1_000_000n;
  const to = BigInt(Math.trunc(q.toMs)) * 1_000_000n;
  const params: DuckDBValue[] = [...s.params, from, to];
  const matches = filterSql(filter, 'spans', params);
  const files = await segmentsFor(src.db, src.segments, q.scope, from, to);
  const sort = `${SPAN_SORTS[q.sortBy] ?? SPAN_SORTS.start} ${q.sortOrder === 'asc' ? 'ASC' : 'DESC'} NULLS LAST, x.trace_id, x.span_id`;
  const page = limit === null ? '' : ` LIMIT ${Math.trunc(limit)} OFFSET ${Math.trunc(q.offset)}`;
  const sql = `SELECT ${COLUMNS.map(([name, expr, , parquet]) => `${format === 'parquet' ? (parquet ?? expr) : expr} AS ${name}`).join(', ')}
                 FROM ${spansFrom(files)} x
                WHERE ${s.sql} AND x.start_ns >= $${n + 1} AND x.start_ns < $${n + 2} AND (${matches})
                ORDER BY ${sort}${page}`;
  const path = join(
    storeDirs(src.db.options.dataDir).tmp,
    `export-${randomBytes(8).toString('hex')}.${format === 'parquet' ? 'parquet' : 'arrows'}`,
  );
  if (format === 'parquet') {
    await src.db.exec(`COPY (${sql}) TO ${quote(path)} (FORMAT parquet, COMPRESSION zstd)`, params);
    const [row] = await src.db.query<{ n: number }>(`SELECT count(*)::INTEGER AS n FROM read_parquet(${quote(path)})`);
    return { path, rows: row?.n ?? 0 };
  }
  return { path, rows: await writeArrow(src, sql, params, path) };
}

type Arrow = typeof import('apache-arrow');

/** The export's Arrow types and schema, made once apache-arrow is loaded. */
let arrowSchema: Promise<{ arrow: Arrow; types: DataType[]; schema: InstanceType<Arrow['Schema']> }> | undefined;

function loadArrowSchema() {
  arrowSchema ??= import('apache-arrow').then((arrow) => {
    const make: Record<ArrowType, () => DataType> = {
      utf8: () => new arrow.Utf8(),
      int32: () => new arrow.Int32(),
      int64: () => new arrow.Int64(),
      float64: () => new arrow.Float64(),
      timestamp_ms: () => new arrow.TimestampMillisecond('UTC'),
      utf8_list: () => new arrow.List(new arrow.Field('item', new arrow.Utf8(), true)),
    };
    const types = COLUMNS.map(([, , type]) => make[type]());
    return {
      arrow,
      types,
      schema: new arrow.Schema(COLUMNS.map(([name], i) => new arrow.Field(name, types[i]!, true))),
    };
  });
  return arrowSchema;
}

async function writeArrow(src: SpanSource, sql: string, params: DuckDBValue[], path: string): Promise<number> {
  const { arrow, types, schema } = await loadArrowSchema();
  const batch = (children: ReturnType<typeof arrow.makeData>[], length: number) =>
    new arrow.RecordBatch(
      schema,
      arrow.makeData({ type: new arrow.Struct(schema.fields), length, nullCount: 0, children }),
    );
  const out = createWriteStream(path);
  const writer = arrow.RecordBatchStreamWriter.throughNode();
  // A write that fails (a full disk) is noted at once and ends the stream at its next chunk: left
  // as a rejection nobody awaits yet, it ended the thread with DuckDB's stream still open, which
  // aborts the process.
  let failure: unknown;
  const finished = new Promise<void>((resolve, reject) => {
    const fail = (err: unknown) => {
      failure ??= err;
      reject(err);
    };
    out.on('finish', resolve);
    out.on('error', fail);
    writer.on('error', fail);
  });
  finished.catch(() => {});
  writer.pipe(out);
  let rows = 0;
  try {
    rows = await src.db.streamColumns(sql, params, (columns) => {
      if (failure !== undefined) throw failure;
      const children = types.map((type, i) => arrow.vectorFromArray(columns[i] as unknown[], type).data[0]!);
      writer.write(batch(children, children[0]?.length ?? 0));
    });
    // An export with no rows is still a valid stream: the schema, then the end.
    if (rows === 0)
      writer.write(
        batch(
          types.map((type) => arrow.vectorFromArray([], type).data[0]!),
          0,
        ),
      );
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
