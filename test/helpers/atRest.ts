/**
 * Reads a stopped server's store directly, as another program would: the DuckDB file, and the span
 * rows of the segment files its manifest names (a `spans` view over them).
 */
import { join } from 'node:path';
import { DuckDBInstance, type DuckDBConnection } from '@duckdb/node-api';

export async function atRest<T>(dataDir: string, read: (c: DuckDBConnection) => Promise<T>): Promise<T> {
  const db = await DuckDBInstance.create(join(dataDir, 'tracelake.duckdb'));
  const c = await db.connect();
  try {
    const files = (await c.runAndReadAll('SELECT path FROM segments WHERE replaced_at IS NULL'))
      .getRowObjectsJson()
      .map((r) => join(dataDir, 'segments', r.path as string));
    const source =
      files.length === 0
        ? 'SELECT * FROM span_schema'
        : `SELECT * FROM read_parquet([${files.map((f) => `'${f.replaceAll("'", "''")}'`).join(', ')}])`;
    await c.run(`CREATE TEMP VIEW spans AS ${source}`);
    return await read(c);
  } finally {
    c.closeSync();
    db.closeSync();
  }
}
