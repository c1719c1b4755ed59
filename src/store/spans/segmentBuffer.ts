/**
 * Span rows on their way to a Parquet segment, held in a compute thread's own DuckDB (`:memory:`,
 * one thread). Each request's rows go into DuckDB vectors once, as they arrive (a data chunk
 * appended to the table of their cell); writing a segment is then a `COPY … TO` that runs
 * entirely inside DuckDB, off the worker's JavaScript thread, and drops the table.
 *
 * A cell is one environment of one app and one day (see ingest/computeIngest.ts); the scope columns
 * are constants of the COPY, not values per row. (A JS table function feeding `COPY` is as fast,
 * but it holds a libuv thread while it calls back into JavaScript, and a worker
 * terminated during such a call aborts the process.)
 *
 * Records keep arriving while a generation is written, so the buffer's statements overlap. Closing
 * an appender (its flush) while other statements were in flight on its connection failed with
 * "Attempting to execute an unsuccessful or closed pending query result", and a replayed
 * generation's write was lost to it (the CI run of 38480b5; test/store/spans/segmentBuffer). So each
 * cell has a connection of its own, where its table is made, appended to and closed; the shared
 * connection runs only the writes' `COPY` and `DROP`, whole statements that DuckDB takes one after
 * another (the test overlaps them too).
 */
import type { DuckDBAppender, DuckDBConnection, DuckDBType } from '@duckdb/node-api';
import {
  bindings,
  BIGINT,
  DOUBLE,
  DuckDBDataChunk,
  ENUM,
  INTEGER,
  LIST,
  listValue,
  UBIGINT,
  VARCHAR,
} from '../duckdb.js';
import { BUFFER_SQL_TYPE, ENUM_VALUES, SPAN_COLUMNS, type ColumnKind, type SpanRow } from './columns.js';
import { FileEngine } from './fileEngine.js';
import { INGEST_SEGMENT_COPY_OPTIONS } from './segmentFormat.js';

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

const WIDTH: Record<Exclude<ColumnKind, 'uuid' | 'text' | 'text_list'>, number> = {
  bigint: 8,
  ubigint: 8,
  int: 4,
  double: 8,
  type_enum: 1,
  kind_enum: 1,
  status_enum: 1,
};
const ENUM_INDEX = Object.fromEntries(
  Object.entries(ENUM_VALUES).map(([kind, values]) => [kind, new Map(values.map((v, i) => [v, i]))]),
) as Record<keyof typeof ENUM_VALUES, Map<string, number>>;

function writeFixed(view: DataView, r: number, kind: ColumnKind, v: number | bigint | string): void {
  switch (kind) {
    case 'int':
      view.setInt32(r * 4, v as number, true);
      break;
    case 'double':
      view.setFloat64(r * 8, v as number, true);
      break;
    case 'bigint':
      view.setBigInt64(r * 8, v as bigint, true);
      break;
    case 'ubigint':
      view.setBigUint64(r * 8, v as bigint, true);
      break;
    default:
      view.setUint8(r, ENUM_INDEX[kind as keyof typeof ENUM_VALUES].get(v as string)!);
  }
}

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
    private readonly connection: DuckDBConnection,
    private readonly appender: DuckDBAppender,
    private readonly onClose: (cell: BufferedCell) => void,
  ) {}

  appendChunk(chunk: DuckDBDataChunk): void {
    this.appender.appendDataChunk(chunk);
  }

  /** Flushes what was appended into the table and ends the cell's connection; the cell takes no more rows. */
  close(): void {
    if (!this.open) return;
    this.open = false;
    this.onClose(this);
    try {
      this.appender.closeSync();
    } finally {
      this.connection.closeSync();
    }
  }
}

export class SegmentBuffer {
  private readonly chunk = DuckDBDataChunk.create(
    ROW_COLUMNS.map(([, kind]) => TYPES[kind]),
    CHUNK,
  );
  /** A column's fixed-width values and validity bits, before their copy into the vector. */
  private readonly scratch = new ArrayBuffer(CHUNK * 8);
  private readonly view = new DataView(this.scratch);
  private readonly validity = new Uint8Array(CHUNK / 8);
  private nextTable = 1;
  /** Cells not yet closed, whose connections `close` ends. */
  private readonly openCells = new Set<BufferedCell>();

  private constructor(private readonly engine: FileEngine) {}

  /** `segmentsDir` is the only directory this DuckDB may write (the segment store's root). */
  static async open(segmentsDir: string): Promise<SegmentBuffer> {
    // Holds one or two generations (tens of thousands of rows); more is a sign of a stuck flush.
    return new SegmentBuffer(await FileEngine.open(segmentsDir, '512MiB'));
  }

