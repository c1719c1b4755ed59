import type { ConfigPatch, ConfigRules } from '../../core/scores/config.js';
import type { ResourceType } from '../../core/scores/model.js';
import type { AggregationPlan } from '../../core/scores/selection.js';
import type { Filter } from '../../core/filter/index.js';
import type { ReadScope } from '../scope.js';
import type { InsertScores, ScorePage } from './scores.js';
import type { NewComment } from './comments.js';
import type { AppScope } from './configs.js';
import type { TasksOf } from '../../pool/tasks.js';
import type { Database } from '../db.js';
import type { SegmentStore } from '../spans/segmentStore.js';
import * as scores from './scores.js';
import * as comments from './comments.js';
import * as configs from './configs.js';

/** The store thread's handlers of the score tasks. */
export function scoreHandlers(db: () => Promise<Database>, segments: SegmentStore) {
  return {
    insertScores: async (input: InsertScores) => scores.insertScores(await db(), segments, input),
    listScores: async ({ page, filter }: { page: ScorePage; filter?: Filter }) =>
      scores.listScores(await db(), page, filter),
    getScore: async ({ scope, id }: { scope: ReadScope; id: string }) => scores.getScore(await db(), scope, id),
    deleteScore: async ({ scope, id }: { scope: ReadScope; id: string }) => scores.deleteScore(await db(), scope, id),
    scoreNames: async ({ scope }: { scope: ReadScope }) => scores.scoreNames(await db(), scope),
    aggregateScores: async ({ scope, plan, filter }: { scope: ReadScope; plan: AggregationPlan; filter?: Filter }) =>
      scores.aggregateScores(await db(), scope, plan, filter),
    listScoreConfigs: async ({ scope, limit, offset }: { scope: AppScope; limit: number; offset: number }) =>
      configs.listConfigs(await db(), scope, limit, offset),
    getScoreConfig: async ({ scope, name }: { scope: AppScope; name: string }) =>
      configs.getConfig(await db(), scope, name),
    createScoreConfig: async ({
      scope,
      name,
      rules,
      by,
    }: {
      scope: AppScope;
      name: string;
      rules: ConfigRules;
      by: string;
    }) => configs.createConfig(await db(), scope, name, rules, by),
    updateScoreConfig: async ({
      scope,
      name,
      patch,
      by,
    }: {
      scope: AppScope;
      name: string;
      patch: ConfigPatch;
      by: string;
    }) => configs.updateConfig(await db(), scope, name, patch, by),
    createComment: async (c: NewComment) => comments.createComment(await db(), segments, c),
    listComments: async ({
      scope,
      resourceType,
      resourceId,
      limit,
      offset,
    }: {
      scope: ReadScope;
      resourceType: ResourceType;
      resourceId: string;
      limit: number;
      offset: number;
    }) => comments.listComments(await db(), scope, resourceType, resourceId, limit, offset),
    getComment: async ({ scope, id }: { scope: ReadScope; id: string }) => comments.getComment(await db(), scope, id),
    deleteComment: async ({ scope, id }: { scope: ReadScope; id: string }) =>
      comments.deleteComment(await db(), scope, id),
  };
}

/** The store-thread tasks of scoreHandlers: each handler's input and output. */
export type ScoreTasks = TasksOf<ReturnType<typeof scoreHandlers>>;
