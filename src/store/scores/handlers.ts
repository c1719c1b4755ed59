import type { ScoreTasks } from './tasks.js';
import type { Database } from '../db.js';
import type { SegmentStore } from '../spans/segmentStore.js';
import * as scores from './scores.js';
import * as comments from './comments.js';
import * as configs from './configs.js';

/** The store thread's handlers of the score tasks. */
export function scoreHandlers(db: () => Promise<Database>, segments: SegmentStore): { [K in keyof ScoreTasks]: (input: ScoreTasks[K]['in']) => Promise<ScoreTasks[K]['out']> } {
  return {
    insertScores: async (input) => scores.insertScores(await db(), segments, input),
    listScores: async ({ page, filter }) => scores.listScores(await db(), page, filter),
    getScore: async ({ scope, id }) => scores.getScore(await db(), scope, id),
    deleteScore: async ({ scope, id }) => scores.deleteScore(await db(), scope, id),
    scoreNames: async ({ scope }) => scores.scoreNames(await db(), scope),
    aggregateScores: async ({ scope, plan, filter }) => scores.aggregateScores(await db(), scope, plan, filter),
    listScoreConfigs: async ({ scope, limit, offset }) => configs.listConfigs(await db(), scope, limit, offset),
    getScoreConfig: async ({ scope, name }) => configs.getConfig(await db(), scope, name),
    createScoreConfig: async ({ scope, name, rules, by }) => configs.createConfig(await db(), scope, name, rules, by),
    updateScoreConfig: async ({ scope, name, patch, by }) => configs.updateConfig(await db(), scope, name, patch, by),
    createComment: async (c) => comments.createComment(await db(), segments, c),
    listComments: async ({ scope, resourceType, resourceId, limit, offset }) => comments.listComments(await db(), scope, resourceType, resourceId, limit, offset),
    getComment: async ({ scope, id }) => comments.getComment(await db(), scope, id),
    deleteComment: async ({ scope, id }) => comments.deleteComment(await db(), scope, id),
  };
}
