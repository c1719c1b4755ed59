/**
 * An ingest-log file damaged anywhere but in its torn tail lost acknowledged requests. Before its
 * intact records are committed and the file deleted, it is copied as found into
 * `quarantine/ingest-log/<name>.damaged`, with a report beside it (`<name>.damage.json`: where the
 * damage is, records recovered and lost), and the loss is logged at error. Writing both again
 * after a crash in between gives the same files.
 */
import { mkdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Logger } from 'pino';
import { writeFileAtomic } from '../durableFile.js';
import { DAMAGE_REPORT_SUFFIX, type LogDamageReport } from '../store/damageReports.js';
import type { LogDamage } from './logFormat.js';

export function quarantineDamagedLog(
  deps: { quarantineDir: string; log: Logger },
  path: string,
  name: string,
  recordsRecovered: number,
  damage: LogDamage,
): LogDamageReport {
  const found = readFileSync(path);
  const copy = `${name}.damaged`;
  const report: LogDamageReport = {
    file: name,
    copy,
    foundAt: new Date().toISOString(),
    bytes: found.length,
    regions: damage.regions,
    recordsRecovered,
    recordsLost: damage.lostRecords,
  };
  mkdirSync(deps.quarantineDir, { recursive: true });
  writeFileAtomic(join(deps.quarantineDir, copy), found);
  writeFileAtomic(join(deps.quarantineDir, `${name}${DAMAGE_REPORT_SUFFIX}`), `${JSON.stringify(report, null, 2)}\n`);
  deps.log.error(
    {
      file: name,
      records_lost: damage.lostRecords,
      records_recovered: recordsRecovered,
      damaged_regions: damage.regions,
    },
    'ingest log file damaged: acknowledged requests in it are lost; the records after the damage were replayed, the file as found and a report are kept in quarantine/ingest-log until an operator removes the report (docs/reliability.md)',
  );
  return report;
}
