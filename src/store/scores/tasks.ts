/** Store-thread tasks of scores, score configs and comments (part of StoreTasks). */
import type { Filter } from '../../core/filter/index.js';
import type { ConfigPatch, ConfigRules } from '../../core/scores/config.js';
import type { ResourceType } from '../../core/scores/model.js';
import type { AggregationPlan, ScoreAggregation } from '../../core/scores/selection.js';
import type { Page } from '../spans/reads.js';
import type { ReadScope } from '../scope.js';
import type { InsertedScores, InsertScores, ScoreAnswer, ScorePage, ScoreView } from './scores.js';
import type { CommentView, NewComment } from './comments.js';
import type { AppScope, ScoreConfigView } from './configs.js';

export interface ScoreTasks {
  insertScores: { in: InsertScores; out: InsertedScores };
  listScores: { in: { page: ScorePage; filter?: Filter }; out: ScoreAnswer };
  getScore: { in: { scope: ReadScope; id: string }; out: ScoreView | null };
  deleteScore: { in: { scope: ReadScope; id: string }; out: ScoreView | null };
  scoreNames: { in: { scope: ReadScope }; out: string[] };
  aggregateScores: { in: { scope: ReadScope; plan: AggregationPlan; filter?: Filter }; out: ScoreAggregation[] };
  listScoreConfigs: { in: { scope: AppScope; limit: number; offset: number }; out: Page<ScoreConfigView> };
  getScoreConfig: { in: { scope: AppScope; name: string }; out: ScoreConfigView | null };
  createScoreConfig: { in: { scope: AppScope; name: string; rules: ConfigRules; by: string }; out: ScoreConfigView | null };
  updateScoreConfig: { in: { scope: AppScope; name: string; patch: ConfigPatch; by: string }; out: ScoreConfigView | null };
  createComment: { in: NewComment; out: CommentView };
  listComments: { in: { scope: ReadScope; resourceType: ResourceType; resourceId: string; limit: number; offset: number }; out: Page<CommentView> };
  getComment: { in: { scope: ReadScope; id: string }; out: CommentView | null };
  deleteComment: { in: { scope: ReadScope; id: string }; out: CommentView | null };
}
