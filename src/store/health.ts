/**
 * Real dependency checks for the health endpoints: a query through DuckDB, a write + fsync + read in
 * the data directory, free disk space, and the segment and blob directories being readable.
 */
import { randomBytes } from 'node:crypto';
import { closeSync, fsyncSync, openSync, readdirSync, readFileSync, statfsSync, unlinkSync, writeSync } from 'node:fs';
import { join } from 'node:path';
import type { Database } from './db.js';
import { storeDirs } from './layout.js';
import { DAMAGE_REPORT_SUFFIX, damageTotals } from './damageReports.js';
import { QUARANTINE_DIR, quarantined } from './walGuard.js';

/** Named for the API reference (see core/filter/schema.ts, OperatorSpellings). */
export interface CheckDetail {
  [fact: string]: number | string;
}

export interface DependencyCheck {
  name: string;
  status: 'healthy' | 'unhealthy';
  latencyMs: number;
  error?: string;
  /** Extra facts of the check, e.g. free bytes. */
  detail?: CheckDetail;
}

/**
 * Below this much free space the store cannot promise durable writes: 512 MiB, or 5% of a smaller
 * filesystem (a 1 GiB volume is not unhealthy from the start).
 */
export const MIN_FREE_BYTES = 512 * 1024 ** 2;
const MIN_FREE_SHARE = 0.05;

type CheckName = 'duckdb' | 'data_dir' | 'disk' | 'segments' | 'quarantine';

export async function checkHealth(
  db: () => Promise<Database>,
  dataDir: string,
  checks: readonly CheckName[],
): Promise<DependencyCheck[]> {
  const run: Record<CheckName, () => Promise<Record<string, number | string> | undefined>> = {
    duckdb: async () => {
      const [row] = await (await db()).query<{ v: number }>('SELECT max(version)::INTEGER AS v FROM schema_migrations');
      return { schema_version: row?.v ?? 0 };
    },
    data_dir: async () => {
      const probe = join(dataDir, `.probe-${randomBytes(6).toString('hex')}`);
      const payload = randomBytes(16).toString('hex');
      const fd = openSync(probe, 'wx');
      try {
        writeSync(fd, payload);
        fsyncSync(fd);
      } finally {
        closeSync(fd);
      }
      const back = readFileSync(probe, 'utf8');
      unlinkSync(probe);
      if (back !== payload) throw new Error('probe file read back differently');
      return undefined;
    },
    disk: async () => {
      const s = statfsSync(dataDir);
      const free = s.bavail * s.bsize;
      const needed = Math.min(MIN_FREE_BYTES, Math.floor(s.blocks * s.bsize * MIN_FREE_SHARE));
      if (free < needed) throw new Error(`only ${free} bytes free; at least ${needed} needed`);
      return { free_bytes: free, total_bytes: s.blocks * s.bsize };
    },
    segments: async () => {
      const dirs = storeDirs(dataDir);
      readdirSync(dirs.segments);
      readdirSync(dirs.blobs);
      const [row] = await (await db()).query<Record<string, number>>(
        `SELECT (count(*) FILTER (WHERE replaced_at IS NULL AND level = 0))::INTEGER AS small_segments,
                (count(*) FILTER (WHERE replaced_at IS NULL AND level > 0))::INTEGER AS compacted_segments,
                (count(*) FILTER (WHERE replaced_at IS NOT NULL))::INTEGER AS replaced_segments,
                (count(*) FILTER (WHERE replaced_at IS NULL AND level > 0 AND rolled_up IS NOT TRUE))::INTEGER AS rollups_pending,
                (coalesce(sum(rows) FILTER (WHERE replaced_at IS NULL), 0))::DOUBLE AS span_rows,
                (coalesce(sum(bytes) FILTER (WHERE replaced_at IS NULL), 0))::DOUBLE AS segment_bytes
           FROM segments`,
      );
      return row ?? {};
    },
    // Files set aside after damage (a WAL that could not be replayed whole, and the segments its
    // lost manifest rows named; a segment that could not be read; an ingest-log file damaged, with
    // its report) and acknowledged requests the store refused (ingest-log/): unhealthy until an
    // operator has looked and emptied the directory.
    quarantine: async () => {
      const files = quarantined(dataDir);
      if (files.length === 0) return { files: 0 };
      const damaged = damageTotals(dataDir);
      throw new CheckFailure(
        `${files.length} file(s) set aside in ${join(dataDir, QUARANTINE_DIR)}, after damage found at start or requests the store refused (${files
          .slice(0, 5)
          .map((f) => f.name)
          .join(', ')}${files.length > 5 ? ', …' : ''})${
          damaged.files > 0
            ? `; ${damaged.recordsLost} acknowledged request(s) lost to damage in ${damaged.files} ingest log file(s), until an operator removes their *${DAMAGE_REPORT_SUFFIX} report(s)`
            : ''
        }; see docs/reliability.md`,
        { files: files.length, damaged_log_files: damaged.files, log_records_lost: damaged.recordsLost },
      );
    },
  };
  return Promise.all(checks.map((name) => timeCheck(name, run[name])));
}

async function timeCheck(
  name: string,
  check: () => Promise<Record<string, number | string> | undefined>,
): Promise<DependencyCheck> {
  const started = performance.now();
  try {
    const detail = await check();
    return { name, status: 'healthy', latencyMs: elapsed(started), ...(detail ? { detail } : {}) };
  } catch (e) {
    const detail = e instanceof CheckFailure ? { detail: e.detail } : {};
    return { name, status: 'unhealthy', latencyMs: elapsed(started), error: (e as Error).message, ...detail };
  }
}

/** A failed check that has facts to tell besides its message. */
class CheckFailure extends Error {
  constructor(
    message: string,
    readonly detail: CheckDetail,
  ) {
    super(message);
  }
}

const elapsed = (since: number): number => Math.round((performance.now() - since) * 1000) / 1000;
