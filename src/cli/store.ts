/**
 * The CLI's hold on a store: opens the data dir's DuckDB file as the server would (same hardening,
 * same migrations), runs one command and closes it with a checkpoint. DuckDB allows one process per
 * file, so while a server runs on the data dir the open fails (StoreLocked): the command must go
 * through the server's operator API instead (cli/run.ts says how).
 */
import { existsSync, mkdirSync } from 'node:fs';
import { join, resolve } from 'node:path';
import {
  abandonSecret,
  confirmSecret,
  prepareSecret,
  readSecret,
  refusalFor,
  SECRET_FILE,
  secretCheck,
  StartRefusal,
} from '../auth/secret.js';
import { verifySecret } from '../store/admin/identity.js';
import { Database } from '../store/db.js';
import { DATABASE_FILE } from '../store/layout.js';
import { migrate } from '../store/migrate.js';
import type { OperatorStore } from '../store/admin/operator.js';

/** A failure to report on stderr with exit code 1 (as opposed to a bug, which gets its stack). */
export class CliFailure extends Error {}

/** Another process, most likely a running server, holds the store's database. */
export class StoreLocked extends CliFailure {
  constructor(
    readonly dataDir: string,
    readonly reason: string,
  ) {
    super(`The store in ${dataDir} is locked by another process, most likely a running Tracelake server (${reason})`);
  }
}

/** The store, its secret verified against it (created on first use, as the server does). */
export type Store = OperatorStore;

const LOCKED = /Could not set lock|Conflicting lock/i;

/**
 * Runs `work` against the store in `dataDir`. Only `create` may start a new store: any other
 * command on a directory without one fails, so a mistyped path does not leave an empty store behind.
 */
export async function withStore<T>(dataDir: string, create: boolean, work: (store: Store) => Promise<T>): Promise<T> {
  const dir = resolve(dataDir);
  const storeExists = existsSync(join(dir, DATABASE_FILE));
  if (!create && !storeExists) {
    throw new CliFailure(`No Tracelake store in ${dir} (give --data-dir or set TRACELAKE_DATA_DIR)`);
  }
  // As the server refuses to: a surviving secret without its database means the database was lost.
  if (!storeExists && refuseSecret(() => readSecret(join(dir, SECRET_FILE))) !== null) {
    throw new CliFailure(
      `${dir} has a secret but no ${DATABASE_FILE}: the store's database is missing. Restore it from a backup first.`,
    );
  }
  mkdirSync(dir, { recursive: true });
  let db: Database;
  try {
    db = await Database.open({ dataDir: dir, threads: 1, memoryLimit: '512MiB', queryTimeoutMs: 60_000 });
  } catch (e) {
    const message = (e as Error).message;
    if (LOCKED.test(message)) throw new StoreLocked(dir, message);
    throw e;
  }
  try {
    await migrate(db);
    let verified: Promise<Buffer> | undefined;
    return await work({ db, dataDir: dir, secret: () => (verified ??= verifiedSecret(db, dir)) });
  } finally {
    await db.checkpoint().catch(() => undefined);
    db.close();
  }
}

/** The data dir's secret once the store has judged it (see auth/secret.ts); CliFailure otherwise. */
async function verifiedSecret(db: Database, dir: string): Promise<Buffer> {
  const candidate = refuseSecret(() => prepareSecret(dir));
  const verdict = await verifySecret(db, secretCheck(candidate.secret), candidate.pending);
  if (verdict !== 'ok') {
    if (candidate.pending) abandonSecret(dir);
    throw new CliFailure(refusalFor(verdict, dir).message);
  }
  if (candidate.pending) confirmSecret(dir);
  return candidate.secret;
}

function refuseSecret<T>(read: () => T): T {
  try {
    return read();
  } catch (e) {
    throw e instanceof StartRefusal ? new CliFailure(e.message) : e;
  }
}
