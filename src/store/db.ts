/**
 * The one DuckDB database of a Tracelake process. The @duckdb/node-api instance cache is per
 * JavaScript realm, so worker threads cannot share an instance: the database is opened once, by the
 * store thread, and everything that touches DuckDB runs there (docs/decisions.md, "one DuckDB owner").
 */
import { mkdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import type {
  DuckDBAppender,
  DuckDBConnection,
  DuckDBPreparedStatement,
  DuckDBType,
  DuckDBValue,
} from '@duckdb/node-api';
import {
  DOUBLE,
  DuckDBInstance,
  INSTANCE_OPTIONS,
  JSDuckDBValueConverter,
  LIST,
  listValue,
  VARCHAR,
} from './duckdb.js';
import { overloaded, type ApiError } from '../core/errors.js';
import { DATABASE_FILE, storeDirs } from './layout.js';
import { isUniqueViolation, isWriteConflict } from './refusals.js';
import type { ColumnKind } from './spans/columns.js';
import { checkWal, recordWatermark, type WalDamage } from './walGuard.js';

export interface DatabaseOptions {
  dataDir: string;
  threads: number;
  memoryLimit: string;
  queryTimeoutMs: number;
}

export type Row = Record<string, unknown>;

/**
 * DuckDB's fatal errors: after one (a failed checkpoint on a full disk, say) the instance is
 * invalidated and every later statement fails until the database is opened again.
 */
export function isFatalError(e: unknown): boolean {
  return e instanceof Error && /FATAL Error|database has been invalidated/i.test(e.message);
}

/**
 * Tries of a statement or transaction that meets another transaction's write to the same row: the
 * waits between them add up to about a second, longer than the winner's transaction takes on a
 * loaded machine (with 8 tries, a quarter of a second, a loser of four updates at once ran out of
 * tries while the CI suite ran beside it: a 500).
 */
const CONFLICT_TRIES = 10;

/**
 * Runs `once` again, a few milliseconds later, while it fails on a write-write conflict: another
 * transaction changed or deleted a row this one changes, and DuckDB aborted this one. Run again, it
 * reads the winner's committed state — a second revocation keeps the first time, a second delete
 * finds nothing (404). Each such loser used to be a 500 (test/http/races.test.ts).
 *
 * When `keysMetAtOnce` says so, a unique key met is run again too. DuckDB checks a key against the rows
 * its transaction can see, so an `INSERT … ON CONFLICT` beside another transaction inserting the
 * same key fails as a plain duplicate (at the insert or at its commit) instead of doing what its
 * clause says; and a check before an insert cannot see the other's row either. Run again, the
 * clause or the check meets the winner's committed row (test/http/atOnce.alone.test.ts: a baseline pinned
 * twice at once, a worker's events posted twice at once, were 500s).
 */
async function retryingConflicts<T>(once: () => Promise<T>, keysMetAtOnce: () => boolean): Promise<T> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await once();
    } catch (e) {
      if (attempt >= CONFLICT_TRIES || !(isWriteConflict(e) || (isUniqueViolation(e) && keysMetAtOnce()))) throw e;
      // Jittered, so that losers sent together do not come back together.
      await new Promise((resolve) => setTimeout(resolve, 2 ** attempt * (0.5 + Math.random())));
    }
  }
}

/** A statement that says what to do with a key it meets: run again when it met one at once. */
const HANDLES_KEYS = /\bON\s+CONFLICT\b/i;

/** The WAL size at which the store checkpoints (DuckDB's own default threshold). */
const WAL_CHECKPOINT_BYTES = 16 * 1024 * 1024;
/** A WAL this many times the threshold is checkpointed even if writes running must end first. */
const FORCE_AT = 4;
/** DuckDB's refusal of a plain CHECKPOINT while another transaction writes. */
const OTHER_WRITES = /other write transactions active/i;

/**
 * Prepared statements kept per connection, by SQL text, for `query` (reads outside transactions).
 * What they save is the parse and the first prepare: DuckDB 1.5 binds and optimises a statement
 * with parameters again at every run, with the values in hand, whether they are bound with the
 * parameters' own types or not. Reading a summary by id from this cache is still faster
 * (native-bench/RESULTS.md, "Figures behind the code"). Answers follow
 * the data (db.test.ts). A statement without parameters is never kept: DuckDB plans it once, with the
 * tables' statistics of that moment, and runs that plan again as the data changes — a count under a
 * filter the old statistics ruled out stays 0, and strings its sort compressed to the old widths come
 * back garbled, or crash the process (SIGSEGV in a string copy: the operator API's tenant list, found
 * by the body sweep). Statements using the `parquet_metadata` family of table
 * functions are prepared each time: DuckDB 1.5's hands its file list over on the first run, and a
 * second run of the same statement fails an internal assertion that invalidates the database
 * (db.test.ts runs every table function the store uses three times over).
 */
