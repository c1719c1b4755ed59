/**
 * Wire types of worker runs (spec: Workers). The spec gives only the turn endpoint
 * (`{task_prompt}` → `{run_id, turn_index, url}`); launching, reading, cancelling and the worker's
 * own endpoints (claim, heartbeat, events, complete, release) are ours, in the API's snake_case.
 */
import typia, { type tags } from 'typia';
import type { AgentEvent } from '../core/agents/session.js';
import type { Count, Limit, Offset, Usd, Uuid } from './ids.js';
import { strictQuery } from './strictQuery.js';

/** A task for a coding agent: the spec's `task_prompt` (min length 1), at most 1 MiB. */
export type TaskPrompt = string & tags.MinLength<1> & tags.MaxLength<1048576>;
/** An agent profile's name, as workers know it (core/workers/profiles.ts). */
export type ProfileName = string & tags.Pattern<'^[a-z0-9][a-z0-9._-]{0,63}$'>;
/** A worker's name (core/workers/workerArgs.ts). */
export type WorkerName = string & tags.Pattern<'^[A-Za-z0-9][A-Za-z0-9._:-]{0,127}$'>;
/** A lease id: 32 hex digits. */
export type LeaseId = string & tags.Pattern<'^[0-9a-f]{32}$'>;

export interface LaunchBody {
  task_prompt: TaskPrompt;
  /** The agent profile the worker runs (default `claude-code`). */
  profile?: ProfileName;
  /** The environment (by name) the run belongs to; default the one the credentials write to. */
  environment?: string & tags.MinLength<1> & tags.MaxLength<63>;
  /** The branch the work starts from; default the app's git connection's branch. */
  branch?: string & tags.MinLength<1> & tags.MaxLength<256>;
  title?: string & tags.MinLength<1> & tags.MaxLength<1024>;
}

/** The spec's body of `POST /v1/workers/environments/{envId}/turns`. */
export interface TurnBody {
  task_prompt: TaskPrompt;
}

export interface WorkerEnvironmentParams {
  envId: Uuid;
}

export interface WorkerRunParams {
  runId: Uuid;
}

export interface WorkerRunListQuery {
  kind?: 'oneshot' | 'session';
  status?: 'queued' | 'running' | 'idle' | 'succeeded' | 'failed' | 'cancelled' | 'closed';
  environment_id?: Uuid;
  limit?: Limit;
  offset?: Offset;
}

export interface WorkerEventsQuery {
  /** The cursor of the last event seen; events after it are answered (default 0: from the start). */
  after?: number & tags.Type<'uint64'>;
  turn?: Count;
  limit?: Limit;
}

export interface WorkerStreamQuery {
  /** The cursor of the last event seen (a page reopened, a reconnect); default 0: from the start. */
  after?: number & tags.Type<'uint64'>;
}

export interface ClaimBody {
  /** The worker's name: a session's later turns go back to the worker that ran the earlier ones, while it lives. */
  worker: WorkerName;
  /** The profiles this worker runs. */
  profiles: ProfileName[] & tags.MinItems<1> & tags.MaxItems<64>;
  /** How long to wait for work when none is queued (long poll); default 0, at most 30. */
  wait_seconds?: number & tags.Type<'uint32'> & tags.Maximum<30>;
  /** This worker also runs eval runs (`tracelake worker --eval-command`): the claim may hand out one (`kind: "eval"`). Default false. */
  evals?: boolean;
}

export interface LeaseParams {
  leaseId: LeaseId;
}

/** One thing a worker saw: a line of output, an agent event, or a step of its own. */
export interface WorkerEventInput {
  /** Numbers the attempt's events from 0 (at most 2147483647); a seq stored already (a retried batch) is skipped. */
  // The column is a 32-bit INTEGER: a seq past 2^31 - 1 read as NULL and failed as a 500.
  seq: number & tags.Type<'uint32'> & tags.Maximum<2147483647>;
  /** When the worker saw it (ISO 8601). */
  at: string & tags.Format<'date-time'>;
  kind: 'stdout' | 'stderr' | 'agent' | 'step';
  /** Output lines and steps (at most 64 KiB; a longer line is cut by the worker). */
  text?: (string & tags.MaxLength<65536>) | null;
  level?: 'info' | 'error' | null;
  /** Agent events: a coding-agent session event without `id`, `parentId` and `timestamp` (the gateway stamps them). */
  event?: Record<string, unknown> | null;
}

export interface WorkerEventsBody {
  events: WorkerEventInput[] & tags.MinItems<1> & tags.MaxItems<1000>;
}

export interface CompleteBody {
  status: 'succeeded' | 'failed' | 'cancelled';
  reason: 'exit' | 'timeout' | 'output_limit' | 'cancelled' | 'workspace' | 'spawn' | 'checkpoint';
  // typia's schema leaves int32's bounds out; written out, the reference says what the validator does.
  exit_code?: (number & tags.Type<'int32'> & tags.Minimum<-2147483648> & tags.Maximum<2147483647>) | null;
  error?: (string & tags.MaxLength<10000>) | null;
  /** The checkpoint pushed to the run's work branch; null when the turn changed nothing. */
  commit_sha?: (string & tags.Pattern<'^[0-9a-f]{40}$'>) | null;
  /** The workspace's commit after the turn (the checkpoint, or the commit it started from). */
  head_commit?: (string & tags.Pattern<'^[0-9a-f]{40}$'>) | null;
  /** An eval run's lease: the run's card (required to succeed), what its command printed last. */
  card?: Record<string, unknown> | null;
  /** An eval run's lease: the run's cost in USD, as its command stated it. */
  cost_usd?: Usd | null;
}

export const validateLaunchBody = typia.createValidateEquals<LaunchBody>();
export const validateTurnBody = typia.createValidateEquals<TurnBody>();
export const validateWorkerEnvironmentParams = typia.createValidateEquals<WorkerEnvironmentParams>();
export const validateWorkerRunParams = typia.createValidateEquals<WorkerRunParams>();
export const validateWorkerRunListQuery = strictQuery(
  typia.http.createValidateQuery<WorkerRunListQuery>(),
  typia.json.schemas<[WorkerRunListQuery], '3.1'>(),
);
export const validateWorkerEventsQuery = strictQuery(
  typia.http.createValidateQuery<WorkerEventsQuery>(),
  typia.json.schemas<[WorkerEventsQuery], '3.1'>(),
);
export const validateWorkerStreamQuery = strictQuery(
  typia.http.createValidateQuery<WorkerStreamQuery>(),
  typia.json.schemas<[WorkerStreamQuery], '3.1'>(),
);
export const validateClaimBody = typia.createValidateEquals<ClaimBody>();
export const validateLeaseParams = typia.createValidateEquals<LeaseParams>();
export const validateWorkerEventsBody = typia.createValidateEquals<WorkerEventsBody>();
export const validateCompleteBody = typia.createValidateEquals<CompleteBody>();
/**
 * An agent event as the worker reports it, stamped: checked against the session contract, fields
 * it does not know dropped (agents print more than the contract names).
 */
export const pruneAgentEvent = typia.misc.createValidatePrune<AgentEvent>();
