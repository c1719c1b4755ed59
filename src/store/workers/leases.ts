/**
 * Leases: how workers take turns and report on them. A claim takes the oldest queued turn a worker
 * can run (its profiles; a session's later turns only by the worker that ran the earlier ones while
 * it lives) and leases it: a random lease id, an expiry. Heartbeats extend the lease; events,
 * completion and hand-back name it. A lease that has expired is gone, whether or not the sweep
 * (`expireLeases`) has requeued its turn yet: every report on it is refused, so a worker cut off
 * from the gateway cannot report a turn another worker runs now.
 */
import type { DuckDBValue } from '@duckdb/node-api';
import { listValue } from '../duckdb.js';
import { ApiError } from '../../core/errors.js';
import { afterLeaseExpiry, checkEnd, type EndReason, type RunKind, type TurnEnd } from '../../core/workers/turns.js';
import { RERUN_ON_CONFLICT, type Database, type Transaction } from '../db.js';
import { scopeSql, type ReadScope } from '../scope.js';
import { iso } from '../sql.js';
import {
  claimEvalRun,
  HELD_EVAL_LEASES,
  heldEval,
  queuedEvalRuns,
  type EvalClaimInput,
  type EvalLease,
} from './evalLeases.js';
import { tenantLockKey, workerLock } from './runs.js';
import { eventView, readTurns, type WorkerEventRow, type WorkerEventView, type WorkerTurnView } from './views.js';

/** What a worker needs to run a turn. */
export interface TurnClaim {
  kind: 'turn';
  lease_id: string;
  lease_expires_at: string;
  /** How often to heartbeat: a third of the lease, at most 2 s (a cancel is learnt from the next beat). */
  heartbeat_ms: number;
  run: {
    id: string;
    kind: RunKind;
    profile: string;
    repository: string;
    base_branch: string;
    work_branch: string;
    /** The branch a new workspace starts from: the work branch once a checkpoint was pushed, else the base branch. */
    checkout_branch: string;
    /** The commit the run's workspace should be at (null before the first turn ended). */
    head_commit: string | null;
    environment_id: string;
  };
  turn: {
    index: number;
    attempt: number;
    prompt: string;
    /** A session's later turn: the agent resumes its conversation. */
    resume: boolean;
  };
}

export interface ClaimInput {
  scope: ReadScope;
  worker: string;
  profiles: string[];
  /** Workers known to be alive: a session whose last worker is one of them waits for it. */
  liveWorkers: string[];
  leaseId: string;
  leaseMs: number;
}

/** The oldest queued turn this worker may claim. */
async function oldestTurn(
  tx: Pick<Database, 'query'>,
  c: ClaimInput,
): Promise<{ run_id: string; turn_index: number; created_ms: number } | null> {
  const s = scopeSql(c.scope, 't');
  const p: DuckDBValue[] = [...s.params];
  const profiles = `$${p.push(listValue(c.profiles))}`;
  const me = `$${p.push(c.worker)}`;
  const live = `$${p.push(listValue(c.liveWorkers.length > 0 ? c.liveWorkers : ['']))}`;
  const [found] = await tx.query<{ run_id: string; turn_index: number; created_ms: number }>(
    `SELECT t.run_id::VARCHAR AS run_id, t.turn_index, epoch_ms(t.created_at)::DOUBLE AS created_ms FROM worker_turns t JOIN worker_runs r ON r.id = t.run_id
      WHERE ${s.sql} AND t.status = 'queued' AND list_contains(${profiles}, r.profile)
        AND (r.kind = 'oneshot' OR r.last_worker IS NULL OR r.last_worker = ${me} OR NOT list_contains(${live}, r.last_worker))
      ORDER BY t.created_at, t.run_id, t.turn_index LIMIT 1`,
    p,
  );
  return found ?? null;
}

/**
 * A claim: the oldest queued turn the worker may run, or — for a worker that takes eval runs
 * (`evals`) — an eval run queued before it (evalLeases.ts), whichever was queued first.
 */
