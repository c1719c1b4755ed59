/** Store-thread tasks of eval runs, trials and experiments (part of StoreTasks). */
import type { RunStatus } from '../../core/evals/runState.js';
import type { KeyView } from '../admin/meta.js';
import type { ExperimentRun, ExperimentSummary, ExperimentView, pinBaseline, RunFigures } from './experiments.js';
import type { NewRun, RunView, StatusChange } from './runs.js';
import type { NewTrials, TrialResult, TrialView } from './trials.js';
import type { PairAggregates } from '../../core/evals/comparison.js';
import type { Page } from '../spans/reads.js';
import type { ReadScope } from '../scope.js';

export interface EvalTasks {
  createEvalRun: { in: NewRun; out: { run: RunView; key: KeyView } };
  getEvalRun: { in: { scope: ReadScope; id: string }; out: RunView | null };
  listEvalRuns: { in: { scope: ReadScope; experimentId?: string; status?: RunStatus; limit: number; offset: number }; out: Page<RunView> };
  reportEvalStatus: { in: StatusChange; out: { run: RunView; revokedKeyHashes: string[] } | null };
  insertEvalTrials: { in: NewTrials; out: TrialResult };
  listEvalTrials: { in: { scope: ReadScope; runId: string; limit: number; offset: number }; out: Page<TrialView> | null };
  listExperiments: { in: { scope: ReadScope; limit: number; offset: number }; out: Page<ExperimentSummary> };
  experimentRuns: { in: { scope: ReadScope; experimentId: string; withFigures?: boolean }; out: { experiment: ExperimentView; runs: (ExperimentRun & { createdMs: number })[] } | null };
  experimentOfRun: { in: { scope: ReadScope; runId: string }; out: string | null };
  compareRuns: { in: { scope: ReadScope; baselineId: string; candidateId: string }; out: { aggregates: PairAggregates; perTaskJson: string; figures: Record<string, RunFigures> } };
  runFigures: { in: { scope: ReadScope; runIds: string[] }; out: Record<string, RunFigures> };
  pinBaseline: { in: { scope: ReadScope; experimentId: string; runId: string | null; by: string }; out: Awaited<ReturnType<typeof pinBaseline>> };
}
