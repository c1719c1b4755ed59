/**
 * Worker runs at rest: launched with their first turn, given follow-up turns (sessions), cancelled
 * and closed. Every change to a tenant's worker rows happens under one lock per tenant (lock.ts:
 * two transactions changing one row would end in a write conflict), so the plan's cap on runs in
 * flight and "one turn at a time per session" are decided in order of arrival: of two requests
 * racing for an idle session, the second sees the first one's turn.
 */
import { ApiError } from '../../core/errors.js';
import {
  assertTakesTurn,
  checkWorkerEntitlement,
  isInFlight,
  workBranchOf,
  type RunKind,
  type TurnStatus,
} from '../../core/workers/turns.js';
import type { Database, Transaction } from '../db.js';
import { KeyedLock } from '../../core/keyedLock.js';
import { scopeSql, type ReadScope } from '../scope.js';
import { readRun, readTurns, type WorkerRunDetail, type WorkerTurnView } from './views.js';

/** One lock per tenant for every change to its worker runs and turns. */
export const workerLock = new KeyedLock();
export const tenantLockKey = (tenantId: string) => `workers:${tenantId}`;

export interface NewWorkerRun {
  id: string;
  scope: { tenantId: string; appId: string; environmentId: string };
  kind: RunKind;
  title: string | null;
  profile: string;
  prompt: string;
  repository: string;
  baseBranch: string;
  baseCommit: string | null;
  traceId: string;
  createdBy: string;
  /** The plan's cap on the tenant's runs in flight; null: none. */
  maxInFlight: number | null;
}

/** Runs of the tenant with a turn queued or running (what the plan caps). */
async function runsInFlight(tx: Transaction, tenantId: string): Promise<number> {
  const [row] = await tx.query<{ n: number }>(
    `SELECT count(DISTINCT run_id)::INTEGER AS n FROM worker_turns WHERE tenant_id = $1 AND status IN ('queued', 'running')`,
    [tenantId],
  );
  return row?.n ?? 0;
}

/** The open session of an environment, with the status of its latest turn; null when there is none. */
async function openSession(
  tx: Transaction,
  scope: ReadScope,
  environmentId: string,
): Promise<{ id: string; latest: TurnStatus; last: number } | null> {
  const s = scopeSql(scope, 'r');
  const [row] = await tx.query<{ id: string; latest: TurnStatus; last: number }>(
    `SELECT r.id::VARCHAR AS id, t.status AS latest, t.turn_index AS last
       FROM worker_runs r JOIN worker_turns t ON t.run_id = r.id
      WHERE ${s.sql} AND r.environment_id = $${s.params.length + 1} AND r.kind = 'session' AND r.open
      ORDER BY t.turn_index DESC LIMIT 1`,
    [...s.params, environmentId],
  );
  return row ?? null;
}

async function insertTurn(
  tx: Transaction,
  runId: string,
  index: number,
  scope: NewWorkerRun['scope'],
  prompt: string,
  createdBy: string,
): Promise<void> {
  await tx.exec(
    `INSERT INTO worker_turns (run_id, turn_index, tenant_id, app_id, environment_id, prompt, status, created_at, created_by)
     VALUES ($1, $2, $3, $4, $5, $6, 'queued', now()::TIMESTAMP, $7)`,
    [runId, index, scope.tenantId, scope.appId, scope.environmentId, prompt, createdBy],
  );
}

/** A one-shot run or a session, with its first turn queued. */
export async function launchRun(db: Database, n: NewWorkerRun): Promise<WorkerRunDetail> {
  const { tenantId, appId, environmentId } = n.scope;
  await workerLock.run(tenantLockKey(tenantId), () =>
    db.transaction(async (tx) => {
      checkWorkerEntitlement(n.maxInFlight, await runsInFlight(tx, tenantId));
      if (n.kind === 'session') {
        const open = await openSession(tx, { tenantId, appId, environmentId: null }, environmentId);
        if (open) {
          throw new ApiError(
            'conflict',
            `Environment ${environmentId} has an open session (${open.id}): send it turns (POST /v1/workers/environments/${environmentId}/turns) or close it first`,
            { run_id: open.id },
          );
        }
      }
      await tx.exec(
        `INSERT INTO worker_runs (id, tenant_id, app_id, environment_id, kind, title, profile, repository, base_branch, base_commit, work_branch, trace_id, open, created_at, created_by)
         VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, now()::TIMESTAMP, $14)`,
        [
          n.id,
          tenantId,
          appId,
          environmentId,
          n.kind,
          n.title,
          n.profile,
          n.repository,
          n.baseBranch,
          n.baseCommit,
          workBranchOf(n.id),
          n.traceId,
          n.kind === 'session',
          n.createdBy,
        ],
      );
      await insertTurn(tx, n.id, 0, n.scope, n.prompt, n.createdBy);
    }),
  );
  return (await readRun(db, { tenantId, appId, environmentId: null }, n.id))!;
}