export async function claimWork(
  db: Database,
  c: ClaimInput,
  evals: EvalClaimInput | null,
): Promise<TurnClaim | EvalLease | null> {
  return workerLock.run(tenantLockKey(c.scope.tenantId), async () => {
    if (evals) {
      // Under the tenant's lock no turn changes: the oldest one read here is the one claimTurn takes.
      const turn = await oldestTurn(db, c);
      for (const run of await queuedEvalRuns(db, c.scope)) {
        if (turn && turn.created_ms <= run.created_ms) break;
        const leased = await claimEvalRun(db, run.id, {
          worker: c.worker,
          leaseId: c.leaseId,
          leaseMs: c.leaseMs,
          ...evals,
        });
        if (leased) return leased;
      }
    }
    return claimTurn(db, c);
  });
}

/** Claims the oldest queued turn the worker may run; the caller holds the tenant's lock. */
async function claimTurn(db: Database, c: ClaimInput): Promise<TurnClaim | null> {
  return db.transaction(async (tx) => {
    const found = await oldestTurn(tx, c);
    if (!found) return null;
    await tx.exec(
      `UPDATE worker_turns SET status = 'running', attempt = attempt + 1, lease_id = $3, lease_expires_at = now()::TIMESTAMP + to_milliseconds($4::BIGINT),
              worker = $5, started_at = coalesce(started_at, now()::TIMESTAMP)
        WHERE run_id = $1 AND turn_index = $2 AND status = 'queued'`,
      [found.run_id, found.turn_index, c.leaseId, c.leaseMs, c.worker],
    );
    await tx.exec('UPDATE worker_runs SET last_worker = $2 WHERE id = $1', [found.run_id, c.worker]);
    const [row] = await tx.query<{
      id: string;
      kind: RunKind;
      profile: string;
      repository: string;
      base_branch: string;
      work_branch: string;
      checkpointed: boolean;
      head_commit: string | null;
      environment_id: string;
      prompt: string;
      attempt: number;
      lease_expires_at: string;
    }>(
      `SELECT r.id::VARCHAR AS id, r.kind, r.profile, r.repository, r.base_branch, r.work_branch, r.checkpointed, r.head_commit, r.environment_id::VARCHAR AS environment_id,
              t.prompt, t.attempt, ${iso('t.lease_expires_at')} AS lease_expires_at
         FROM worker_runs r JOIN worker_turns t ON t.run_id = r.id WHERE t.run_id = $1 AND t.turn_index = $2`,
      [found.run_id, found.turn_index],
    );
    const r = row!;
    return {
      kind: 'turn',
      lease_id: c.leaseId,
      lease_expires_at: r.lease_expires_at,
      heartbeat_ms: Math.max(100, Math.min(2000, Math.floor(c.leaseMs / 3))),
      run: {
        id: r.id,
        kind: r.kind,
        profile: r.profile,
        repository: r.repository,
        base_branch: r.base_branch,
        work_branch: r.work_branch,
        checkout_branch: r.checkpointed ? r.work_branch : r.base_branch,
        head_commit: r.head_commit,
        environment_id: r.environment_id,
      },
      turn: { index: found.turn_index, attempt: r.attempt, prompt: r.prompt, resume: found.turn_index > 0 },
    };
  });
}

/** The turn a live lease holds, read inside a transaction; 404 when the lease is gone (or not in scope). */
async function heldTurn(tx: Transaction, scope: ReadScope, leaseId: string): Promise<HeldTurn> {
  const row = await findHeldTurn(tx, scope, leaseId);
  if (!row) throw leaseGone();
  return row;
}

const leaseGone = () =>
  new ApiError(
    'not_found',
    'This lease is gone (it expired, or its turn ended or was handed back): stop the turn and drop its work',
    { reason: 'lease_lost' },
  );

