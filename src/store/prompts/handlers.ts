import type { AppRef, NewHandshake } from '../git/connections.js';
import type { NewVersion, PromptListQuery, Selector } from './prompts.js';
import type { RepositoryPrompt } from './sync.js';
import type { TasksOf } from '../../pool/tasks.js';
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
export function promptHandlers(db: () => Promise<Database>, segments: SegmentStore) {
  return {
    gitConnection: async (app: AppRef) => git.getConnection(await db(), app),
    gitConnectionByState: async ({ stateHash }: { stateHash: string }) => git.connectionByState(await db(), stateHash),
    startGitHandshake: async (h: NewHandshake) => git.startHandshake(await db(), h),
    authoriseGit: async (a: AppRef & { stateHash: string; installationId: number; credentials: string }) =>
      git.authorise(await db(), a),
    selectGitRepository: async (s: AppRef & { stateHash: string | null; repository: string; branch: string }) =>
      git.select(await db(), s),
    disconnectGit: async (app: AppRef) => git.disconnect(await db(), app),
    createPromptVersion: async ({ app, version }: { app: AppRef; version: NewVersion }) =>
      prompts.createVersion(await db(), app, version),
    setPromptLabels: async ({
      app,
      name,
      version,
      labels,
      by,
    }: {
      app: AppRef;
      name: string;
      version: number;
      labels: string[];
      by: string;
    }) => prompts.setLabels(await db(), app, name, version, labels, by),
    removePromptLabel: async ({ app, name, label }: { app: AppRef; name: string; label: string }) =>
      prompts.removeLabel(await db(), app, name, label),
    getPromptVersion: async ({ app, name, selector }: { app: AppRef; name: string; selector: Selector }) =>
      prompts.getVersion(await db(), app, name, selector),
    listPrompts: async ({ app, query }: { app: AppRef; query: PromptListQuery }) =>
      prompts.listPrompts(await db(), app, query),
    syncPrompts: async ({
      app,
      ...input
    }: {
      app: AppRef;
      commitSha: string;
      prompts: RepositoryPrompt[];
      by: string;
    }) => syncPrompts(await db(), app, input),
    promptMetrics: async ({ scope, name, fromMs, toMs }: PromptMetricsInput) =>
      promptMetrics({ db: await db(), segments }, scope, name, fromMs, toMs),
  };
}

/** The store-thread tasks of promptHandlers: each handler's input and output. */
export type PromptTasks = TasksOf<ReturnType<typeof promptHandlers>>;