export interface NewTurn {
  /** The caller's read scope: the environment must lie in it. */
  scope: ReadScope;
  environmentId: string;
  prompt: string;
  createdBy: string;
  maxInFlight: number | null;
}

/**
 * A follow-up turn for the environment's open session: 404 without one, 409 `environment_busy`
 * while a turn of it is queued or running, 402 past the plan's cap.
 */
export async function addTurn(db: Database, n: NewTurn): Promise<{ run_id: string; turn_index: number }> {
  return workerLock.run(tenantLockKey(n.scope.tenantId), () =>
    db.transaction(async (tx) => {
      const session = await openSession(tx, n.scope, n.environmentId);
      if (!session)
        throw new ApiError(
          'not_found',
          `Environment ${n.environmentId} has no open session: launch one with POST /v1/workers/sessions`,
        );
      assertTakesTurn({ id: session.id, open: true, latest: session.latest });
      checkWorkerEntitlement(n.maxInFlight, await runsInFlight(tx, n.scope.tenantId));
      const [run] = await tx.query<{ tenant_id: string; app_id: string; environment_id: string }>(
        'SELECT tenant_id, app_id, environment_id FROM worker_runs WHERE id = $1',
        [session.id],
      );
      const index = session.last + 1;
      await insertTurn(
        tx,
        session.id,
        index,
        { tenantId: run!.tenant_id, appId: run!.app_id, environmentId: run!.environment_id },
        n.prompt,
        n.createdBy,
      );
      return { run_id: session.id, turn_index: index };
    }),
  );
}

/** What a cancel or close changed: the run after it, and the turn it touched (null: none). */
export interface RunChange {
  run: WorkerRunDetail;
  turn: WorkerTurnView | null;
}

/**
 * Stops the run's turn in flight: a queued one is cancelled at once; a running one is asked to
 * stop (its worker learns it from its next heartbeat, then reports it cancelled). 409 when no turn
 * is in flight. With `close`, a session is also closed (no more turns); closing with nothing in
 * flight is fine.
 */
export async function stopRun(
  db: Database,
  scope: ReadScope,
  runId: string,
  close: boolean,
): Promise<RunChange | null> {
  return workerLock.run(tenantLockKey(scope.tenantId), async () => {
    const touched = await db.transaction(async (tx) => {
      const s = scopeSql(scope, 'r');
      const [run] = await tx.query<{ kind: RunKind; open: boolean; status: TurnStatus; turn_index: number }>(
        `SELECT r.kind, r.open, t.status, t.turn_index FROM worker_runs r JOIN worker_turns t ON t.run_id = r.id
          WHERE ${s.sql} AND r.id = $${s.params.length + 1} ORDER BY t.turn_index DESC LIMIT 1`,
        [...s.params, runId],
      );
      if (!run) return undefined;
      if (close) {
        if (run.kind !== 'session')
          throw new ApiError('conflict', 'A one-shot run is not a session: cancel it instead');
        if (!run.open) throw new ApiError('conflict', `Session ${runId} is closed already`);
        await tx.exec('UPDATE worker_runs SET open = false, closed_at = now()::TIMESTAMP WHERE id = $1', [runId]);
      }
      if (!isInFlight(run.status)) {
        if (close) return null;
        throw new ApiError('conflict', `Run ${runId} has no turn queued or running: there is nothing to cancel`, {
          status: run.status,
        });
      }
      if (run.status === 'queued') {
        await tx.exec(
          `UPDATE worker_turns SET status = 'cancelled', reason = 'cancelled', error = 'Cancelled before a worker claimed it', finished_at = now()::TIMESTAMP
            WHERE run_id = $1 AND turn_index = $2`,
          [runId, run.turn_index],
        );
      } else {
        await tx.exec('UPDATE worker_turns SET cancel_requested = true WHERE run_id = $1 AND turn_index = $2', [
          runId,
          run.turn_index,
        ]);
      }
      return run.turn_index;
    });
    if (touched === undefined) return null;
    const detail = (await readRun(db, scope, runId))!;
    return { run: detail, turn: touched === null ? null : (await readTurns(db, runId, touched))[0]! };
  });
}
