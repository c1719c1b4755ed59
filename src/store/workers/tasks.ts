/** Store-thread tasks of worker runs, turns, leases and events (part of StoreTasks). */
import type { RunKind, RunStatus } from '../../core/workers/turns.js';
import type { TurnFigures } from '../../core/workers/thread.js';
import type { ReadScope } from '../scope.js';
import type { RunView } from '../evals/runs.js';
import type { EvalClaimInput, EvalEndReport, EvalLease } from './evalLeases.js';
import type { ClaimInput, Heartbeat, TurnClaim, TurnEndReport } from './leases.js';
import type { NewTurn, NewWorkerRun, RunChange } from './runs.js';
import type { TraceInputs } from './trace.js';
import type { WorkerEventRow, WorkerEventView, WorkerRunDetail, WorkerRunView, WorkerTurnView } from './views.js';

export interface WorkerTasks {
  launchWorkerRun: { in: NewWorkerRun; out: WorkerRunDetail };
  addWorkerTurn: { in: NewTurn; out: { run_id: string; turn_index: number } };
  stopWorkerRun: { in: { scope: ReadScope; runId: string; close: boolean }; out: RunChange | null };
  getWorkerRun: { in: { scope: ReadScope; id: string }; out: WorkerRunDetail | null };
  listWorkerRuns: { in: { scope: ReadScope; kind?: RunKind; status?: RunStatus; environmentId?: string; limit: number; offset: number }; out: { data: WorkerRunView[]; total: number } };
  workerRunEvents: { in: { scope: ReadScope; runId: string; after: number; limit: number; turn?: number }; out: WorkerEventView[] | null };
  /** A turn, or for a worker that takes eval runs (`evals`) an eval run, under a lease. */
  claimWorkerTurn: { in: ClaimInput & { evals: EvalClaimInput | null }; out: TurnClaim | EvalLease | null };
  /** The eval run a lease id names (live or not); null: a turn's lease, or none. */
  workerEvalOfLease: { in: { leaseId: string }; out: string | null };
  heartbeatWorkerEval: { in: { scope: ReadScope; runId: string; leaseId: string; leaseMs: number }; out: Heartbeat };
  endWorkerEval: { in: { scope: ReadScope; runId: string; leaseId: string; end: EvalEndReport }; out: { run: RunView; revokedKeyHashes: string[] } };
  releaseWorkerEval: { in: { scope: ReadScope; runId: string; leaseId: string }; out: { run: RunView; revokedKeyHashes: string[] } };
  expireWorkerEvalLeases: { in: Record<string, never>; out: { tenantId: string; runId: string; revokedKeyHashes: string[] }[] };
  heartbeatWorkerTurn: { in: { scope: ReadScope; leaseId: string; leaseMs: number }; out: Heartbeat };
  /** `batch`: the events as ingest/workerEvents.ts prepares them (one JSON text). */
  appendWorkerEvents: { in: { scope: ReadScope; leaseId: string; batch: string }; out: { run_id: string; stored: WorkerEventRow[]; cancel: boolean } };
  completeWorkerTurn: { in: { scope: ReadScope; leaseId: string; end: TurnEndReport }; out: WorkerTurnView };
  releaseWorkerTurn: { in: { scope: ReadScope; leaseId: string }; out: WorkerTurnView };
  expireWorkerLeases: { in: { maxAttempts: number }; out: { tenantId: string; turn: WorkerTurnView }[] };
  /** Milliseconds until the earliest held lease can expire; null when none is held. */
  nextWorkerLeaseExpiry: { in: Record<string, never>; out: number | null };
  workerTraceInputs: { in: { runId: string }; out: TraceInputs | null };
  workerRunScope: { in: { runId: string }; out: { tenantId: string; appId: string } | null };
  recordWorkerFigures: { in: { tenantId: string; runId: string; figures: (TurnFigures & { turnIndex: number })[] }; out: number[] };
}
