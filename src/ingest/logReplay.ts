/**
 * Replays ingest log files that no committed generation covers: at start (what a crash left), and
 * for a compute thread that ended. Files a committed generation names are moved aside (below); the others are
 * decoded again by a compute thread, with the admission decisions their records carry, written as
 * segments and committed. The replayed spans join the admission index, so a client's retry of a
 * request whose answer was lost is recognised as a replay. A file whose generation the store refuses
 * for a value in its data is triaged (logTriage.ts): its records committed one by one, those refused
 * set aside — so one bad record never stops a start. A file damaged anywhere but in its torn tail
 * is kept in the quarantine with a report (logDamage.ts) before its intact records are committed.
 */
import { mkdirSync, readdirSync, renameSync } from 'node:fs';
import { join } from 'node:path';
import { COMMITTED_LOGS } from '../store/layout.js';
import { isStoreRefusal } from '../store/refusals.js';
import { quarantineDamagedLog } from './logDamage.js';
import { triageLog, type TriageDeps } from './logTriage.js';

export interface Replayed {
  files: number;
  spans: number;
  discardedBytes: number;
  /** Records the store refused, set aside in the quarantine. */
  setAside: number;
  /** Records lost to damage in files, kept in the quarantine with a report. */
  lostRecords: number;
}

/**
 * Replays the log files in `logDir` (of one worker, when `workerId` is given); at start also those
 * waiting in `committed/` for a checkpoint whose commit the database lost with its WAL. A file
 * replayed, or found committed, waits in `committed/` for the next checkpoint in its turn.
 */
export async function replayLogs(deps: TriageDeps, logDir: string, workerId?: string): Promise<Replayed> {
  const aside = join(logDir, COMMITTED_LOGS);
  const files = [
    ...logFiles(logDir)
      .filter((n) => workerId === undefined || n.startsWith(`${workerId}-`))
      .map((name) => ({ dir: logDir, name })),
    ...(workerId === undefined ? logFiles(aside).map((name) => ({ dir: aside, name })) : []),
  ];
  if (files.length === 0) return { files: 0, spans: 0, discardedBytes: 0, setAside: 0, lostRecords: 0 };
  const done = new Set(await deps.store.run('committedLogs', { names: files.map((f) => f.name) }));
  let spans = 0;
  let discardedBytes = 0;
  let setAside = 0;
  let lostRecords = 0;
  for (const { dir, name } of files) {
    const path = join(dir, name);
    if (!done.has(name)) {
      const replayed = await replayFile(deps, path, name);
      if (!replayed) {
        const triaged = await triageLog(deps, dir, name);
        spans += triaged.spans;
        setAside += triaged.setAside.length;
        lostRecords += triaged.damage?.lostRecords ?? 0;
        continue;
      }
      discardedBytes += replayed.discardedBytes;
      lostRecords += replayed.damage?.lostRecords ?? 0;
      if (replayed.discardedBytes > 0)
        deps.log.warn(
          { file: name, discarded_bytes: replayed.discardedBytes },
          'ingest log ended in a torn record (a write a crash cut short, never acknowledged); its bytes were not replayed',
        );
      if (replayed.skippedRecords > 0)
        deps.log.error(
          { file: name, records: replayed.skippedRecords },
          'ingest log records that could not be decoded were skipped',
        );
      for (const k of replayed.keys) {
        deps.remember(k.scope, k.traceIds, k.spanIds);
        spans += k.spanIds.length;
      }
    }
    if (dir === logDir) {
      mkdirSync(aside, { recursive: true });
      renameSync(path, join(aside, name));
    }
  }
  return { files: files.length, spans, discardedBytes, setAside, lostRecords };
}

/** A log file replayed and committed; null when the store (or a worker's DuckDB) refused a value in it. */
async function replayFile(deps: TriageDeps, path: string, name: string) {
  try {
    const replayed = await deps.compute.run('replayLog', { path, name });
    if (replayed.damage) quarantineDamagedLog(deps, path, name, replayed.records, replayed.damage);
    if (replayed.report) await deps.store.run('commitGenerations', { reports: [replayed.report] });
    return replayed;
  } catch (err) {
    if (!isStoreRefusal(err)) throw err;
    deps.log.error(
      { err, file: name },
      'the store refused a replayed generation for a value in its data; committing its requests one by one to set aside those it refuses',
    );
    return null;
  }
}

/** Log files in the directory, oldest generation first within each worker. */
function logFiles(dir: string): string[] {
  try {
    return readdirSync(dir)
      .filter((f) => f.endsWith('.log'))
      .sort();
  } catch {
    return [];
  }
}
