import type { PromptTasks } from './tasks.js';
import type { Database } from '../db.js';
import * as git from '../git/connections.js';
import type { SegmentStore } from '../spans/segmentStore.js';
import type { ReadScope } from '../scope.js';
import { promptMetrics } from './metrics.js';
import * as prompts from './prompts.js';
import { syncPrompts } from './sync.js';

export interface PromptMetricsInput {
  scope: ReadScope;
  name: string;
  fromMs: number;
  toMs: number;
}

/** The store thread's handlers of the git connection and prompt tasks. */
export function promptHandlers(db: () => Promise<Database>, segments: SegmentStore): { [K in keyof PromptTasks]: (input: PromptTasks[K]['in']) => Promise<PromptTasks[K]['out']> } {
  return {
    gitConnection: async (app) => git.getConnection(await db(), app),
    gitConnectionByState: async ({ stateHash }) => git.connectionByState(await db(), stateHash),
    startGitHandshake: async (h) => git.startHandshake(await db(), h),
    authoriseGit: async (a) => git.authorise(await db(), a),
    selectGitRepository: async (s) => git.select(await db(), s),
    disconnectGit: async (app) => git.disconnect(await db(), app),
    createPromptVersion: async ({ app, version }) => prompts.createVersion(await db(), app, version),
    setPromptLabels: async ({ app, name, version, labels, by }) => prompts.setLabels(await db(), app, name, version, labels, by),
    removePromptLabel: async ({ app, name, label }) => prompts.removeLabel(await db(), app, name, label),
    getPromptVersion: async ({ app, name, selector }) => prompts.getVersion(await db(), app, name, selector),
    listPrompts: async ({ app, query }) => prompts.listPrompts(await db(), app, query),
    syncPrompts: async ({ app, ...input }) => syncPrompts(await db(), app, input),
    promptMetrics: async ({ scope, name, fromMs, toMs }) => promptMetrics({ db: await db(), segments }, scope, name, fromMs, toMs),
  };
}
