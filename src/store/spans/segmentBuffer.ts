/**
 * Span rows on their way to a Parquet segment, held in a compute worker's own DuckDB (`:memory:`,
 * one thread). Each request's rows go into DuckDB vectors once, as they arrive (a data chunk
 * appended to the table of their cell); writing a segment is then a `COPY … TO` that runs
 * entirely inside DuckDB, off the worker's JavaScript thread, and drops the table.
 *
 * A cell is one environment of one app and one day (see ingest/workerIngest.ts); the scope columns
 * are constants of the COPY, not values per row. (A JS table function feeding `COPY` was measured
 * as fast, but it holds a libuv thread while it calls back into JavaScript, and a worker
 * terminated during such a call aborts the process.)
 */
import { BIGINT, DOUBLE, DuckDBDataChunk, DuckDBInstance, ENUM, INTEGER, LIST, listValue, UBIGINT, VARCHAR, type DuckDBAppender, type DuckDBConnection, type DuckDBType } from '@duckdb/node-api';
import { BUFFER_SQL_TYPE, ENUM_VALUES, SPAN_COLUMNS, type ColumnKind, type SpanRow } from './columns.js';
import { SEGMENT_FORMAT_VERSION } from './segmentFormat.js';

const TYPES: Record<Exclude<ColumnKind, 'uuid'>, DuckDBType> = {
  text: VARCHAR,
  bigint: BIGINT,
  ubigint: UBIGINT,
  int: INTEGER,
  double: DOUBLE,
  text_list: LIST(VARCHAR),
  type_enum: ENUM([...ENUM_VALUES.type_enum]),
  kind_enum: ENUM([...ENUM_VALUES.kind_enum]),
  status_enum: ENUM([...ENUM_VALUES.status_enum]),
};

/** Row values from this column on are per row; the ones before are the scope (constants). */
const FIRST_ROW_COLUMN = 3;
const ROW_COLUMNS = SPAN_COLUMNS.slice(FIRST_ROW_COLUMN) as readonly (readonly [string, Exclude<ColumnKind, 'uuid'>])[];
const CHUNK = 2048;
const START = SPAN_COLUMNS.findIndex(([name]) => name === 'start_ns');

/** Rows per Parquet row group: small enough that a trace read touches one, large enough to compress. */
export const ROW_GROUP_ROWS = 16_384;

export interface SegmentScope {
  tenantId: string;
  appId: string;
  environmentId: string;
}

export interface WrittenSegment {
  rows: number;
  minStartNs: bigint;
  maxStartNs: bigint;
}

/** The rows of one cell, in a table of the worker's DuckDB, until written. */
export class BufferedCell {
  rows = 0;
  minStartNs: bigint | null = null;
  maxStartNs: bigint | null = null;

  private open = true;

  constructor(
    readonly table: string,
    private readonly appender: DuckDBAppender,
  ) {}

  appendChunk(chunk: DuckDBDataChunk): void {
    this.appender.appendDataChunk(chunk);
  }

  /** Flushes what was appended into the table; the cell takes no more rows. */
  close(): void {
    if (!this.open) return;
    this.open = false;
    this.appender.closeSync();
  }
}

export class SegmentBuffer {
  private readonly chunk = DuckDBDataChunk.create(ROW_COLUMNS.map(([, kind]) => TYPES[kind]), CHUNK);
  private nextTable = 1;

  private constructor(
    private readonly instance: DuckDBInstance,
    private readonly connection: DuckDBConnection,
  ) {}

  /** `writableDir` is the only directory this DuckDB may write (the segment store's root). */
  static async open(writableDir: string): Promise<SegmentBuffer> {
    const instance = await DuckDBInstance.create(':memory:', {
      threads: '1',
      memory_limit: '1GiB',
      autoinstall_known_extensions: 'false',
      autoload_known_extensions: 'false',
    });
    const connection = await instance.connect();
    await connection.run(`SET allowed_directories = [${quote(writableDir.endsWith('/') ? writableDir : `${writableDir}/`)}]`);
    await connection.run('SET enable_external_access = false');
    await connection.run('SET lock_configuration = true');
    return new SegmentBuffer(instance, connection);
  }

  /** A new, empty cell. */
  async cell(): Promise<BufferedCell> {
    const table = `cell_${this.nextTable++}`;
    await this.connection.run(`CREATE TABLE ${table} (${ROW_COLUMNS.map(([name, kind]) => `${name} ${BUFFER_SQL_TYPE[kind]}`).join(', ')})`);
    return new BufferedCell(table, await this.connection.createAppender(table));
  }

  /** Adds rows to a cell: their values go into DuckDB vectors now, on this thread. */
  append(cell: BufferedCell, rows: readonly SpanRow[]): void {
    for (let at = 0; at < rows.length; at += CHUNK) {
      const n = Math.min(CHUNK, rows.length - at);
      this.chunk.reset();
      this.chunk.rowCount = n;
      for (let c = 0; c < ROW_COLUMNS.length; c++) {
        const vector = this.chunk.getColumnVector(c);
        const column = c + FIRST_ROW_COLUMN;
        if (ROW_COLUMNS[c]![1] === 'text_list') {
          for (let r = 0; r < n; r++) {
            const list = rows[at + r]![column] as string[] | null;
            vector.setItem(r, list && list.length > 0 ? listValue(list) : null);
          }
        } else {
          for (let r = 0; r < n; r++) vector.setItem(r, (rows[at + r]![column] ?? null) as never);
        }
        vector.flush();
      }
      cell.appendChunk(this.chunk);
    }
    for (const row of rows) {
      const s = row[START] as bigint;
      if (cell.minStartNs === null || s < cell.minStartNs) cell.minStartNs = s;
      if (cell.maxStartNs === null || s > cell.maxStartNs) cell.maxStartNs = s;
    }
    cell.rows += rows.length;
  }

  /**
   * Writes a cell to `path` as one Parquet file, sorted by start time then trace so that time
   * windows and traces prune row groups, and frees it.
   */
  async write(cell: BufferedCell, scope: SegmentScope, path: string): Promise<WrittenSegment> {
    if (cell.rows === 0 || cell.minStartNs === null || cell.maxStartNs === null) throw new Error('a segment needs at least one row');
    cell.close();
    await this.connection.run(
      `COPY (SELECT ${quote(scope.tenantId)}::UUID AS tenant_id, ${quote(scope.appId)}::UUID AS app_id,
                    ${quote(scope.environmentId)}::UUID AS environment_id, *
               FROM ${cell.table} ORDER BY start_ns, trace_id, span_id)
         TO ${quote(path)} (FORMAT parquet, COMPRESSION zstd, ROW_GROUP_SIZE ${ROW_GROUP_ROWS},
                            KV_METADATA {tracelake_format: '${SEGMENT_FORMAT_VERSION}'})`,
    );
    await this.drop(cell);
    return { rows: cell.rows, minStartNs: cell.minStartNs, maxStartNs: cell.maxStartNs };
  }

  /**
   * Closes the worker's DuckDB. Call before the worker thread ends: a thread terminated with a
   * DuckDB instance still open can abort the process.
   */
  close(): void {
    this.connection.closeSync();
    this.instance.closeSync();
  }

  /** Frees a cell without writing it. */
  async drop(cell: BufferedCell): Promise<void> {
    cell.close();
    await this.connection.run(`DROP TABLE IF EXISTS ${cell.table}`);
  }
}

function quote(text: string): string {
  return `'${text.replaceAll("'", "''")}'`;
}