  /** A new, empty cell. */
  async cell(): Promise<BufferedCell> {
    const table = `cell_${this.nextTable++}`;
    const connection = await this.engine.connect();
    try {
      await connection.run(
        `CREATE TABLE ${table} (${ROW_COLUMNS.map(([name, kind]) => `${name} ${BUFFER_SQL_TYPE[kind]}`).join(', ')})`,
      );
      const cell = new BufferedCell(table, connection, await connection.createAppender(table), (c) =>
        this.openCells.delete(c),
      );
      this.openCells.add(cell);
      return cell;
    } catch (e) {
      connection.closeSync();
      throw e;
    }
  }

  /**
   * Adds rows to a cell: their values go into DuckDB vectors now, on this thread. Written through
   * the bindings directly rather than node-api's vector classes, which keep every value in a JS
   * array first and set validity one call per value: this path costs less per row and makes less
   * garbage (native-bench/RESULTS.md, "Figures behind the code"). Fixed-width values and validity
   * go in one copy per column; each non-null string is one call.
   */
  append(cell: BufferedCell, rows: readonly SpanRow[]): void {
    for (let at = 0; at < rows.length; at += CHUNK) {
      const n = Math.min(CHUNK, rows.length - at);
      this.chunk.reset();
      this.chunk.rowCount = n;
      const raw = this.chunk.chunk;
      for (let c = 0; c < ROW_COLUMNS.length; c++) {
        const kind = ROW_COLUMNS[c]![1];
        const column = c + FIRST_ROW_COLUMN;
        if (kind === 'text_list') {
          const vector = this.chunk.getColumnVector(c);
          for (let r = 0; r < n; r++) {
            const list = rows[at + r]![column] as string[] | null;
            vector.setItem(r, list && list.length > 0 ? listValue(list) : null);
          }
          vector.flush();
          continue;
        }
        const vector = bindings.data_chunk_get_vector(raw, c);
        this.validity.fill(0xff);
        if (kind === 'text') {
          for (let r = 0; r < n; r++) {
            const v = rows[at + r]![column];
            if (v === null || v === undefined) this.validity[r >> 3]! &= ~(1 << (r & 7));
            else bindings.vector_assign_string_element(vector, r, v as string);
          }
        } else {
          const width = WIDTH[kind];
          for (let r = 0; r < n; r++) {
            const v = rows[at + r]![column];
            if (v === null || v === undefined) this.validity[r >> 3]! &= ~(1 << (r & 7));
            else writeFixed(this.view, r, kind, v as number | bigint | string);
          }
          bindings.copy_data_to_vector(vector, 0, this.scratch, 0, n * width);
        }
        bindings.vector_ensure_validity_writable(vector);
        bindings.copy_data_to_vector_validity(vector, 0, this.validity.buffer, 0, Math.ceil(n / 64) * 8);
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
   * Writes a cell to `path` as one Parquet file, rows in arrival order, and frees it. Not sorted:
   * sorting was a large share of the write (native-bench/RESULTS.md, "Figures behind the code"),
   * these files live until compaction sorts them, and the manifest keeps their range of start times
   * either way.
   */
  async write(cell: BufferedCell, scope: SegmentScope, path: string): Promise<WrittenSegment> {
    if (cell.rows === 0 || cell.minStartNs === null || cell.maxStartNs === null)
      throw new Error('a segment needs at least one row');
    cell.close();
    await this.engine.run(
      `COPY (SELECT ${quote(scope.tenantId)}::UUID AS tenant_id, ${quote(scope.appId)}::UUID AS app_id,
                    ${quote(scope.environmentId)}::UUID AS environment_id, *
               FROM ${cell.table})
         TO ${quote(path)} (${INGEST_SEGMENT_COPY_OPTIONS})`,
    );
    await this.drop(cell);
    return { rows: cell.rows, minStartNs: cell.minStartNs, maxStartNs: cell.maxStartNs };
  }

  /**
   * Closes the worker's DuckDB. Call before the worker thread ends: a thread terminated with a
   * DuckDB instance still open can abort the process.
   */
  close(): void {
    for (const cell of [...this.openCells]) cell.close();
    this.engine.close();
  }

  /** Frees a cell without writing it. */
  async drop(cell: BufferedCell): Promise<void> {
    cell.close();
    await this.engine.run(`DROP TABLE IF EXISTS ${cell.table}`);
  }
}

function quote(text: string): string {
  return `'${text.replaceAll("'", "''")}'`;
}
