/**
 * Eval runs at rest: created with their experiment (on first use) and their run-scoped key in one
 * transaction; moved through the state machine of core/evals/runState.ts one report at a time per
 * run; the key revoked in the transaction that ends the run.
 */
import { randomUUID } from 'node:crypto';
import type { DuckDBValue } from '@duckdb/node-api';
import { transition, isTerminal, type ReportKind, type RunStatus } from '../../core/evals/runState.js';
import { ApiError } from '../../core/errors.js';
import type { Database, Transaction } from '../db.js';
import { insertKeyRow, listKeys, type KeyView, type Scope } from '../admin/meta.js';
import type { Page } from '../spans/reads.js';
import { scopeSql, type ReadScope } from '../scope.js';
import { iso } from '../sql.js';
import { KeyedLock } from '../../core/keyedLock.js';

/** An eval run as the API shows it. */
export interface RunView {
  id: string;
  experiment_id: string;
  experiment: string;
  environment_id: string;
  suite: string;
  suite_version: string | null;
  config: Record<string, unknown>;
  git_commit: string | null;
  git_branch: string | null;
  status: RunStatus;
  /** The run-scoped key made with the run (revoked when the run ends). */
  key_id: string | null;
  /** The cost the worker reported for the whole run (USD); null until it reports one. */
  cost_usd: number | null;
  card: Record<string, unknown> | null;
  error: string | null;
  created_at: string;
  claimed_at: string | null;
  finished_at: string | null;
}

type RunRow = Omit<RunView, 'config' | 'card'> & { config: string; card: string | null };

const RUN_FIELDS = `r.id, r.experiment_id, x.name AS experiment, r.environment_id, r.suite, r.suite_version, r.config, r.git_commit, r.git_branch,
  r.status, r.key_id, r.cost_usd::DOUBLE AS cost_usd, r.card, r.error, ${iso('r.created_at')} AS created_at, ${iso('r.claimed_at')} AS claimed_at,
  ${iso('r.finished_at')} AS finished_at`;
const RUN_FROM = 'eval_runs r JOIN experiments x ON x.id = r.experiment_id';

function toView(row: RunRow): RunView {
  return {
    ...row,
    config: JSON.parse(row.config) as Record<string, unknown>,
    card: row.card === null ? null : (JSON.parse(row.card) as Record<string, unknown>),
  };
}

/** Reports of one run, and run creations of one app, happen one at a time (lock.ts). */
export const runLock = new KeyedLock();

export interface NewRun {
  scope: Scope;
  experiment: string;
  suite: string;
  suiteVersion: string | null;
  /** JSON text of the configuration under test. */
  config: string;
  gitCommit: string | null;
  gitBranch: string | null;
  createdBy: string;
  key: { keyHash: string; keyPrefix: string };
}

/** The run, its experiment (created on first use) and its key, in one transaction. */
export async function createRun(db: Database, n: NewRun): Promise<{ run: RunView; key: KeyView }> {
  const runId = randomUUID();
  const keyId = randomUUID();
  const { tenantId, appId, environmentId } = n.scope;
  await runLock.run(`app:${appId}`, () =>
    db.transaction(async (tx) => {
      await tx.exec(
        `INSERT INTO experiments (id, tenant_id, app_id, name, created_at, created_by) VALUES ($1, $2, $3, $4, now()::TIMESTAMP, $5) ON CONFLICT DO NOTHING`,
        [randomUUID(), tenantId, appId, n.experiment, n.createdBy],
      );
      const [experiment] = await tx.query<{ id: string }>(
        'SELECT id FROM experiments WHERE tenant_id = $1 AND app_id = $2 AND name = $3',
        [tenantId, appId, n.experiment],
      );
      // A run key does what a worker does for this run and nothing else (core/permissions.ts): no
      // permission of its own, the run's environment as its pin. Its name says what it is but not
      // which run: key listings are for admins who may not read the app's data (the run names it).
      await insertKeyRow(tx, keyId, {
        tenantId,
        appId,
        environmentId,
        name: 'eval run',
        role: 'custom',
        permissions: [],
        keyHash: n.key.keyHash,
        keyPrefix: n.key.keyPrefix,
        expiresAt: null,
        createdBy: n.createdBy,
      });
      await tx.exec(
        `INSERT INTO eval_runs (id, tenant_id, app_id, environment_id, experiment_id, suite, suite_version, config, git_commit, git_branch, status, key_id, created_at, created_by)
         VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, 'queued', $11, now()::TIMESTAMP, $12)`,
        [
          runId,
          tenantId,
          appId,
          environmentId,
          experiment!.id,
          n.suite,
          n.suiteVersion,
          n.config,
          n.gitCommit,
          n.gitBranch,
          keyId,
          n.createdBy,
        ],
      );
    }),
  );
  const [run] = await db.query<RunRow>(`SELECT ${RUN_FIELDS} FROM ${RUN_FROM} WHERE r.id = $1`, [runId]);
  const [key] = await listKeys(db, tenantId, appId, keyId);
  return { run: toView(run!), key: key! };
}

export async function getRun(db: Database, scope: ReadScope, id: string): Promise<RunView | null> {
  const s = scopeSql(scope, 'r');
  const [row] = await db.query<RunRow>(
    `SELECT ${RUN_FIELDS} FROM ${RUN_FROM} WHERE ${s.sql} AND r.id = $${s.params.length + 1}`,
    [...s.params, id],
  );
  return row ? toView(row) : null;
}