async function findHeldTurn(tx: Transaction, scope: ReadScope, leaseId: string): Promise<HeldTurn | null> {
  const s = scopeSql(scope, 't');
  const [row] = await tx.query<HeldTurn>(
    `SELECT t.run_id::VARCHAR AS run_id, t.turn_index, t.attempt, t.cancel_requested, t.tenant_id::VARCHAR AS tenant_id, t.app_id::VARCHAR AS app_id,
            t.environment_id::VARCHAR AS environment_id, t.worker
       FROM worker_turns t WHERE ${s.sql} AND t.lease_id = $${s.params.length + 1} AND t.status = 'running' AND t.lease_expires_at > now()::TIMESTAMP`,
    [...s.params, leaseId],
  );
  return row ?? null;
}

/**
 * What an events batch is stored under: a turn's lease, or an eval run's (its events are the run's
 * turn 0, attempt 1: an eval run is claimed once).
 */
async function heldForEvents(tx: Transaction, scope: ReadScope, leaseId: string): Promise<HeldTurn> {
  const turn = await findHeldTurn(tx, scope, leaseId);
  if (turn) return turn;
  const run = await heldEval(tx, scope, leaseId);
  if (!run) throw leaseGone();
  return { ...run, turn_index: 0, attempt: 1, cancel_requested: false };
}

interface HeldTurn {
  run_id: string;
  turn_index: number;
  attempt: number;
  cancel_requested: boolean;
  tenant_id: string;
  app_id: string;
  environment_id: string;
  worker: string | null;
}

export interface Heartbeat {
  run_id: string;
  turn_index: number;
  lease_expires_at: string;
  /** The turn was asked to stop: end the agent and report the turn cancelled. */
  cancel: boolean;
  /** The worker holding the lease. */
  worker: string | null;
}

export async function heartbeat(db: Database, scope: ReadScope, leaseId: string, leaseMs: number): Promise<Heartbeat> {
  return workerLock.run(tenantLockKey(scope.tenantId), () =>
    db.transaction(async (tx) => {
      const held = await heldTurn(tx, scope, leaseId);
      const [row] = await tx.query<{ lease_expires_at: string }>(
        `UPDATE worker_turns SET lease_expires_at = now()::TIMESTAMP + to_milliseconds($3::BIGINT) WHERE run_id = $1 AND turn_index = $2
         RETURNING ${iso('lease_expires_at')} AS lease_expires_at`,
        [held.run_id, held.turn_index, leaseMs],
      );
      return {
        run_id: held.run_id,
        turn_index: held.turn_index,
        lease_expires_at: row!.lease_expires_at,
        cancel: held.cancel_requested,
        worker: held.worker,
      };
    }),
  );
}

const EVENT_FIELDS = `e.cursor::DOUBLE AS cursor, e.turn_index, e.attempt, e.seq, ${iso('e.seen_at')} AS "at", e.kind, e.text, e.level, e.event`;

/**
 * Stores a batch of the lease's events (`batch`: the JSON text of `StoredEventRow`s that
 * ingest/workerEvents.ts prepares; one text, not a list per column, since a bound list takes its
 * element type from its first item, so a column whose first value is null would bind as a list of
 * nulls); a seq stored already (a retried request) is skipped. Answers the events stored now, their
 * agent events as text (parsed only for a run someone watches), and whether the turn was asked to
 * stop.
 */
export async function appendEvents(
  db: Database,
  scope: ReadScope,
  leaseId: string,
  batch: string,
): Promise<{ run_id: string; stored: WorkerEventRow[]; cancel: boolean }> {
  return db.transaction(async (tx) => {
    const held = await heldForEvents(tx, scope, leaseId);
    const rows = await tx.query<WorkerEventRow>(
      `INSERT INTO worker_events (run_id, turn_index, attempt, seq, tenant_id, app_id, environment_id, seen_at, kind, text, level, event)
       SELECT $1::UUID, $2, $3, u.seq, $4::UUID, $5::UUID, $6::UUID, make_timestamp(u.at_ms * 1000), u.kind, u.text, u.level, u.event
         FROM (SELECT unnest(from_json($7::VARCHAR, '[{"seq":"INTEGER","at_ms":"BIGINT","kind":"VARCHAR","text":"VARCHAR","level":"VARCHAR","event":"VARCHAR"}]'), recursive := true)) u
       ON CONFLICT DO NOTHING
       RETURNING cursor::DOUBLE AS cursor, turn_index, attempt, seq, ${iso('seen_at')} AS "at", kind, text, level, event`,
      [held.run_id, held.turn_index, held.attempt, held.tenant_id, held.app_id, held.environment_id, batch],
    );
    return { run_id: held.run_id, stored: rows.sort((a, b) => a.cursor - b.cursor), cancel: held.cancel_requested };
    // Run again when a batch sent again while the first is stored (a worker's retry) met its seqs.
  }, RERUN_ON_CONFLICT);
}

