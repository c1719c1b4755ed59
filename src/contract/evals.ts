/**
 * Wire types of eval runs, trials and experiments. The worker-facing bodies (trials, status) are in
 * the spec's camelCase (`evalRunId`, `schemaVersion`, `costUsd`); the management and read
 * endpoints use the snake_case of the rest of the API. Trials are checked one by one in the handler
 * (a malformed one is rejected, not the batch), so the envelope only holds them.
 */
import typia, { type tags } from 'typia';
import type { TrialInput } from '../core/evals/trials.js';
import type { Id, Limit, Name, Offset, Usd, Uuid } from './ids.js';
import { strictQuery } from './strictQuery.js';

export interface CreateRunBody {
  /** The experiment's name; the experiment is created with its first run. */
  experiment: Name;
  /** The suite (dataset) the run evaluates, and its version. */
  suite: Name;
  suite_version?: string & tags.MinLength<1> & tags.MaxLength<128>;
  /** The model or agent configuration under test: any JSON object. */
  config?: Record<string, unknown>;
  git_commit?: string & tags.Pattern<'^[0-9a-fA-F]{7,64}$'>;
  git_branch?: Name;
}

/** Named apart from the trace list's RunParams (`/v1/runs/{runId}/traces`): one component name per type. */
export interface EvalRunParams {
  runId: Uuid;
}

export interface RunListQuery {
  experiment_id?: Uuid;
  status?: 'queued' | 'running' | 'succeeded' | 'failed';
  limit?: Limit;
  offset?: Offset;
}

/** The spec's status report; null stands for absent (workers send all three keys). */
export interface StatusBody {
  card?: Record<string, unknown> | null;
  costUsd?: Usd | null;
  error?: (string & tags.MaxLength<10000>) | null;
}

export interface TrialsBody {
  evalRunId: Uuid;
  schemaVersion: 1;
  trials: unknown[];
}

/** One trial (TrialInput) with its limits. */
export interface TrialItem extends TrialInput {
  taskId: Id;
  attempt?: number & tags.Type<'uint32'> & tags.Minimum<1> & tags.Maximum<1000>;
  resolved: boolean;
  costUsd: Usd;
  /** At most 1e15, as a score (ids.ts, Measure): the experiments average it. */
  durationMs: number & tags.Minimum<0> & tags.Maximum<1000000000000000>;
  traceId?: string & tags.Pattern<'^[0-9a-fA-F]{32}$'>;
  sessionId?: Id;
  artifact: Record<string, unknown>;
  metadata?: Record<string, unknown>;
}

export interface TrialListQuery {
  limit?: Limit;
  offset?: Offset;
}

export interface ExperimentParams {
  experimentId: Uuid;
}

export interface ExperimentListQuery {
  limit?: Limit;
  offset?: Offset;
}

export interface BaselineQuery {
  /** The experiment; optional when `run_id` names the candidate (its experiment is the one). */
  experiment_id?: Uuid;
  /** The candidate run; default the latest succeeded run that is not the baseline. */
  run_id?: Uuid;
}

export interface PinBaselineBody {
  /** The succeeded run to pin as the baseline; null removes the pin. */
  run_id: Uuid | null;
}

export const validateCreateRunBody = typia.createValidateEquals<CreateRunBody>();
export const validateRunParams = typia.createValidateEquals<EvalRunParams>();
export const validateRunListQuery = strictQuery(
  typia.http.createValidateQuery<RunListQuery>(),
  typia.json.schemas<[RunListQuery], '3.1'>(),
);
export const validateStatusBody = typia.createValidateEquals<StatusBody>();
export const validateTrialsBody = typia.createValidateEquals<TrialsBody>();
export const validateTrialItem = typia.createValidateEquals<TrialItem>();
export const validateTrialListQuery = strictQuery(
  typia.http.createValidateQuery<TrialListQuery>(),
  typia.json.schemas<[TrialListQuery], '3.1'>(),
);
export const validateExperimentParams = typia.createValidateEquals<ExperimentParams>();
export const validateExperimentListQuery = strictQuery(
  typia.http.createValidateQuery<ExperimentListQuery>(),
  typia.json.schemas<[ExperimentListQuery], '3.1'>(),
);
export const validateBaselineQuery = strictQuery(
  typia.http.createValidateQuery<BaselineQuery>(),
  typia.json.schemas<[BaselineQuery], '3.1'>(),
);
export const validatePinBaselineBody = typia.createValidateEquals<PinBaselineBody>();
