/**
 * Eval runs claimed through the worker lease (docs/decisions.md, "Workers"). The claim is the eval
 * state table's claim (queued → running, store/evals/runs.ts) made in the transaction that creates
 * the lease and mints the run-scoped key the worker's command reports with; so a run claimed with
 * its own key is never leased, and a leased run's key claim is the state table's 409. Every change
 * to a leased run holds the run's lock (evals/runs.ts `runLock`), the one its status reports and
 * trials take, so a lease and a report never write the same rows at once. The eval state table has
 * no way back to `queued`: a lease that expires, or a worker that stops, fails the run.
 */
import { randomUUID } from 'node:crypto';
import { LEASE_EXPIRED, WORKER_STOPPED } from '../../core/workers/evalRun.js';
import type { ReportKind, RunStatus } from '../../core/evals/runState.js';
import { ApiError } from '../../core/errors.js';
import { insertKeyRow } from '../admin/meta.js';
import type { Database, Transaction } from '../db.js';
import { applyReport, getRun, runLock, type RunView } from '../evals/runs.js';
import { scopeSql, type ReadScope } from '../scope.js';
import { iso } from '../sql.js';

/** What the store answers for an eval run it leased (the route adds the key's plaintext and the repository). */
export interface EvalLease {
  kind: 'eval';
  lease_id: string;
  lease_expires_at: string;
  heartbeat_ms: number;
  eval_run: LeasedEvalRun;
  api_key: { id: string; key_prefix: string };
}

/** What a worker needs of a leased eval run. Named: the API reference names its types. */
export interface LeasedEvalRun
  extends Pick<
    RunView,
    'id' | 'experiment' | 'environment_id' | 'suite' | 'suite_version' | 'config' | 'git_commit' | 'git_branch'
  > {}

/** A leased eval run as the claim answers it. */
export interface ClaimedEvalRun extends LeasedEvalRun {
  /** The app's local git repository to check out at `git_commit` (else `git_branch`); null: the command runs in an empty directory. */
  repository: string | null;
}

/** The claim answer for an eval run (`kind: "eval"`), as the worker gets it. */
export interface EvalClaim extends Omit<EvalLease, 'eval_run' | 'api_key'> {
  eval_run: ClaimedEvalRun;
  /** A key minted for this run at the claim (the creation key stays valid): the command reports trials with it. Revoked when the run ends; shown only here. */
  api_key: { id: string; key_prefix: string; plaintext_key: string };
}

export interface EvalClaimInput {
  /** The run-scoped key to mint if a run is claimed (hashed by the caller). */
  key: { keyHash: string; keyPrefix: string };
  createdBy: string;
}

const heartbeatMs = (leaseMs: number) => Math.max(100, Math.min(2000, Math.floor(leaseMs / 3)));

/** Queued eval runs in scope, oldest first (a few: one claimed meanwhile with its own key is skipped). */
export async function queuedEvalRuns(
  db: Database,
  scope: ReadScope,
  limit = 5,
): Promise<{ id: string; created_ms: number }[]> {
  const s = scopeSql(scope, 'r');
  return db.query<{ id: string; created_ms: number }>(
    `SELECT r.id::VARCHAR AS id, epoch_ms(r.created_at)::DOUBLE AS created_ms FROM eval_runs r
      WHERE ${s.sql} AND r.status = 'queued' ORDER BY r.created_at, r.id LIMIT $${s.params.length + 1}`,
    [...s.params, limit],
  );
}

/**
 * Claims the run under a lease, if it is still queued: the state table's claim, the lease row and
 * the minted key in one transaction under the run's lock. Null when it was claimed meanwhile.
 */
