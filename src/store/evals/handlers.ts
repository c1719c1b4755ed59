import type { RunStatus } from '../../core/evals/runState.js';
import type { NewRun, StatusChange } from './runs.js';
import type { NewTrials } from './trials.js';
import type { ReadScope } from '../scope.js';
import type { TasksOf } from '../../pool/tasks.js';
import type { Database } from '../db.js';
import * as experiments from './experiments.js';
import * as runs from './runs.js';
import * as trials from './trials.js';

/** The store thread's handlers of the eval tasks. */
export function evalHandlers(db: () => Promise<Database>) {
  return {
    createEvalRun: async (n: NewRun) => runs.createRun(await db(), n),
    getEvalRun: async ({ scope, id }: { scope: ReadScope; id: string }) => runs.getRun(await db(), scope, id),
    listEvalRuns: async ({
      scope,
      ...q
    }: {
      scope: ReadScope;
      experimentId?: string;
      status?: RunStatus;
      limit: number;
      offset: number;
    }) => runs.listRuns(await db(), scope, q),
    reportEvalStatus: async (c: StatusChange) => runs.reportStatus(await db(), c),
    insertEvalTrials: async (n: NewTrials) => trials.insertTrials(await db(), n),
    listEvalTrials: async ({
      scope,
      runId,
      limit,
      offset,
    }: {
      scope: ReadScope;
      runId: string;
      limit: number;
      offset: number;
    }) => trials.listTrials(await db(), scope, runId, limit, offset),
    listExperiments: async ({ scope, limit, offset }: { scope: ReadScope; limit: number; offset: number }) =>
      experiments.listExperiments(await db(), scope, limit, offset),
    experimentRuns: async ({
      scope,
      experimentId,
      withFigures,
    }: {
      scope: ReadScope;
      experimentId: string;
      withFigures?: boolean;
    }) => experiments.experimentRuns(await db(), scope, experimentId, withFigures),
    experimentOfRun: async ({ scope, runId }: { scope: ReadScope; runId: string }) =>
      experiments.experimentOfRun(await db(), scope, runId),
    compareRuns: async ({
      scope,
      baselineId,
      candidateId,
    }: {
      scope: ReadScope;
      baselineId: string;
      candidateId: string;
    }) => experiments.compareRuns(await db(), scope, baselineId, candidateId),
    runFigures: async ({ scope, runIds }: { scope: ReadScope; runIds: string[] }) =>
      experiments.figuresByRun(await db(), scope, runIds),
    pinBaseline: async ({
      scope,
      experimentId,
      runId,
      by,
    }: {
      scope: ReadScope;
      experimentId: string;
      runId: string | null;
      by: string;
    }) => experiments.pinBaseline(await db(), scope, experimentId, runId, by),
  };
}

/** The store-thread tasks of evalHandlers: each handler's input and output. */
export type EvalTasks = TasksOf<ReturnType<typeof evalHandlers>>;