export interface TurnEndReport {
  status: TurnEnd;
  reason: EndReason;
  exitCode: number | null;
  error: string | null;
  commitSha: string | null;
  /** The workspace's commit after the turn (the checkpoint, or the commit it started from). */
  headCommit: string | null;
}

/** Ends the lease's turn as the worker reports; answers the turn after it. */
export async function completeTurn(
  db: Database,
  scope: ReadScope,
  leaseId: string,
  end: TurnEndReport,
): Promise<WorkerTurnView> {
  return workerLock.run(tenantLockKey(scope.tenantId), async () => {
    const held = await db.transaction(async (tx) => {
      const held = await heldTurn(tx, scope, leaseId);
      checkEnd(end, held.cancel_requested);
      await tx.exec(
        `UPDATE worker_turns SET status = $3, reason = $4, exit_code = $5, error = $6, commit_sha = $7, finished_at = now()::TIMESTAMP, lease_id = NULL, lease_expires_at = NULL
          WHERE run_id = $1 AND turn_index = $2`,
        [held.run_id, held.turn_index, end.status, end.reason, end.exitCode, end.error, end.commitSha],
      );
      await tx.exec(
        'UPDATE worker_runs SET head_commit = coalesce($2, head_commit), checkpointed = checkpointed OR $3 WHERE id = $1',
        [held.run_id, end.headCommit, end.commitSha !== null],
      );
      return held;
    });
    return (await readTurns(db, held.run_id, held.turn_index))[0]!;
  });
}

/**
 * A stopping worker hands its turn back: queued again for the next claim (a hand-back is not a
 * lost lease), or cancelled when it was asked to stop anyway.
 */
export async function releaseTurn(db: Database, scope: ReadScope, leaseId: string): Promise<WorkerTurnView> {
  return workerLock.run(tenantLockKey(scope.tenantId), async () => {
    const held = await db.transaction(async (tx) => {
      const held = await heldTurn(tx, scope, leaseId);
      await tx.exec(
        `UPDATE worker_turns SET status = CASE WHEN cancel_requested THEN 'cancelled' ELSE 'queued' END,
                reason = CASE WHEN cancel_requested THEN 'cancelled' ELSE NULL END,
                finished_at = CASE WHEN cancel_requested THEN now()::TIMESTAMP ELSE NULL END,
                lease_id = NULL, lease_expires_at = NULL
          WHERE run_id = $1 AND turn_index = $2`,
        [held.run_id, held.turn_index],
      );
      // The worker is stopping: the session's next claim may go to any worker.
      await tx.exec('UPDATE worker_runs SET last_worker = NULL WHERE id = $1', [held.run_id]);
      return held;
    });
    return (await readTurns(db, held.run_id, held.turn_index))[0]!;
  });
}

/**
 * Milliseconds until the earliest lease held now can expire — a turn's or an eval run's, as the
 * sweeps read them (`expireLeases`, evalLeases.ts) — negative when one has; null when none is held.
 * Measured against DuckDB's own clock, as the leases were set, so the time zone that
 * `now()::TIMESTAMP` reads in does not matter.
 */
