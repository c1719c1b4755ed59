/**
 * The data directory's layout: where the database file, the segments, the blobs and the ingest log
 * live. Pure, apart from the store's modules, so the HTTP thread and the CLI can name the paths
 * without loading DuckDB.
 */
import { join } from 'node:path';

/** Directories DuckDB may read and write besides its own database file. */
export function storeDirs(dataDir: string): { segments: string; blobs: string; tmp: string } {
  return { segments: join(dataDir, 'segments'), blobs: join(dataDir, 'blobs'), tmp: join(dataDir, 'tmp') };
}

/** The ingest log: request bodies acknowledged but not yet in committed segments (compute threads only). */
export function ingestLogDir(dataDir: string): string {
  return join(dataDir, 'ingest-log');
}

/** Committed ingest-log files waiting for a checkpoint (store/spans/checkpointedLogs.ts). */
export function committedLogDir(dataDir: string): string {
  return join(ingestLogDir(dataDir), COMMITTED_LOGS);
}

/** The folder of `committedLogDir` inside the ingest log's. */
export const COMMITTED_LOGS = 'committed';

/** The store's database file, in the data directory. */
export const DATABASE_FILE = 'tracelake.duckdb';
