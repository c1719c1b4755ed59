/** Store-thread tasks of worker runs, turns, leases and events (part of StoreTasks). */
import type { RunKind, RunStatus } from '../core/workers/turns.js';
import type { TurnFigures } from '../core/workers/thread.js';
import type { ReadScope } from '../store/spans/reads.js';
import type { ClaimInput, Heartbeat, NewEvent, TurnClaim, TurnEndReport, WorkerEventView } from '../store/workers/leases.js';
import type { NewTurn, NewWorkerRun, RunChange } from '../store/workers/runs.js';
import type { TraceInputs } from '../store/workers/trace.js';
import type { WorkerRunDetail, WorkerRunView, WorkerTurnView } from '../store/workers/views.js';

export interface WorkerTasks {
  launchWorkerRun: { in: NewWorkerRun; out: WorkerRunDetail };
  addWorkerTurn: { in: NewTurn; out: { run_id: string; turn_index: number } };
  stopWorkerRun: { in: { scope: ReadScope; runId: string; close: boolean }; out: RunChange | null };
  getWorkerRun: { in: { scope: ReadScope; id: string }; out: WorkerRunDetail | null };
  listWorkerRuns: { in: { scope: ReadScope; kind?: RunKind; status?: RunStatus; environmentId?: string; limit: number; offset: number }; out: { data: WorkerRunView[]; total: number } };
  workerRunEvents: { in: { scope: ReadScope; runId: string; after: number; limit: number; turn?: number }; out: WorkerEventView[] | null };
  claimWorkerTurn: { in: ClaimInput; out: TurnClaim | null };
  heartbeatWorkerTurn: { in: { scope: ReadScope; leaseId: string; leaseMs: number }; out: Heartbeat };
  appendWorkerEvents: { in: { scope: ReadScope; leaseId: string; events: NewEvent[] }; out: { run_id: string; stored: WorkerEventView[]; cancel: boolean } };
  completeWorkerTurn: { in: { scope: ReadScope; leaseId: string; end: TurnEndReport }; out: WorkerTurnView };
  releaseWorkerTurn: { in: { scope: ReadScope; leaseId: string }; out: WorkerTurnView };
  expireWorkerLeases: { in: { maxAttempts: number }; out: { tenantId: string; turn: WorkerTurnView }[] };
  workerTraceInputs: { in: { runId: string }; out: TraceInputs | null };
  workerRunScope: { in: { runId: string }; out: { tenantId: string; appId: string } | null };
  recordWorkerFigures: { in: { tenantId: string; runId: string; figures: (TurnFigures & { turnIndex: number })[] }; out: number[] };
}