export async function msToNextLeaseExpiry(db: Database): Promise<number | null> {
  const [row] = await db.query<{ ms: number | null }>(
    `SELECT (epoch_ms(min(e)) - epoch_ms(now()::TIMESTAMP))::DOUBLE AS ms FROM (
       SELECT min(lease_expires_at) AS e FROM worker_turns WHERE status = 'running'
       UNION ALL
       SELECT min(l.lease_expires_at) FROM ${HELD_EVAL_LEASES})`,
  );
  return row?.ms ?? null;
}

/** Turns whose lease expired, after the sweep: requeued, failed or cancelled (core/workers/turns.ts). */
export async function expireLeases(
  db: Database,
  maxAttempts: number,
): Promise<{ tenantId: string; turn: WorkerTurnView }[]> {
  const expired = await db.query<{
    tenant_id: string;
    run_id: string;
    turn_index: number;
    lease_id: string;
    lost_leases: number;
    cancel_requested: boolean;
  }>(
    `SELECT tenant_id::VARCHAR AS tenant_id, run_id::VARCHAR AS run_id, turn_index, lease_id, lost_leases, cancel_requested
       FROM worker_turns WHERE status = 'running' AND lease_expires_at <= now()::TIMESTAMP`,
  );
  const changed: { tenantId: string; turn: WorkerTurnView }[] = [];
  for (const e of expired) {
    const done = await workerLock.run(tenantLockKey(e.tenant_id), () =>
      db.transaction(async (tx) => {
        // Read again under the lock: the worker may have completed it meanwhile.
        const [now] = await tx.query<{ n: number }>(
          `SELECT count(*)::INTEGER AS n FROM worker_turns WHERE run_id = $1 AND turn_index = $2 AND lease_id = $3 AND status = 'running' AND lease_expires_at <= now()::TIMESTAMP`,
          [e.run_id, e.turn_index, e.lease_id],
        );
        if (!now?.n) return false;
        const outcome = afterLeaseExpiry(
          { lostLeases: e.lost_leases + 1, cancelRequested: e.cancel_requested },
          maxAttempts,
        );
        const ended = outcome.status !== 'queued';
        await tx.exec(
          `UPDATE worker_turns SET status = $3, lost_leases = lost_leases + 1, lease_id = NULL, lease_expires_at = NULL,
                  reason = $4, error = $5, finished_at = CASE WHEN $6 THEN now()::TIMESTAMP ELSE NULL END
            WHERE run_id = $1 AND turn_index = $2`,
          [e.run_id, e.turn_index, outcome.status, ended ? outcome.reason : null, ended ? outcome.error : null, ended],
        );
        return true;
      }),
    );
    if (done) changed.push({ tenantId: e.tenant_id, turn: (await readTurns(db, e.run_id, e.turn_index))[0]! });
  }
  return changed;
}

/** A run's events after `after` (its cursor), oldest first; a worker run's, or an eval run's a worker ran. */
export async function readEvents(
  db: Database,
  scope: ReadScope,
  runId: string,
  q: { after: number; limit: number; turn?: number },
): Promise<WorkerEventView[] | null> {
  const s = scopeSql(scope, 'r');
  const id = `$${s.params.length + 1}`;
  const [run] = await db.query<{ n: number }>(
    `SELECT ((SELECT count(*) FROM worker_runs r WHERE ${s.sql} AND r.id = ${id}) + (SELECT count(*) FROM worker_eval_leases r WHERE ${s.sql} AND r.run_id = ${id}))::INTEGER AS n`,
    [...s.params, runId],
  );
  if (!run?.n) return null;
  const p: DuckDBValue[] = [runId, q.after];
  const turn = q.turn === undefined ? '' : ` AND e.turn_index = $${p.push(q.turn)}`;
  const rows = await db.query<WorkerEventRow>(
    `SELECT ${EVENT_FIELDS} FROM worker_events e WHERE e.run_id = $1 AND e.cursor > $2${turn} ORDER BY e.cursor LIMIT $${p.push(q.limit)}`,
    p,
  );
  return rows.map(eventView);
}
