import type { EvalTasks } from './tasks.js';
import type { Database } from '../db.js';
import * as experiments from './experiments.js';
import * as runs from './runs.js';
import * as trials from './trials.js';

/** The store thread's handlers of the eval tasks. */
export function evalHandlers(db: () => Promise<Database>): { [K in keyof EvalTasks]: (input: EvalTasks[K]['in']) => Promise<EvalTasks[K]['out']> } {
  return {
    createEvalRun: async (n) => runs.createRun(await db(), n),
    getEvalRun: async ({ scope, id }) => runs.getRun(await db(), scope, id),
    listEvalRuns: async ({ scope, ...q }) => runs.listRuns(await db(), scope, q),
    reportEvalStatus: async (c) => runs.reportStatus(await db(), c),
    insertEvalTrials: async (n) => trials.insertTrials(await db(), n),
    listEvalTrials: async ({ scope, runId, limit, offset }) => trials.listTrials(await db(), scope, runId, limit, offset),
    listExperiments: async ({ scope, limit, offset }) => experiments.listExperiments(await db(), scope, limit, offset),
    experimentRuns: async ({ scope, experimentId, withFigures }) => experiments.experimentRuns(await db(), scope, experimentId, withFigures),
    experimentOfRun: async ({ scope, runId }) => experiments.experimentOfRun(await db(), scope, runId),
    compareRuns: async ({ scope, baselineId, candidateId }) => experiments.compareRuns(await db(), scope, baselineId, candidateId),
    runFigures: async ({ scope, runIds }) => experiments.figuresByRun(await db(), scope, runIds),
    pinBaseline: async ({ scope, experimentId, runId, by }) => experiments.pinBaseline(await db(), scope, experimentId, runId, by),
  };
}
