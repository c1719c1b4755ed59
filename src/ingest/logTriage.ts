/**
 * A log file whose generation the store refuses for a value in its data (store/refusals.ts: a cast,
 * a range, a constraint — never a failure of the machine, which is retried): its records are
 * replayed and committed one at a time, and those the store refuses on their own are set aside in
 * `quarantine/ingest-log/<the file's name>`, as they were logged, before the file is deleted. So a
 * request whose value no guard knew costs its own spans (until an operator restores them,
 * docs/reliability.md), not the readability of every span acknowledged after it.
 *
 * Each record is committed under a name of its own, from its file's name and its bytes
 * (`recordLogName`), so a triage cut short by a crash and run again at the next start commits no
 * record twice, and a quarantine file restored while its cause is not yet fixed (it holds the
 * refused records only, in other places) is triaged as freshly: none of its records was
 * committed. The quarantine file is written whole (temp, fsync, rename) before the log file goes,
 * and written again the same if the crash came between.
 */
import { createHash } from 'node:crypto';
import { mkdirSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import type { Logger } from 'pino';
import { writeFileAtomic } from '../durableFile.js';
import type { ComputeClient } from './computeClient.js';
import type { StoreClient } from '../store/storeClient.js';
import type { Scope } from '../store/admin/meta.js';
import { isStoreRefusal } from '../store/refusals.js';
import { quarantineDamagedLog } from './logDamage.js';
import { decodeLog, encodeRecord, type LogDamage, type LogRecord } from './logFormat.js';
import { crashPoint } from '../testHooks.js';

export interface TriageDeps {
  store: StoreClient;
  compute: ComputeClient;
  log: Logger;
  remember: (scope: Scope, traceIds: string[], spanIds: string[]) => void;
  /** Where refused records go (`<dataDir>/quarantine/ingest-log`). */
  quarantineDir: string;
}

export interface Triaged {
  /** Records in the file. */
  records: number;
  /** The places in the file (from 0) of the records set aside. */
  setAside: number[];
  /** Spans committed by this triage (none of records committed by an earlier one). */
  spans: number;
  /** The quarantine file, when a record was set aside. */
  quarantined: string | null;
  /** Damage found in the file (kept in the quarantine with a report, logDamage.ts). */
  damage: LogDamage | null;
}

/**
 * Triages `name` in `logDir` (see above). Throws, leaving the file for a later try, when the store
 * or a worker fails for another reason than a refusal.
 */
export async function triageLog(deps: TriageDeps, logDir: string, name: string): Promise<Triaged> {
  const path = join(logDir, name);
  const { records, damage } = decodeLog(readFileSync(path));
  if (damage) quarantineDamagedLog(deps, path, name, records.length, damage);
  const names = records.map((r) => recordLogName(name, r));
  const done = new Set(await deps.store.run('committedLogs', { names }));
  const setAside: number[] = [];
  const refused: LogRecord[] = [];
  let spans = 0;
  for (const [i, record] of records.entries()) {
    if (done.has(names[i]!)) continue;
    try {
      const replayed = await deps.compute.run('replayLog', { path, name: names[i]!, record: i });
      if (replayed.report) await deps.store.run('commitGenerations', { reports: [replayed.report] });
      crashPoint('after-triage-commit');
      for (const k of replayed.keys) {
        deps.remember(k.scope, k.traceIds, k.spanIds);
        spans += k.spanIds.length;
      }
    } catch (err) {
      if (!isStoreRefusal(err)) throw err;
      setAside.push(record.header.place ?? i);
      refused.push(record);
      const { tenantId, appId, environmentId, receivedAtMs } = record.header;
      deps.log.error(
        {
          err,
          file: name,
          record: i,
          tenant_id: tenantId,
          app_id: appId,
          environment_id: environmentId,
          received_at: new Date(receivedAtMs).toISOString(),
        },
        'the store refused the spans of an acknowledged request; the request is set aside in quarantine/ingest-log, unreadable until an operator restores it (docs/reliability.md)',
      );
    }
  }
  let quarantined: string | null = null;
  if (setAside.length > 0) {
    mkdirSync(deps.quarantineDir, { recursive: true });
    quarantined = join(deps.quarantineDir, name);
    writeFileAtomic(quarantined, Buffer.concat(refused.flatMap((r) => encodeRecord(r.header, r.body))));
  }
  rmSync(path, { force: true });
  return { records: records.length, setAside, spans, quarantined, damage };
}

/**
 * The name a record of log file `name` is committed under: the file's name and a hash of the
 * record's header and body (never a file's name: no `.log` ends it).
 */
export function recordLogName(name: string, record: LogRecord): string {
  const hash = createHash('sha256').update(JSON.stringify(record.header)).update(record.body).digest('hex');
  return `${name.replace(/\.log$/, '')}.record-${hash.slice(0, 24)}`;
}
