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
} from '../../contract/evals.js';
import { chooseRuns } from '../../core/evals/baseline.js';
import { buildComparison, type Comparison } from '../../core/evals/comparison.js';
import type { BaselineComparison, BaselinePin, ExperimentDetail } from '../../contract/responses.js';
import { ApiError, validationError } from '../../core/errors.js';
import type { ExperimentRun, RunFigures } from '../../store/evals/experiments.js';
import { bytes, data } from '../reply.js';
import { actorOf, readScopeOf } from '../principal.js';
import { paged } from '../paged.js';
import { route, type Context } from '../route.js';
import {
  BASELINE_ID,
  BASELINE_RUN,
  COMPARISON,
  EXPERIMENT,
  EXPERIMENT_ID,
  EXPERIMENT_RUN,
} from '../../openapi/evalExamples.js';
import { answer, payload } from '../../openapi/note.js';

async function runsOf(ctx: Context, experimentId: string, withFigures = true) {
  const found = await ctx.services.store.run('experimentRuns', {
    scope: readScopeOf(ctx.principal),
    experimentId,
    withFigures,
  });
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
  route({
    method: 'GET',
    path: '/v1/experiments',
    permission: 'experiment.read',
    validate: { query: validateExperimentListQuery },
    note: {
      tag: 'Experiments',
      summary: 'List experiments',
      description:
        "Experiments with runs in the reader's scope, most recently run first, each with its latest run and that run's figures.",
      query: 'ExperimentListQuery',
      answers: [
        answer(200, 'ExperimentPage', 'A page of experiments.', {
          page: {
            data: [{ ...EXPERIMENT, latest_run: EXPERIMENT_RUN }],
            pagination: { total: 1, limit: 50, offset: 0 },
          },
        }),
      ],
    },
    async handler({ query }, ctx) {
      return paged(query, (page) =>
        ctx.services.store.run('listExperiments', { scope: readScopeOf(ctx.principal), ...page }),
      );
    },
  }),
  route({
    method: 'GET',
    path: '/v1/experiments/baseline',
    permission: 'experiment.read',
    validate: { query: validateBaselineQuery },
    note: {
      tag: 'Experiments',
      summary: 'A run against its baseline, task by task',
      description:
        'The candidate (`run_id`, default the latest succeeded run that is not the baseline) against the baseline (the pinned run, else the latest succeeded run before the candidate): per-task outcomes, and the change in resolved rate (paired difference, Agresti–Min 95% interval, exact McNemar p-value), mean cost and mean duration (per-task differences, normal 95% interval; null with fewer than two paired tasks). `comparison` is null when there is nothing to compare.',
      query: 'BaselineQuery',
      answers: [
        answer(200, 'BaselineAnswer', 'The two runs and their comparison.', {
          compared: {
            data: {
              experiment_id: EXPERIMENT_ID,
              experiment: 'checkout-agent',
              baseline: { ...BASELINE_RUN, pinned: false },
              candidate: EXPERIMENT_RUN,
              comparison: {
                ...COMPARISON,
                per_task: [
                  {
                    task_id: 'ticket-1042',
                    outcome: 'fixed',
                    baseline_resolved: false,
                    candidate_resolved: true,
                    baseline_cost_usd: 0.0521,
                    candidate_cost_usd: 0.0412,
                    baseline_duration_ms: 55120,
                    candidate_duration_ms: 48210,
                  },
                  {
                    task_id: 'ticket-1043',
                    outcome: 'both_failed',
                    baseline_resolved: false,
                    candidate_resolved: false,
                    baseline_cost_usd: 0.0402,
                    candidate_cost_usd: 0.0388,
                    baseline_duration_ms: 60210,
                    candidate_duration_ms: 61002,
                  },
                ],
              },
            },
          },
          alone: {
            data: {
              experiment_id: EXPERIMENT_ID,
              experiment: 'checkout-agent',
              baseline: { ...BASELINE_RUN, pinned: false },
              candidate: null,
              comparison: null,
            },
          },
        }),
      ],
      errors: [
        { status: 400, when: '`invalid_query_parameters`: neither `experiment_id` nor `run_id`.' },
        { status: 404, when: '`not_found`: no such run (`run_id` alone), or the experiment has no run in scope.' },
      ],
    },
    async handler({ query }, ctx) {
      const scope = readScopeOf(ctx.principal);
      const runId = query.run_id?.toLowerCase() ?? null;
      let experimentId = query.experiment_id?.toLowerCase() ?? null;
      if (experimentId === null) {
        if (runId === null)
          throw validationError('query', { experiment_id: 'name the experiment, or the run to compare (run_id)' });
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
        const compared = await ctx.services.store.run('compareRuns', {
          scope,
          baselineId: baseline.id,
          candidateId: candidate.id,
        });
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
      } satisfies Omit<BaselineComparison, 'comparison'> & {
        comparison: (Comparison & { per_task: typeof PER_TASK }) | null;
      };
      return bytes(withPerTask(JSON.stringify({ data: answer }), perTaskJson), 'application/json');
    },
  }),
  route({
    method: 'GET',
    path: '/v1/experiments/:experimentId',
    permission: 'experiment.read',
    validate: { params: validateExperimentParams },
    note: {
      tag: 'Experiments',
      summary: 'One experiment with its runs',
      description:
        "Its runs in the reader's scope, oldest first, each with its figures; `baseline_run_id` is the pin, when the reader can see that run.",
      params: 'ExperimentParams',
      answers: [
        answer(200, 'ExperimentAnswer', 'The experiment.', {
          two: { data: { ...EXPERIMENT, runs: [BASELINE_RUN, EXPERIMENT_RUN] } },
        }),
      ],
    },
    async handler({ params }, ctx) {
      const { experiment, runs } = await runsOf(ctx, params.experimentId.toLowerCase());
      return data({ ...experiment, runs: runs.map(shown) } satisfies ExperimentDetail);
    },
  }),
  route({
    method: 'PUT',
    path: '/v1/experiments/:experimentId/baseline',
    permission: 'admin',
    validate: { params: validateExperimentParams, body: validatePinBaselineBody },
    note: {
      tag: 'Experiments',
      summary: "Pin an experiment's baseline",
      description:
        'A succeeded run of the experiment; `null` removes the pin (the baseline is then the latest succeeded run before the candidate).',
      params: 'ExperimentParams',
      body: payload('PinBaselineBody', { pin: { run_id: BASELINE_ID }, unpin: { run_id: null } }),
      answers: [
        answer(200, 'BaselinePinAnswer', 'The pin.', {
          pinned: { data: { experiment_id: EXPERIMENT_ID, baseline_run_id: BASELINE_ID } },
        }),
      ],
      errors: [
        { status: 404, when: '`not_found`: no such experiment, or the run is not one of its runs.' },
        { status: 409, when: "`conflict`, with the run's `status`: the run has not succeeded." },
      ],
    },
    async handler({ params, body }, ctx) {
      const experimentId = params.experimentId.toLowerCase();
      const runId = body.run_id?.toLowerCase() ?? null;
      const outcome = await ctx.services.store.run('pinBaseline', {
        scope: readScopeOf(ctx.principal),
        experimentId,
        runId,
        by: actorOf(ctx.principal),
      });
      if (outcome === 'no_experiment') throw new ApiError('not_found', `Experiment ${params.experimentId} not found`);
      if (outcome === 'no_run')
        throw new ApiError('not_found', `Eval run ${body.run_id} is not a run of experiment ${params.experimentId}`);
      if (typeof outcome === 'object')
        throw new ApiError(
          'conflict',
          `Only a succeeded run can be the baseline; run ${runId} is ${outcome.notSucceeded}`,
          { status: outcome.notSucceeded },
        );
      return data({ experiment_id: experimentId, baseline_run_id: runId } satisfies BaselinePin);
    },
  }),
];
