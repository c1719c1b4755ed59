import type { RunKind, RunStatus } from '../../core/workers/turns.js';
import type { TurnFigures } from '../../core/workers/thread.js';
import type { ReadScope } from '../scope.js';
import type { EvalClaimInput, EvalEndReport } from './evalLeases.js';
import type { ClaimInput, TurnEndReport } from './leases.js';
import type { NewTurn, NewWorkerRun } from './runs.js';
import type { TasksOf } from '../../pool/tasks.js';
import type { Database } from '../db.js';
import * as evalLeases from './evalLeases.js';
import * as leases from './leases.js';
import * as runs from './runs.js';
import * as trace from './trace.js';
import * as views from './views.js';

/** The store thread's handlers of the worker tasks. */
export function workerHandlers(db: () => Promise<Database>) {
  return {
    launchWorkerRun: async (n: NewWorkerRun) => runs.launchRun(await db(), n),
    addWorkerTurn: async (n: NewTurn) => runs.addTurn(await db(), n),
    stopWorkerRun: async ({ scope, runId, close }: { scope: ReadScope; runId: string; close: boolean }) =>
      runs.stopRun(await db(), scope, runId, close),
    getWorkerRun: async ({ scope, id }: { scope: ReadScope; id: string }) => views.readRun(await db(), scope, id),
    listWorkerRuns: async ({
      scope,
      ...q
    }: {
      scope: ReadScope;
      kind?: RunKind;
      status?: RunStatus;
      environmentId?: string;
      limit: number;
      offset: number;
    }) => views.readRuns(await db(), scope, q),
    workerRunEvents: async ({
      scope,
      runId,
      ...q
    }: {
      scope: ReadScope;
      runId: string;
      after: number;
      limit: number;
      turn?: number;
    }) => leases.readEvents(await db(), scope, runId, q),
    /** A turn, or for a worker that takes eval runs (`evals`) an eval run, under a lease. */
    claimWorkerTurn: async ({ evals, ...c }: ClaimInput & { evals: EvalClaimInput | null }) =>
      leases.claimWork(await db(), c, evals),
    /** The eval run a lease id names (live or not); null: a turn's lease, or none. */
    workerEvalOfLease: async ({ leaseId }: { leaseId: string }) => evalLeases.evalRunOfLease(await db(), leaseId),
    heartbeatWorkerEval: async ({
      scope,
      runId,
      leaseId,
      leaseMs,
    }: {
      scope: ReadScope;
      runId: string;
      leaseId: string;
      leaseMs: number;
    }) => evalLeases.heartbeatEval(await db(), scope, runId, leaseId, leaseMs),
    endWorkerEval: async ({
      scope,
      runId,
      leaseId,
      end,
    }: {
      scope: ReadScope;
      runId: string;
      leaseId: string;
      end: EvalEndReport;
    }) => evalLeases.endEval(await db(), scope, runId, leaseId, end),
    releaseWorkerEval: async ({ scope, runId, leaseId }: { scope: ReadScope; runId: string; leaseId: string }) =>
      evalLeases.releaseEval(await db(), scope, runId, leaseId),
    expireWorkerEvalLeases: async () => evalLeases.expireEvalLeases(await db()),
    heartbeatWorkerTurn: async ({ scope, leaseId, leaseMs }: { scope: ReadScope; leaseId: string; leaseMs: number }) =>
      leases.heartbeat(await db(), scope, leaseId, leaseMs),
    /** `batch`: the events as ingest/workerEvents.ts prepares them (one JSON text). */
    appendWorkerEvents: async ({ scope, leaseId, batch }: { scope: ReadScope; leaseId: string; batch: string }) =>
      leases.appendEvents(await db(), scope, leaseId, batch),
    completeWorkerTurn: async ({ scope, leaseId, end }: { scope: ReadScope; leaseId: string; end: TurnEndReport }) =>
      leases.completeTurn(await db(), scope, leaseId, end),
    releaseWorkerTurn: async ({ scope, leaseId }: { scope: ReadScope; leaseId: string }) =>
      leases.releaseTurn(await db(), scope, leaseId),
    expireWorkerLeases: async ({ maxAttempts }: { maxAttempts: number }) =>
      leases.expireLeases(await db(), maxAttempts),
    /** Milliseconds until the earliest held lease can expire; null when none is held. */
    nextWorkerLeaseExpiry: async () => leases.msToNextLeaseExpiry(await db()),
    workerTraceInputs: async ({ runId }: { runId: string }) => trace.traceInputs(await db(), runId),
    workerRunScope: async ({ runId }: { runId: string }) => trace.runScope(await db(), runId),
    recordWorkerFigures: async ({
      tenantId,
      runId,
      figures,
    }: {
      tenantId: string;
      runId: string;
      figures: (TurnFigures & { turnIndex: number })[];
    }) => trace.recordFigures(await db(), tenantId, runId, figures),
  };
}

/** The store-thread tasks of workerHandlers: each handler's input and output. */
export type WorkerTasks = TasksOf<ReturnType<typeof workerHandlers>>;
