/**
 * Turns span rows into a ZSTD Parquet segment, in a compute worker, with a DuckDB of the worker's
 * own (`:memory:`, one thread). A JavaScript table function hands the rows to `COPY … TO` chunk by
 * chunk, so rows go from JS values into DuckDB vectors once and straight into the Parquet writer:
 * no transaction, no WAL, no index (native-bench/ingest measures this path).
 *
 * The scope columns (tenant, app, environment) are constants of the SELECT, not values per row:
 * a segment holds one environment of one app.
 */
import { DuckDBInstance, DuckDBTableFunction, LIST, listValue, VARCHAR, BIGINT, INTEGER, DOUBLE, type DuckDBConnection, type DuckDBType } from '@duckdb/node-api';
import { SPAN_COLUMNS, type ColumnKind, type SpanRow } from './columns.js';
import { SEGMENT_FORMAT_VERSION } from './segmentFormat.js';

const TYPES: Record<Exclude<ColumnKind, 'uuid'>, DuckDBType> = { text: VARCHAR, bigint: BIGINT, int: INTEGER, double: DOUBLE, text_list: LIST(VARCHAR) };

/** Row values from this column on are per row; the ones before are the scope (constants). */
const FIRST_ROW_COLUMN = 3;
const ROW_COLUMNS = SPAN_COLUMNS.slice(FIRST_ROW_COLUMN) as readonly (readonly [string, Exclude<ColumnKind, 'uuid'>])[];
const CHUNK = 2048;

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

export class SegmentWriter {
  /** The rows the running COPY reads; one COPY at a time per writer. */
  private current: readonly SpanRow[] = [];
  private busy: Promise<unknown> = Promise.resolve();

  private constructor(private readonly connection: DuckDBConnection) {}

  /** `writableDir` is the only directory this DuckDB may write (the segment store's root). */
  static async open(writableDir: string): Promise<SegmentWriter> {
    const instance = await DuckDBInstance.create(':memory:', {
      threads: '1',
      memory_limit: '512MiB',
      autoinstall_known_extensions: 'false',
      autoload_known_extensions: 'false',
    });
    const connection = await instance.connect();
    const writer = new SegmentWriter(connection);
    connection.registerTableFunction(writer.rowsFunction());
    await connection.run(`SET allowed_directories = [${quote(writableDir.endsWith('/') ? writableDir : `${writableDir}/`)}]`);
    await connection.run('SET enable_external_access = false');
    await connection.run('SET lock_configuration = true');
    return writer;
  }

  /**
   * Writes `rows` (all of `scope`) to `path` as one Parquet file, sorted by start time then trace
   * so that time windows and traces prune row groups. Returns what the manifest records.
   */
  write(rows: readonly SpanRow[], scope: SegmentScope, path: string): Promise<WrittenSegment> {
    const run = this.busy.then(() => this.copy(rows, scope, path));
    this.busy = run.catch(() => undefined);
    return run;
  }

  private async copy(rows: readonly SpanRow[], scope: SegmentScope, path: string): Promise<WrittenSegment> {
    if (rows.length === 0) throw new Error('a segment needs at least one row');
    let min = rows[0]![START] as bigint;
    let max = min;
    for (const r of rows) {
      const s = r[START] as bigint;
      if (s < min) min = s;
      if (s > max) max = s;
    }
    this.current = rows;
    try {
      await this.connection.run(
        `COPY (SELECT ${quote(scope.tenantId)}::UUID AS tenant_id, ${quote(scope.appId)}::UUID AS app_id,
                      ${quote(scope.environmentId)}::UUID AS environment_id, *
                 FROM tracelake_rows() ORDER BY start_ns, trace_id, span_id)
           TO ${quote(path)} (FORMAT parquet, COMPRESSION zstd, ROW_GROUP_SIZE ${ROW_GROUP_ROWS},
                              KV_METADATA {tracelake_format: '${SEGMENT_FORMAT_VERSION}'})`,
      );
    } finally {
      this.current = [];
    }
    return { rows: rows.length, minStartNs: min, maxStartNs: max };
  }

  private rowsFunction(): DuckDBTableFunction {
    return DuckDBTableFunction.create({
      name: 'tracelake_rows',
      bindFunction: (bind) => {
        for (const [name, kind] of ROW_COLUMNS) bind.addResultColumn(name, TYPES[kind]);
        bind.setCardinality(this.current.length, true);
      },
      initFunction: (init) => {
        init.setInitData({ next: 0 });
        init.setMaxThreads(1);
      },
      mainFunction: (info, out) => {
        const state = info.initData as { next: number };
        const rows = this.current;
        const n = Math.min(CHUNK, rows.length - state.next);
        out.rowCount = n;
        if (n <= 0) return;
        for (let c = 0; c < ROW_COLUMNS.length; c++) {
          const vector = out.getColumnVector(c);
          const column = c + FIRST_ROW_COLUMN;
          if (ROW_COLUMNS[c]![1] === 'text_list') {
            for (let r = 0; r < n; r++) {
              const list = rows[state.next + r]![column] as string[] | null;
              vector.setItem(r, list && list.length > 0 ? listValue(list) : null);
            }
          } else {
            for (let r = 0; r < n; r++) vector.setItem(r, (rows[state.next + r]![column] ?? null) as never);
          }
          vector.flush();
        }
        state.next += n;
      },
    });
  }
}

/** Rows per Parquet row group: small enough that a trace read touches one, large enough to compress. */
export const ROW_GROUP_ROWS = 16_384;

const START = SPAN_COLUMNS.findIndex(([name]) => name === 'start_ns');

function quote(text: string): string {
  return `'${text.replaceAll("'", "''")}'`;
}