/** Runs in scope, newest first, optionally of one experiment or status. */
export async function listRuns(
  db: Database,
  scope: ReadScope,
  q: { experimentId?: string; status?: RunStatus; limit: number; offset: number },
): Promise<Page<RunView>> {
  const s = scopeSql(scope, 'r');
  const params: DuckDBValue[] = [...s.params];
  let where = s.sql;
  if (q.experimentId !== undefined) where += ` AND r.experiment_id = $${params.push(q.experimentId)}`;
  if (q.status !== undefined) where += ` AND r.status = $${params.push(q.status)}`;
  const [rows, [count]] = await Promise.all([
    db.query<RunRow>(
      `SELECT ${RUN_FIELDS} FROM ${RUN_FROM} WHERE ${where} ORDER BY r.created_at DESC, r.id LIMIT $${params.length + 1} OFFSET $${params.length + 2}`,
      [...params, q.limit, q.offset],
    ),
    db.query<{ n: number }>(`SELECT count(*)::INTEGER AS n FROM eval_runs r WHERE ${where}`, params),
  ]);
  return { data: rows.map(toView), total: count?.n ?? 0 };
}

export interface StatusChange {
  scope: ReadScope;
  runId: string;
  kind: ReportKind;
  /** JSON text of the card (complete). */
  card: string | null;
  error: string | null;
  costUsd: number | null;
}

/**
 * Applies one status report. Returns the run after it and the hash of the key the report revoked
 * (so the main thread's auth cache drops it at once); null when no such run is in scope. A report
 * the state machine refuses throws its 409.
 */
export async function reportStatus(
  db: Database,
  c: StatusChange,
): Promise<{ run: RunView; revokedKeyHashes: string[] } | null> {
  return runLock.run(`run:${c.runId}`, async () => {
    const revoked = await db.transaction(async (tx) => {
      const s = scopeSql(c.scope, 'r');
      const [row] = await tx.query<{ status: RunStatus; key_id: string | null }>(
        `SELECT r.status, r.key_id FROM eval_runs r WHERE ${s.sql} AND r.id = $${s.params.length + 1}`,
        [...s.params, c.runId],
      );
      if (!row) return undefined;
      return applyReport(tx, {
        runId: c.runId,
        from: row.status,
        keyId: row.key_id,
        kind: c.kind,
        card: c.card,
        error: c.error,
        costUsd: c.costUsd,
      });
    });
    if (revoked === undefined) return null;
    return { run: (await getRun(db, c.scope, c.runId))!, revokedKeyHashes: revoked };
  });
}

/**
 * Moves a run read in `tx` (status `from`) as one report asks, in that transaction; ending it
 * revokes its keys (their hashes are answered, for the auth cache). The caller holds the run's lock.
 */
export async function applyReport(
  tx: Transaction,
  r: {
    runId: string;
    from: RunStatus;
    keyId: string | null;
    kind: ReportKind;
    card: string | null;
    error: string | null;
    costUsd: number | null;
  },
): Promise<string[]> {
  const to = transition(r.from, r.kind);
  const changed = await tx.query(
    `UPDATE eval_runs SET status = $2,
            claimed_at = CASE WHEN $2 = 'running' THEN now()::TIMESTAMP ELSE claimed_at END,
            finished_at = CASE WHEN $2 IN ('succeeded', 'failed') THEN now()::TIMESTAMP ELSE finished_at END,
            card = coalesce($4, card), error = coalesce($5, error), cost_usd = coalesce($6::DECIMAL(38, 12), cost_usd)
      WHERE id = $1 AND status = $3 RETURNING id`,
    [r.runId, to, r.from, r.card, r.error, r.costUsd],
  );
  // The lock makes this unreachable; the guard keeps the rule in SQL too.
  if (changed.length === 0) throw new ApiError('conflict', 'The run changed status meanwhile', { status: r.from });
  return isTerminal(to) ? endRunKeys(tx, r.runId, r.keyId) : [];
}

/** Revokes a key in the transaction that ends its run; its hash, for the auth cache. */
async function revokeRunKey(tx: Transaction, keyId: string): Promise<string | null> {
  const [row] = await tx.query<{ key_hash: string }>(
    'UPDATE api_keys SET revoked_at = coalesce(revoked_at, now()::TIMESTAMP) WHERE id = $1 RETURNING key_hash',
    [keyId],
  );
  return row?.key_hash ?? null;
}

/**
 * In the transaction that ends a run: revokes its creation key and the key minted when a worker
 * claimed it through a lease (store/workers/evalLeases.ts), and ends that lease. Answers the
 * revoked keys' hashes, for the auth cache.
 */
export async function endRunKeys(tx: Transaction, runId: string, creationKeyId: string | null): Promise<string[]> {
  const hashes: string[] = [];
  if (creationKeyId !== null)
    hashes.push(...[await revokeRunKey(tx, creationKeyId)].filter((h): h is string => h !== null));
  const leased = await tx.query<{ key_id: string }>(
    'UPDATE worker_eval_leases SET lease_id = NULL, lease_expires_at = NULL, ended_at = coalesce(ended_at, now()::TIMESTAMP) WHERE run_id = $1 RETURNING key_id::VARCHAR AS key_id',
    [runId],
  );
  for (const l of leased) {
    const hash = await revokeRunKey(tx, l.key_id);
    if (hash !== null) hashes.push(hash);
  }
  return hashes;
}

/** The run's status and environment, read inside a caller's transaction; null when not in scope. */
export async function runInScope(
  tx: Transaction,
  scope: ReadScope,
  runId: string,
): Promise<{ status: RunStatus; environment_id: string } | null> {
  const s = scopeSql(scope, 'r');
  const [row] = await tx.query<{ status: RunStatus; environment_id: string }>(
    `SELECT r.status, r.environment_id FROM eval_runs r WHERE ${s.sql} AND r.id = $${s.params.length + 1}`,
    [...s.params, runId],
  );
  return row ?? null;
}
