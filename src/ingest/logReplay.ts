/**
 * Replays ingest log files that no committed generation covers: at start (what a crash left), and
 * for a compute worker that ended. Files a committed generation names are deleted; the others are
 * decoded again by a compute worker, with the admission decisions their records carry, written as
 * segments and committed. The replayed spans join the admission index, so a client's retry of a
 * request whose answer was lost is recognised as a replay.
 */
import { readdirSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import type { Logger } from 'pino';
import type { Scope } from '../store/admin/meta.js';
import type { ComputeClient } from '../pool/computeClient.js';
import type { StoreClient } from '../pool/storeClient.js';

export interface Replayed {
  files: number;
  spans: number;
  discardedBytes: number;
}

/** Replays the log files in `logDir` (of one worker, when `workerId` is given). */
export async function replayLogs(
  deps: { store: StoreClient; compute: ComputeClient; log: Logger; remember: (scope: Scope, traceIds: string[], spanIds: string[]) => void },
  logDir: string,
  workerId?: string,
): Promise<Replayed> {
  const names = logFiles(logDir).filter((n) => workerId === undefined || n.startsWith(`${workerId}-`));
  if (names.length === 0) return { files: 0, spans: 0, discardedBytes: 0 };
  const done = new Set(await deps.store.run('committedLogs', { names }));
  let spans = 0;
  let discardedBytes = 0;
  for (const name of names) {
    const path = join(logDir, name);
    if (!done.has(name)) {
      const replayed = await deps.compute.run('replayLog', { path, name });
      discardedBytes += replayed.discardedBytes;
      if (replayed.discardedBytes > 0) deps.log.warn({ file: name, discarded_bytes: replayed.discardedBytes }, 'ingest log ended in a torn or damaged record; the bytes after the last whole record were not replayed');
      if (replayed.skippedRecords > 0) deps.log.error({ file: name, records: replayed.skippedRecords }, 'ingest log records that could not be decoded were skipped');
      if (replayed.report) await deps.store.run('commitGenerations', { reports: [replayed.report] });
      for (const k of replayed.keys) {
        deps.remember(k.scope, k.traceIds, k.spanIds);
        spans += k.spanIds.length;
      }
    }
    rmSync(path, { force: true });
  }
  return { files: names.length, spans, discardedBytes };
}

/** Log files in the directory, oldest generation first within each worker. */
function logFiles(dir: string): string[] {
  try {
    return readdirSync(dir).filter((f) => f.endsWith('.log')).sort();
  } catch {
    return [];
  }
}