const STATEMENTS_PER_CONNECTION = 32;

/** 2^63: integral numbers from here on (and below its negative) do not fit a BIGINT. */
const INT64_BOUND = 2 ** 63;

/**
 * The types `params` are bound with (undefined: DuckDB's client chooses). The client binds an
 * integral JS number outside the 32-bit range as a BIGINT and throws for one outside 64 bits; every
 * double from 2^53 up is integral, so a filter's `cost > 1e300` failed as a 500. Such a number is
 * bound as the DOUBLE it is; every other value as before.
 */
function bindTypes(params: readonly DuckDBValue[]): DuckDBType[] | undefined {
  if (!params.some(beyondInt64)) return undefined;
  return params.map((v) => (beyondInt64(v) ? DOUBLE : undefined)) as DuckDBType[];
}

function beyondInt64(v: DuckDBValue): boolean {
  return typeof v === 'number' && (v >= INT64_BOUND || v < -INT64_BOUND);
}
const NOT_REPEATABLE = /\bparquet_(metadata|schema|file_metadata|kv_metadata|bloom_probe)\s*\(/i;

export class Database {
  private readonly idle: DuckDBConnection[] = [];
  private readonly statements = new WeakMap<DuckDBConnection, Map<string, DuckDBPreparedStatement>>();
  /**
   * Called as each checkpoint begins, with no transaction running; what it returns runs once the
   * checkpoint has succeeded (the store thread retires committed log files by it).
   */
  beforeCheckpoint: (() => () => Promise<void>) | null = null;
  /** Called (once) when a statement fails with a fatal error: the instance is of no more use. */
  onFatal: ((e: Error) => void) | null = null;
  private fatal = false;

  private constructor(
    private readonly instance: DuckDBInstance,
    readonly options: DatabaseOptions,
    private readonly path: string,
    /** What the WAL guard found before this open (null: the WAL was whole or absent). */
    readonly walDamage: WalDamage | null,
  ) {}

  /**
   * Opens (creating if needed) `<dataDir>/tracelake.duckdb` and hardens it: no extension loading,
   * file access limited to the store's own directories, then the configuration is locked so no
   * later statement can loosen it.
   */
  static async open(options: DatabaseOptions): Promise<Database> {
    const dirs = storeDirs(options.dataDir);
    for (const dir of Object.values(dirs)) mkdirSync(dir, { recursive: true });
    const path = join(options.dataDir, DATABASE_FILE);
    // Before DuckDB replays the WAL (and drops what it cannot read): see walGuard.ts.
    const walDamage = checkWal(options.dataDir, path);
    const instance = await DuckDBInstance.create(path, {
      threads: String(options.threads),
      memory_limit: options.memoryLimit,
      temp_directory: dirs.tmp,
      max_temp_directory_size: '8GiB',
      ...INSTANCE_OPTIONS,
      // Checkpoints are ours (`checkpointIfLarge`), so the WAL watermark knows when the WAL restarts.
      checkpoint_threshold: '1TB',
    });
    const db = new Database(instance, options, path, walDamage);
    db.watermark = recordWatermark(path);
    const allowed = Object.values(dirs)
      .map((d) => `'${d.replaceAll("'", "''")}/'`)
      .join(', ');
    // Segment footers are read once, not by every query that opens the file.
    await db.exec('SET parquet_metadata_cache = true');
    await db.exec(`SET allowed_directories = [${allowed}]`);
    await db.exec('SET enable_external_access = false');
    await db.exec('SET lock_configuration = true');
    return db;
  }

  /**
   * Runs `sql` with bound `params` and returns the rows as plain objects (JSON-safe values). A
   * statement is its own transaction: one that loses a write conflict runs again.
   */
  async query<T = Row>(sql: string, params: DuckDBValue[] = []): Promise<T[]> {
    return retryingConflicts(
      () => this.withConnection((c) => this.read<T>(c, sql, params, true)),
      () => HANDLES_KEYS.test(sql),
    );
  }

  /**
   * Runs `sql` and hands its result over chunk by chunk, as columns of plain JS values (BIGINT as
   * bigint, lists as arrays); returns the number of rows read. Memory stays at one chunk. A
   * reader that has what it needs returns `'stop'` (anything else reads on).
   */
  async streamColumns(
    sql: string,
    params: DuckDBValue[],
    onChunk: (columns: unknown[][], rows: number) => unknown,
  ): Promise<number> {
    return this.withConnection((c) => this.timed(c, () => chunksOf(c, sql, params, onChunk)));
  }

  async exec(sql: string, params: DuckDBValue[] = []): Promise<void> {
    await retryingConflicts(
      () => this.withConnection((c) => this.timed(c, () => c.run(sql, params, bindTypes(params)))),
      () => HANDLES_KEYS.test(sql),
    );
  }

  /** Transactions running, and a checkpoint waiting for them to end (it holds new ones back). */
  private transactions = 0;
  private checkpointing: Promise<void> | null = null;
  /** The WAL watermark this store recorded last (walGuard.ts), so an unchanged one is not written again. */
  private watermark: string | null = null;
  private whenNoTransactions: (() => void)[] = [];

  /**
   * Runs `work` inside one transaction on one connection; any throw rolls it back. With
   * `retryConflicts`, a transaction that loses a write conflict, or meets a key another transaction
   * inserted at once, runs again from the start: for work that reads what it changes and does
   * nothing outside the transaction (its checks and `ON CONFLICT` clauses then see the winner's row).
   */
  async transaction<T>(work: (tx: Transaction) => Promise<T>, options: { retryConflicts?: boolean } = {}): Promise<T> {
    return options.retryConflicts
      ? retryingConflicts(
          () => this.transactionOnce(work),
          () => true,
        )
      : this.transactionOnce(work);
  }

  private async transactionOnce<T>(work: (tx: Transaction) => Promise<T>): Promise<T> {
    while (this.checkpointing) await this.checkpointing;
    this.transactions++;
    try {
      const result = await this.inTransaction(work);
      this.coverCommit();
      return result;
    } finally {
      if (--this.transactions === 0) for (const wake of this.whenNoTransactions.splice(0)) wake();
    }
  }

  /**
   * Runs `work`'s statements in one transaction that reads one snapshot of the store and is rolled
   * back, with any temporary table it made: for a read of several statements that must agree. Not
   * held back by a checkpoint as `transaction` is: DuckDB checkpoints beside an open read.
   */
  snapshot<T>(work: (read: Snapshot) => Promise<T>): Promise<T> {
    return this.withConnection(async (c) => {
      await c.run('BEGIN TRANSACTION');
      try {
        return await work(this.statementsOn(c));
      } finally {
        await c.run('ROLLBACK').catch(() => undefined);
      }
    });
  }

  /** Statements on one connection inside its open transaction (never prepared and kept: see `read`). */
  private statementsOn(c: DuckDBConnection): Snapshot {
    return {
      query: <R = Row>(sql: string, params: DuckDBValue[] = []) => this.read<R>(c, sql, params, false),
      columns: (sql: string, params: DuckDBValue[] = []) =>
        this.timed(c, async () => {
          const columns: unknown[][] = [];
          await chunksOf(c, sql, params, (chunk) =>
            chunk.forEach((values, i) => {
              const column = (columns[i] ??= []);
              for (const v of values) column.push(v);
            }),
          );
          return columns;
        }),
      exec: async (sql: string, params: DuckDBValue[] = []) =>
        void (await this.timed(c, () => c.run(sql, params, bindTypes(params)))),
    };
  }

  private inTransaction<T>(work: (tx: Transaction) => Promise<T>): Promise<T> {
    return this.withConnection(async (c) => {
      await c.run('BEGIN TRANSACTION');
      try {
        const result = await work({
          ...this.statementsOn(c),
          append: async (table, kinds, rows) => {
            const appender = await c.createAppender(table);
            try {
              for (const row of rows) appendRow(appender, kinds, row);
              appender.flushSync();
            } finally {
              appender.closeSync();
            }
          },
        });
        await c.run('COMMIT');
        return result;
      } catch (e) {
        await c.run('ROLLBACK').catch(() => undefined);
        throw e;
      }
    });
  }

  /**
   * Checkpoints once the transactions running have ended, holding new ones back meanwhile: DuckDB
   * refuses a checkpoint while a write transaction is open, and under steady ingestion one nearly
   * always is (a generation's commit), so an attempt that did not wait failed again and again while
   * the WAL grew. FORCE (DuckDB ≥ 1.4) also waits for writes this class does not see begin — a
   * single statement in autocommit — where a plain CHECKPOINT failed at shutdown under load.
   */
  async checkpoint(): Promise<void> {
    await this.checkpointOnce(true);
  }

  /**
   * As `checkpoint`, but put off (false) when a write this class does not count is running, rather
   * than waiting for it: while FORCE CHECKPOINT waits it holds back every transaction that starts,
   * reads included (DuckDB cannot tell a read until it is bound), so one slow write stalled every
   * read and the log's bound answered 503 (native-bench/RESULTS.md, "soak").
   */
  private async checkpointOnce(force: boolean): Promise<boolean> {
    while (this.checkpointing) await this.checkpointing;
    const run = (async () => {
      while (this.transactions > 0) await new Promise<void>((wake) => this.whenNoTransactions.push(wake));
      const after = this.beforeCheckpoint?.();
      try {
        await this.exec(force ? 'FORCE CHECKPOINT' : 'CHECKPOINT');
      } catch (e) {
        if (force || !OTHER_WRITES.test((e as Error).message)) throw e;
        return false;
      }
      this.recordWal();
      await after?.();
      return true;
    })();
    this.checkpointing = run.then(
      () => undefined,
      () => undefined,
    );
    try {
      return await run;
    } finally {
      this.checkpointing = null;
    }
  }

  /** Records the WAL's state for the guard (after commits; cheap: a stat and a 4 KiB read). */
  recordWal(): void {
    this.watermark = recordWatermark(this.path, this.watermark);
  }

  /**
   * Records the WAL's state once a transaction has committed, before its caller hears of it: a WAL
   * later cut below what was acknowledged is then always found short (walGuard.ts), where a mark a
   * second old missed a cut that kept more than it. Best-effort: the store's tick records it again.
   */
  private coverCommit(): void {
    try {
      this.recordWal();
    } catch {
      // A full disk fails the mark's write; the commit stands all the same.
    }
  }

  /** Checkpoints when the WAL has grown past `bytes`, or when `due` (automatic checkpoints are off). */
  async checkpointIfLarge(bytes = WAL_CHECKPOINT_BYTES, due = false): Promise<boolean> {
    let size = 0;
    try {
      size = statSync(`${this.path}.wal`).size;
    } catch {
      return false;
    }
    if (size < bytes && !due) return false;
    // Put off while a write runs, until the WAL is four times the threshold: then it waits.
    return this.checkpointOnce(size >= FORCE_AT * bytes);
  }

  close(): void {
    for (const c of this.idle.splice(0)) c.closeSync();
    // Closing checkpoints and removes the WAL.
    this.instance.closeSync();
    this.recordWal();
  }

  private async read<T>(c: DuckDBConnection, sql: string, params: DuckDBValue[], keep: boolean): Promise<T[]> {
    if (!keep || params.length === 0 || NOT_REPEATABLE.test(sql))
      return (await this.timed(c, () => c.runAndReadAll(sql, params, bindTypes(params)))).getRowObjectsJson() as T[];
    const reader = await this.timed(c, async () => {
      const statement = await this.prepared(c, sql);
      try {
        statement.bind(params, bindTypes(params));
        return await statement.runAndReadAll();
      } catch (e) {
        // Whatever went wrong, the next call prepares the statement afresh.
        this.forget(c, sql);
        throw e;
      }
    });
    return reader.getRowObjectsJson() as T[];
  }

  /** The connection's prepared statement for `sql` (least recently used ones are let go). */
  private async prepared(c: DuckDBConnection, sql: string): Promise<DuckDBPreparedStatement> {
    let cache = this.statements.get(c);
    if (!cache) this.statements.set(c, (cache = new Map()));
    const known = cache.get(sql);
    if (known) {
      cache.delete(sql);
      cache.set(sql, known);
      return known;
    }
    const statement = await c.prepare(sql);
    cache.set(sql, statement);
    if (cache.size > STATEMENTS_PER_CONNECTION) this.forget(c, cache.keys().next().value!);
    return statement;
  }

  private forget(c: DuckDBConnection, sql: string): void {
    const cache = this.statements.get(c);
    cache?.get(sql)?.destroySync();
    cache?.delete(sql);
  }

  /**
   * Interrupts the statement when it outlives the query timeout. DuckDB then throws its "INTERRUPT
   * Error: Interrupted!", which reached clients as a 500 "Internal error"; it becomes a 503 that
   * says what happened and when to retry (a client of a busy server gets its answer later, one
   * whose query is too wide learns to narrow it).
   */
  private async timed<T>(c: DuckDBConnection, run: () => Promise<T>): Promise<T> {
    let interrupted = false;
    const timer = setTimeout(() => {
      interrupted = true;
      c.interrupt();
    }, this.options.queryTimeoutMs);
    try {
      return await run();
    } catch (e) {
      if (interrupted && e instanceof Error && /\bINTERRUPT\b/.test(e.message))
        throw queryTimedOut(this.options.queryTimeoutMs);
      throw e;
    } finally {
      clearTimeout(timer);
    }
  }

  private async withConnection<T>(work: (c: DuckDBConnection) => Promise<T>): Promise<T> {
    const c = this.idle.pop() ?? (await this.instance.connect());
    try {
      return await work(c);
    } catch (e) {
      if (!this.fatal && isFatalError(e)) {
        this.fatal = true;
        this.onFatal?.(e as Error);
      }
      throw e;
    } finally {
      // Connections are cheap but not free; keep a few warm for the next request.
      if (this.idle.length < 16) this.idle.push(c);
      else c.closeSync();
    }
  }
}

/**
 * Runs `sql` on `c` and hands its result over chunk by chunk, as columns of plain JS values;
 * returns the number of rows read. A reader that has what it needs returns `'stop'`.
 */
async function chunksOf(
  c: DuckDBConnection,
  sql: string,
  params: DuckDBValue[],
  onChunk: (columns: unknown[][], rows: number) => unknown,
): Promise<number> {
  const result = await c.stream(sql, params, bindTypes(params));
  let rows = 0;
  for (let chunk = await result.fetchChunk(); chunk && chunk.rowCount > 0; chunk = await result.fetchChunk()) {
    rows += chunk.rowCount;
    if (onChunk(chunk.convertColumns(JSDuckDBValueConverter) as unknown[][], chunk.rowCount) === 'stop') break;
  }
  return rows;
}

/** Rows read inside or outside a transaction. */
export type Reader = Pick<Transaction, 'query'>;

/** For `transaction`: work that reads what it changes and does nothing outside it runs again after a write conflict or a key met at once. */
export const RERUN_ON_CONFLICT = { retryConflicts: true } as const;

/** The statements of a `snapshot`: its `exec` may make temporary tables, which the rollback removes. */
export type Snapshot = Pick<Transaction, 'query' | 'columns' | 'exec'>;

export interface Transaction {
  query<R = Row>(sql: string, params?: DuckDBValue[]): Promise<R[]>;
  /**
   * The answer as columns of plain JS values, one array a column: for many rows of few columns,
   * which row objects would cost far more to make.
   */
  columns(sql: string, params?: DuckDBValue[]): Promise<unknown[][]>;
  exec(sql: string, params?: DuckDBValue[]): Promise<void>;
  /** Appends rows (values in `kinds` order) through DuckDB's appender, inside this transaction. */
  append(table: string, kinds: readonly ColumnKind[], rows: readonly AppendValue[][]): Promise<void>;
}

export type AppendValue = string | number | bigint | string[] | null;

const TEXT_LIST = LIST(VARCHAR);

function appendRow(a: DuckDBAppender, kinds: readonly ColumnKind[], row: readonly AppendValue[]): void {
  for (let i = 0; i < kinds.length; i++) {
    const v = row[i];
    if (v === null || v === undefined) {
      a.appendNull();
      continue;
    }
    switch (kinds[i]) {
      case 'uuid':
      case 'text':
      case 'type_enum':
      case 'kind_enum':
      case 'status_enum':
        a.appendVarchar(v as string);
        break;
      case 'bigint':
        a.appendBigInt(v as bigint);
        break;
      case 'ubigint':
        a.appendUBigInt(v as bigint);
        break;
      case 'int':
        a.appendInteger(v as number);
        break;
      case 'double':
        a.appendDouble(v as number);
        break;
      case 'text_list':
        a.appendList(listValue(v as string[]), TEXT_LIST);
        break;
    }
  }
  a.endRow();
}

/** A statement stopped at the query timeout: 503 with Retry-After, like any overload. */
function queryTimedOut(timeoutMs: number): ApiError {
  return overloaded(
    `The query ran past the query timeout (${timeoutMs} ms) and was stopped; retry later, or narrow its time window or filter`,
  );
}
