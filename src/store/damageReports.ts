/**
 * Reports of ingest-log files found damaged at replay, kept in `quarantine/ingest-log/` beside the
 * file as it was found (ingest/logDamage.ts writes both). `/v1/health/files` and the metrics count
 * them until an operator acknowledges the loss by removing the report (docs/reliability.md).
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { QUARANTINE_DIR } from './walGuard.js';

/** `<log file>.damage.json`, beside `<log file>.damaged` (the file as found). */
export const DAMAGE_REPORT_SUFFIX = '.damage.json';

export interface LogDamageReport {
  /** The log file's name, and its copy as found (in the same directory). */
  file: string;
  copy: string;
  foundAt: string;
  bytes: number;
  /** Byte ranges that held no readable record. */
  regions: { offset: number; bytes: number }[];
  recordsRecovered: number;
  recordsLost: number;
}

export function damageReportDir(dataDir: string): string {
  return join(dataDir, QUARANTINE_DIR, 'ingest-log');
}

/** The reports not yet acknowledged; one that cannot be read counts as one record lost. */
function damageReports(dataDir: string): Pick<LogDamageReport, 'file' | 'recordsLost'>[] {
  const dir = damageReportDir(dataDir);
  let names: string[];
  try {
    names = readdirSync(dir).filter((n) => n.endsWith(DAMAGE_REPORT_SUFFIX));
  } catch {
    return [];
  }
  return names.sort().map((name) => {
    try {
      const report = JSON.parse(readFileSync(join(dir, name), 'utf8')) as LogDamageReport;
      return { file: report.file, recordsLost: Number(report.recordsLost) || 1 };
    } catch {
      return { file: name.slice(0, -DAMAGE_REPORT_SUFFIX.length), recordsLost: 1 };
    }
  });
}

/** How many reports wait for an operator, and the records they say were lost. */
export function damageTotals(dataDir: string): { files: number; recordsLost: number } {
  const reports = damageReports(dataDir);
  return { files: reports.length, recordsLost: reports.reduce((n, r) => n + r.recordsLost, 0) };
}
