import type { WorkerTasks } from './tasks.js';
import type { Database } from '../db.js';
import * as evalLeases from './evalLeases.js';
import * as leases from './leases.js';
import * as runs from './runs.js';
import * as trace from './trace.js';
import * as views from './views.js';

/** The store thread's handlers of the worker tasks. */
export function workerHandlers(db: () => Promise<Database>): { [K in keyof WorkerTasks]: (input: WorkerTasks[K]['in']) => Promise<WorkerTasks[K]['out']> } {
  return {
    launchWorkerRun: async (n) => runs.launchRun(await db(), n),
    addWorkerTurn: async (n) => runs.addTurn(await db(), n),
    stopWorkerRun: async ({ scope, runId, close }) => runs.stopRun(await db(), scope, runId, close),
    getWorkerRun: async ({ scope, id }) => views.readRun(await db(), scope, id),
    listWorkerRuns: async ({ scope, ...q }) => views.readRuns(await db(), scope, q),
    workerRunEvents: async ({ scope, runId, ...q }) => leases.readEvents(await db(), scope, runId, q),
    claimWorkerTurn: async ({ evals, ...c }) => leases.claimWork(await db(), c, evals),
    workerEvalOfLease: async ({ leaseId }) => evalLeases.evalRunOfLease(await db(), leaseId),
    heartbeatWorkerEval: async ({ scope, runId, leaseId, leaseMs }) => evalLeases.heartbeatEval(await db(), scope, runId, leaseId, leaseMs),
    endWorkerEval: async ({ scope, runId, leaseId, end }) => evalLeases.endEval(await db(), scope, runId, leaseId, end),
    releaseWorkerEval: async ({ scope, runId, leaseId }) => evalLeases.releaseEval(await db(), scope, runId, leaseId),
    expireWorkerEvalLeases: async () => evalLeases.expireEvalLeases(await db()),
    heartbeatWorkerTurn: async ({ scope, leaseId, leaseMs }) => leases.heartbeat(await db(), scope, leaseId, leaseMs),
    appendWorkerEvents: async ({ scope, leaseId, batch }) => leases.appendEvents(await db(), scope, leaseId, batch),
    completeWorkerTurn: async ({ scope, leaseId, end }) => leases.completeTurn(await db(), scope, leaseId, end),
    releaseWorkerTurn: async ({ scope, leaseId }) => leases.releaseTurn(await db(), scope, leaseId),
    expireWorkerLeases: async ({ maxAttempts }) => leases.expireLeases(await db(), maxAttempts),
    nextWorkerLeaseExpiry: async () => leases.msToNextLeaseExpiry(await db()),
    workerTraceInputs: async ({ runId }) => trace.traceInputs(await db(), runId),
    workerRunScope: async ({ runId }) => trace.runScope(await db(), runId),
    recordWorkerFigures: async ({ tenantId, runId, figures }) => trace.recordFigures(await db(), tenantId, runId, figures),
  };
}