export async function claimEvalRun(
  db: Database,
  runId: string,
  c: { worker: string; leaseId: string; leaseMs: number } & EvalClaimInput,
): Promise<EvalLease | null> {
  return runLock.run(`run:${runId}`, async () => {
    const keyId = randomUUID();
    const claimed = await db.transaction(async (tx) => {
      const [row] = await tx.query<{
        status: RunStatus;
        key_id: string | null;
        tenant_id: string;
        app_id: string;
        environment_id: string;
      }>(
        'SELECT status, key_id, tenant_id::VARCHAR AS tenant_id, app_id::VARCHAR AS app_id, environment_id::VARCHAR AS environment_id FROM eval_runs WHERE id = $1',
        [runId],
      );
      if (row?.status !== 'queued') return false;
      await applyReport(tx, {
        runId,
        from: row.status,
        keyId: row.key_id,
        kind: 'claim',
        card: null,
        error: null,
        costUsd: null,
      });
      // Like the creation key (evals/runs.ts createRun): no permission of its own, the run's environment as its pin.
      await insertKeyRow(tx, keyId, {
        tenantId: row.tenant_id,
        appId: row.app_id,
        environmentId: row.environment_id,
        name: 'eval run',
        role: 'custom',
        permissions: [],
        keyHash: c.key.keyHash,
        keyPrefix: c.key.keyPrefix,
        expiresAt: null,
        createdBy: c.createdBy,
      });
      await tx.exec(
        `INSERT INTO worker_eval_leases (run_id, tenant_id, app_id, environment_id, lease_id, lease_expires_at, worker, key_id, claimed_at)
         VALUES ($1, $2, $3, $4, $5, now()::TIMESTAMP + to_milliseconds($6::BIGINT), $7, $8, now()::TIMESTAMP)`,
        [runId, row.tenant_id, row.app_id, row.environment_id, c.leaseId, c.leaseMs, c.worker, keyId],
      );
      return true;
    });
    if (!claimed) return null;
    const [r] = await db.query<{
      experiment: string;
      environment_id: string;
      suite: string;
      suite_version: string | null;
      config: string;
      git_commit: string | null;
      git_branch: string | null;
      lease_expires_at: string;
      key_prefix: string;
    }>(
      `SELECT x.name AS experiment, r.environment_id::VARCHAR AS environment_id, r.suite, r.suite_version, r.config, r.git_commit, r.git_branch,
              ${iso('l.lease_expires_at')} AS lease_expires_at, k.key_prefix
         FROM eval_runs r JOIN experiments x ON x.id = r.experiment_id JOIN worker_eval_leases l ON l.run_id = r.id JOIN api_keys k ON k.id = l.key_id
        WHERE r.id = $1`,
      [runId],
    );
    return {
      kind: 'eval',
      lease_id: c.leaseId,
      lease_expires_at: r!.lease_expires_at,
      heartbeat_ms: heartbeatMs(c.leaseMs),
      eval_run: {
        id: runId,
        experiment: r!.experiment,
        environment_id: r!.environment_id,
        suite: r!.suite,
        suite_version: r!.suite_version,
        config: JSON.parse(r!.config) as Record<string, unknown>,
        git_commit: r!.git_commit,
        git_branch: r!.git_branch,
      },
      api_key: { id: keyId, key_prefix: r!.key_prefix },
    };
  });
}

/** The eval run a lease id names, whether or not the lease still lives; null: not an eval lease. */
export async function evalRunOfLease(db: Database, leaseId: string): Promise<string | null> {
  const [row] = await db.query<{ run_id: string }>(
    'SELECT run_id::VARCHAR AS run_id FROM worker_eval_leases WHERE lease_id = $1',
    [leaseId],
  );
  return row?.run_id ?? null;
}

/** An eval run's live lease, as the turn leases' readers see one (leases.ts `HeldTurn`). */
export interface HeldEval {
  run_id: string;
  tenant_id: string;
  app_id: string;
  environment_id: string;
  worker: string;
  key_id: string | null;
}

/** The live lease, read inside a transaction: in scope, not expired, its run still running; else null. */
export async function heldEval(tx: Transaction, scope: ReadScope, leaseId: string): Promise<HeldEval | null> {
  const s = scopeSql(scope, 'l');
  const [row] = await tx.query<HeldEval>(
    `SELECT l.run_id::VARCHAR AS run_id, l.tenant_id::VARCHAR AS tenant_id, l.app_id::VARCHAR AS app_id, l.environment_id::VARCHAR AS environment_id, l.worker,
            r.key_id::VARCHAR AS key_id
       FROM worker_eval_leases l JOIN eval_runs r ON r.id = l.run_id
      WHERE ${s.sql} AND l.lease_id = $${s.params.length + 1} AND l.lease_expires_at > now()::TIMESTAMP AND r.status = 'running'`,
    [...s.params, leaseId],
  );
  return row ?? null;
}

const gone = () =>
  new ApiError(
    'not_found',
    'This lease is gone (it expired, or its eval run ended): stop the eval command and drop its work',
    { reason: 'lease_lost' },
  );

