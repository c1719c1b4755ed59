/**
 * Experiments (spec: `GET /v1/experiments`, `/{experimentId}`, `/baseline`; permission
 * experiment.read): the runs of one experiment over time, and a run against the experiment's
 * baseline task by task, with the changes in resolved rate, cost and duration and their 95%
 * intervals. DuckDB aggregates the trials' score rows (store/evals/experiments.ts); the statistics
 * are core/evals'. Pinning a baseline is an admin's call.
 */
import {
  validateBaselineQuery,
  validateExperimentListQuery,
  validateExperimentParams,
  validatePinBaselineBody,
  type BaselineQuery,
  type ExperimentListQuery,
  type ExperimentParams,
  type PinBaselineBody,
} from '../../contract/evals.js';
import { chooseRuns } from '../../core/evals/baseline.js';
import { buildComparison, type Comparison } from '../../core/evals/comparison.js';
import type { BaselineComparison, BaselinePin, ExperimentDetail } from '../../contract/responses.js';
import { ApiError, validationError } from '../../core/errors.js';
import type { ExperimentRun, RunFigures } from '../../store/evals/experiments.js';
import { bytes, data, json } from '../reply.js';
import { actorOf, readScopeOf } from '../principal.js';
import { route, type Context } from '../route.js';

const DEFAULT_PAGE = 50;

async function runsOf(ctx: Context, experimentId: string, withFigures = true) {
  const found = await ctx.services.store.run('experimentRuns', { scope: readScopeOf(ctx.principal), experimentId, withFigures });
  if (!found) throw new ApiError('not_found', `Experiment ${experimentId} not found`);
  return found;
}

/**
 * The per-task table arrives as JSON text written by DuckDB; it goes into the answer as it is, in
 * place of this marker (a string: JSON.stringify writes it as `"per_task":"…"`, and the quote
 * after `per_task` cannot appear unescaped inside any string of the answer).
 */
const PER_TASK = '\u0000per_task';
const PER_TASK_TEXT = `"per_task":${JSON.stringify(PER_TASK)}`;

function withPerTask(text: string, perTaskJson: string): string {
  const at = text.lastIndexOf(PER_TASK_TEXT);
  return at < 0 ? text : `${text.slice(0, at)}"per_task":${perTaskJson}${text.slice(at + PER_TASK_TEXT.length)}`;
}

const shown = ({ createdMs: _c, ...run }: ExperimentRun & { createdMs: number }): ExperimentRun => run;

export const experimentRoutes = [
  route<Record<string, string>, ExperimentListQuery>({
    method: 'GET',
    path: '/v1/experiments',
    permission: 'experiment.read',
    validate: { query: validateExperimentListQuery },
    async handler({ query }, ctx) {
      const limit = query.limit ?? DEFAULT_PAGE;
      const offset = query.offset ?? 0;
      const page = await ctx.services.store.run('listExperiments', { scope: readScopeOf(ctx.principal), limit, offset });
      return json({ data: page.data, pagination: { total: page.total, limit, offset } });
    },
  }),
  route<Record<string, string>, BaselineQuery>({
    method: 'GET',
    path: '/v1/experiments/baseline',
    permission: 'experiment.read',
    validate: { query: validateBaselineQuery },
    async handler({ query }, ctx) {
      const scope = readScopeOf(ctx.principal);
      const runId = query.run_id?.toLowerCase() ?? null;
      let experimentId = query.experiment_id?.toLowerCase() ?? null;
      if (experimentId === null) {
        if (runId === null) throw validationError('query', { experiment_id: 'name the experiment, or the run to compare (run_id)' });
        experimentId = await ctx.services.store.run('experimentOfRun', { scope, runId });
        if (experimentId === null) throw new ApiError('not_found', `Eval run ${runId} not found`);
      }
      // Figures of the two runs only: an experiment may have hundreds of runs.
      const { experiment, runs } = await runsOf(ctx, experimentId, false);
      const choice = chooseRuns(runs, experiment.baseline_run_id, runId);
      const byId = new Map(runs.map((r) => [r.id, shown(r)]));
      const baseline = choice.baseline && byId.get(choice.baseline.id)!;
      const candidate = choice.candidate && byId.get(choice.candidate.id)!;
      let comparison = null;
      let perTaskJson = '[]';
      let figures: Record<string, RunFigures> = {};
      if (baseline && candidate) {
        const compared = await ctx.services.store.run('compareRuns', { scope, baselineId: baseline.id, candidateId: candidate.id });
        comparison = buildComparison(compared.aggregates);
        perTaskJson = compared.perTaskJson;
        figures = compared.figures;
      } else if (baseline) {
        figures = await ctx.services.store.run('runFigures', { scope, runIds: [baseline.id] });
      }
      const answer = {
        experiment_id: experiment.id,
        experiment: experiment.name,
        baseline: baseline && { ...baseline, ...figures[baseline.id], pinned: choice.pinned },
        candidate: candidate && { ...candidate, ...figures[candidate.id] },
        comparison: comparison && { ...comparison, per_task: PER_TASK },
      } satisfies Omit<BaselineComparison, 'comparison'> & { comparison: (Comparison & { per_task: typeof PER_TASK }) | null };
      return bytes(withPerTask(JSON.stringify({ data: answer }), perTaskJson), 'application/json');
    },
  }),
  route<ExperimentParams>({
    method: 'GET',
    path: '/v1/experiments/:experimentId',
    permission: 'experiment.read',
    validate: { params: validateExperimentParams },
    async handler({ params }, ctx) {
      const { experiment, runs } = await runsOf(ctx, params.experimentId.toLowerCase());
      return data({ ...experiment, runs: runs.map(shown) } satisfies ExperimentDetail);
    },
  }),
  route<ExperimentParams, Record<string, never>, PinBaselineBody>({
    method: 'PUT',
    path: '/v1/experiments/:experimentId/baseline',
    permission: 'admin',
    validate: { params: validateExperimentParams, body: validatePinBaselineBody },
    async handler({ params, body }, ctx) {
      const experimentId = params.experimentId.toLowerCase();
      const runId = body.run_id?.toLowerCase() ?? null;
      const outcome = await ctx.services.store.run('pinBaseline', { scope: readScopeOf(ctx.principal), experimentId, runId, by: actorOf(ctx.principal) });
      if (outcome === 'no_experiment') throw new ApiError('not_found', `Experiment ${params.experimentId} not found`);
      if (outcome === 'no_run') throw new ApiError('not_found', `Eval run ${body.run_id} is not a run of experiment ${params.experimentId}`);
      if (typeof outcome === 'object') throw new ApiError('conflict', `Only a succeeded run can be the baseline; run ${runId} is ${outcome.notSucceeded}`, { status: outcome.notSucceeded });
      return data({ experiment_id: experimentId, baseline_run_id: runId } satisfies BaselinePin);
    },
  }),
];
