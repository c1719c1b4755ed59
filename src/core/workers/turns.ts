/**
 * Worker runs and their turns (spec: Workers, "Worker session"). A run is a one-shot run (one turn)
 * or a persistent session (turns one at a time, while it is open). A turn is `queued` until a worker
 * claims it under a lease, `running` while the lease lives, and ends `succeeded`, `failed` or
 * `cancelled`. A lease that expires puts the turn back in the queue, or fails it once it has had its
 * attempts (docs/decisions.md, "Workers"). Pure: the store applies these rules inside its locks.
 */
import { ApiError } from '../errors.js';

export const TURN_STATUSES = ['queued', 'running', 'succeeded', 'failed', 'cancelled'] as const;
export type TurnStatus = (typeof TURN_STATUSES)[number];
export type TurnEnd = 'succeeded' | 'failed' | 'cancelled';

export const RUN_KINDS = ['oneshot', 'session'] as const;
export type RunKind = (typeof RUN_KINDS)[number];

/** What a run shows: its turn's status (one-shot), or for a session also `idle` (open, no turn in flight) and `closed`. */
export const RUN_STATUSES = ['queued', 'running', 'idle', 'succeeded', 'failed', 'cancelled', 'closed'] as const;
export type RunStatus = (typeof RUN_STATUSES)[number];

/**
 * Why a turn ended: the agent exited (`exit`), was stopped at the timeout or the output cap, was
 * cancelled, its workspace or checkpoint failed, its command could not start, or its lease expired
 * once too often.
 */
export const END_REASONS = [
  'exit',
  'timeout',
  'output_limit',
  'cancelled',
  'workspace',
  'spawn',
  'checkpoint',
  'lease_expired',
] as const;
export type EndReason = (typeof END_REASONS)[number];

/** Queued and running turns hold their run (and a session its environment): one at a time. */
export function isInFlight(status: TurnStatus): boolean {
  return status === 'queued' || status === 'running';
}

/** The branch a run's checkpoints are pushed to. */
export function workBranchOf(runId: string): string {
  return `tracelake/${runId}`;
}

/** The status a run shows, from its kind, whether it is open, and the status of its latest turn. */
export function runStatus(kind: RunKind, open: boolean, latest: TurnStatus): RunStatus {
  if (kind === 'oneshot' || isInFlight(latest)) return latest;
  return open ? 'idle' : 'closed';
}

/**
 * Whether a session takes a new turn: open, and no turn queued or running. Two requests racing for
 * an idle session are decided by the store's lock: the second one sees the first one's turn here.
 */
export function assertTakesTurn(run: { id: string; open: boolean; latest: TurnStatus }): void {
  if (!run.open)
    throw new ApiError('conflict', `Session ${run.id} is closed: it takes no more turns`, { run_id: run.id });
  if (isInFlight(run.latest)) {
    throw new ApiError(
      'environment_busy',
      `A turn of session ${run.id} is ${run.latest}: one turn runs at a time; wait for it to end, or cancel it`,
      { run_id: run.id },
    );
  }
}

export type ExpiryOutcome = { status: 'queued' } | { status: 'failed' | 'cancelled'; reason: EndReason; error: string };

/**
 * What becomes of a running turn whose lease expired (its worker died, hung or lost the gateway):
 * a turn asked to stop is cancelled; one whose lease has now expired `maxAttempts` times fails; any
 * other goes back to the queue for the next claim. A turn a stopping worker handed back does not
 * count: only `lostLeases` (this expiry included) does.
 */
export function afterLeaseExpiry(
  turn: { lostLeases: number; cancelRequested: boolean },
  maxAttempts: number,
): ExpiryOutcome {
  if (turn.cancelRequested)
    return {
      status: 'cancelled',
      reason: 'cancelled',
      error: 'Cancelled; its worker stopped answering before it confirmed',
    };
  if (turn.lostLeases >= maxAttempts) {
    return {
      status: 'failed',
      reason: 'lease_expired',
      error: `The worker's lease expired ${turn.lostLeases} time${turn.lostLeases === 1 ? '' : 's'} (at most ${maxAttempts} attempts): the turn is not tried again`,
    };
  }
  return { status: 'queued' };
}

/**
 * A worker's report of how a turn ended, checked: `succeeded` only for an agent that exited with 0,
 * `cancelled` only when the turn was asked to stop.
 */
export function checkEnd(
  end: { status: TurnEnd; reason: EndReason; exitCode: number | null },
  cancelRequested: boolean,
): void {
  if (end.status === 'succeeded' && (end.reason !== 'exit' || end.exitCode !== 0)) {
    throw new ApiError('conflict', 'A turn succeeds only when its agent exited with code 0 (reason exit)', {
      reason: end.reason,
    });
  }
  if (end.status === 'cancelled' && !cancelRequested)
    throw new ApiError('conflict', 'Nobody asked to cancel this turn: report how it ended instead');
}

/** The plan entitlement that caps runs with a turn in flight (data/plans.json; 0 disallows workers). */
export const WORKER_ENTITLEMENT = 'max_concurrent_worker_runs';

/** 402 `entitlement_required` when one more run in flight would pass the plan's cap (null: none). */
export function checkWorkerEntitlement(limit: number | null, current: number): void {
  if (limit === null || current < limit) return;
  const message =
    limit === 0
      ? 'The plan does not include workers'
      : `The plan allows ${limit} worker run${limit === 1 ? '' : 's'} in flight at once; the tenant has ${current}`;
  throw new ApiError('entitlement_required', message, { entitlement: WORKER_ENTITLEMENT, current, limit });
}