export async function heartbeatEval(db: Database, scope: ReadScope, runId: string, leaseId: string, leaseMs: number) {
  return runLock.run(`run:${runId}`, () =>
    db.transaction(async (tx) => {
      const held = await heldEval(tx, scope, leaseId);
      if (!held) throw gone();
      const [row] = await tx.query<{ lease_expires_at: string }>(
        `UPDATE worker_eval_leases SET lease_expires_at = now()::TIMESTAMP + to_milliseconds($2::BIGINT) WHERE run_id = $1 RETURNING ${iso('lease_expires_at')} AS lease_expires_at`,
        [held.run_id, leaseMs],
      );
      // Eval runs are not cancelled through the worker routes: `cancel` is always false.
      return {
        run_id: held.run_id,
        turn_index: 0,
        lease_expires_at: row!.lease_expires_at,
        cancel: false,
        worker: held.worker,
      };
    }),
  );
}

export interface EvalEndReport {
  kind: Exclude<ReportKind, 'claim'>;
  /** JSON text of the card (complete). */
  card: string | null;
  error: string | null;
  costUsd: number | null;
}

/** Ends the leased run (the worker's report, or its hand-back); answers the run and the revoked keys' hashes. */
export async function endEval(
  db: Database,
  scope: ReadScope,
  runId: string,
  leaseId: string,
  end: EvalEndReport,
): Promise<{ run: RunView; revokedKeyHashes: string[] }> {
  return runLock.run(`run:${runId}`, async () => {
    const revoked = await db.transaction(async (tx) => {
      const held = await heldEval(tx, scope, leaseId);
      if (!held) throw gone();
      return applyReport(tx, { runId: held.run_id, from: 'running', keyId: held.key_id, ...end });
    });
    return { run: (await getRun(db, { ...scope, environmentId: null }, runId))!, revokedKeyHashes: revoked };
  });
}

/** A stopping worker's hand-back: the run cannot be queued again, so it fails (`worker stopped`). */
export function releaseEval(db: Database, scope: ReadScope, runId: string, leaseId: string) {
  return endEval(db, scope, runId, leaseId, { kind: 'fail', card: null, error: WORKER_STOPPED, costUsd: null });
}

/** The eval leases held now (`l`, with their run `r`): those a sweep expires, and whose ends it watches (leases.ts). */
export const HELD_EVAL_LEASES = `worker_eval_leases l JOIN eval_runs r ON r.id = l.run_id WHERE l.lease_id IS NOT NULL AND r.status = 'running'`;

/** Eval runs whose lease expired fail with `lease_expired` (the trials reported so far are kept). */
export async function expireEvalLeases(
  db: Database,
): Promise<{ tenantId: string; runId: string; revokedKeyHashes: string[] }[]> {
  const expired = await db.query<{ tenant_id: string; run_id: string; lease_id: string }>(
    `SELECT l.tenant_id::VARCHAR AS tenant_id, l.run_id::VARCHAR AS run_id, l.lease_id
       FROM ${HELD_EVAL_LEASES} AND l.lease_expires_at <= now()::TIMESTAMP`,
  );
  const ended: { tenantId: string; runId: string; revokedKeyHashes: string[] }[] = [];
  for (const e of expired) {
    const revoked = await runLock.run(`run:${e.run_id}`, () =>
      db.transaction(async (tx) => {
        // Read again under the lock: the worker may have ended it meanwhile.
        const [now] = await tx.query<{ key_id: string | null }>(
          `SELECT r.key_id::VARCHAR AS key_id FROM worker_eval_leases l JOIN eval_runs r ON r.id = l.run_id
            WHERE l.run_id = $1 AND l.lease_id = $2 AND l.lease_expires_at <= now()::TIMESTAMP AND r.status = 'running'`,
          [e.run_id, e.lease_id],
        );
        if (!now) return null;
        return applyReport(tx, {
          runId: e.run_id,
          from: 'running',
          keyId: now.key_id,
          kind: 'fail',
          card: null,
          error: LEASE_EXPIRED,
          costUsd: null,
        });
      }),
    );
    if (revoked) ended.push({ tenantId: e.tenant_id, runId: e.run_id, revokedKeyHashes: revoked });
  }
  return ended;
}
