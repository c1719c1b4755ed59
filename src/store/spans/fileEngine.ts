/**
 * A DuckDB of its own for work on segment files that must not take the machine: one thread,
 * `:memory:`, and the segment directory as the only place it may read or write. Compute workers
 * write their segments with one; the store thread compacts with one, so a compaction uses a core
 * at most and leaves the other to ingestion and queries (the store's own DuckDB has all threads).
 */
import type { DuckDBConnection, DuckDBValue } from '@duckdb/node-api';
import { DUCKDB_MEMORY_SQL, DuckDBInstance, INSTANCE_OPTIONS, type MemoryByTag } from '../duckdb.js';

export class FileEngine {
  private constructor(
    private readonly instance: DuckDBInstance,
    readonly connection: DuckDBConnection,
  ) {}

  private probe: Promise<DuckDBConnection> | undefined;
  private probeConnection: DuckDBConnection | undefined;

  static async open(segmentsDir: string, memoryLimit: string): Promise<FileEngine> {
    const instance = await DuckDBInstance.create(':memory:', {
      threads: '1',
      memory_limit: memoryLimit,
      ...INSTANCE_OPTIONS,
    });
    const connection = await instance.connect();
    const dir = segmentsDir.endsWith('/') ? segmentsDir : `${segmentsDir}/`;
    await connection.run(`SET allowed_directories = ['${dir.replaceAll("'", "''")}']`);
    await connection.run('SET enable_external_access = false');
    await connection.run('SET lock_configuration = true');
    return new FileEngine(instance, connection);
  }

  async run(sql: string): Promise<void> {
    await this.connection.run(sql);
  }

  /** The first value of the first row of `sql`'s answer (null when it has none), as DuckDB gives it. */
  async value(sql: string): Promise<DuckDBValue> {
    const result = await this.connection.runAndReadAll(sql);
    return result.getRows()[0]?.[0] ?? null;
  }

  /** What the instance holds in memory, by DuckDB's account (on a connection of its own: a compaction may be running). */
  async memory(): Promise<MemoryByTag> {
    this.probe ??= this.instance.connect().then((c) => (this.probeConnection = c));
    const result = await (await this.probe).runAndReadAll(DUCKDB_MEMORY_SQL);
    return Object.fromEntries(result.getRows().map(([tag, bytes]) => [String(tag), Number(bytes)]));
  }

  /** Another connection to the same database (its settings are the instance's). */
  connect(): Promise<DuckDBConnection> {
    return this.instance.connect();
  }

  /** Call before the thread ends: a thread terminated with a DuckDB instance open can abort the process. */
  close(): void {
    this.probeConnection?.closeSync();
    this.connection.closeSync();
    this.instance.closeSync();
  }
}
