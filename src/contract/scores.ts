/**
 * Wire types of scores, score configs and comments. typia checks shapes and limits (unknown
 * properties are refused); the rules that need more than one field, or stored data, are
 * core/scores'.
 */
import { strictQuery } from './strictQuery.js';
import typia, { type tags } from 'typia';
import type { JsonOrGroup, JsonPredicate } from './search.js';
import type { Id, Limit, Measure, Name, Offset, Uuid } from './ids.js';
import type { TimeWindowFields } from './window.js';

/** One score (spec: Score input item), plus `session_id` and the data type. */
export interface ScoreBody {
  name: Name;
  /** The trace (32 hex) or span (16 hex) scored. */
  resource_id?: string & tags.MaxLength<64>;
  /** Scores a session, or scopes a trace or span score to its session. */
  session_id?: Id;
  score?: Measure;
  /** NUMERIC, BOOLEAN or CATEGORICAL (any case). */
  data_type?: string & tags.MaxLength<32>;
  /** Alias of `data_type`. */
  dataType?: string & tags.MaxLength<32>;
  label?: string & tags.MaxLength<500>;
  reason?: string & tags.MaxLength<10000>;
  /** api (default), annotation, eval, sdk (any case). */
  source?: string & tags.MaxLength<32>;
  /** Who gave the score. */
  user_id?: Id;
  /** Echoed in batch results, never stored. */
  client_id?: string & tags.MaxLength<128>;
}

/**
 * Items are checked one by one in the handler, so the envelope only holds them; the size (1..1000)
 * is checked there too, since more than 1000 is 413, not 400.
 */
export interface ScoreBatchBody {
  scores: unknown[];
}

export interface ScoreParams {
  scoreId: Uuid;
}

export interface ScoreListQuery extends TimeWindowFields {
  session_id?: Id;
  trace_id?: string & tags.Pattern<'^[0-9a-fA-F]{32}$'>;
  resource_id?: Id;
  name?: Name;
  /** api, annotation, eval or sdk (any case). */
  source?: string & tags.MinLength<1> & tags.MaxLength<32>;
  /** NUMERIC, BOOLEAN or CATEGORICAL (any case). */
  data_type?: string & tags.MinLength<1> & tags.MaxLength<32>;
  user_id?: Id;
  limit?: Limit;
  offset?: Offset;
  format?: 'json' | 'csv';
}

export interface ScoreSearchBody extends TimeWindowFields {
  filters?: (JsonPredicate | JsonOrGroup)[] & tags.MaxItems<20>;
  limit?: Limit;
  offset?: Offset;
  sort_by?: 'created_at' | 'score' | 'name';
  sort_order?: 'asc' | 'desc';
}

export interface ScoreAggregationQuery extends TimeWindowFields {
  name?: Name;
  /** api, annotation, eval or sdk (any case). */
  source?: string & tags.MinLength<1> & tags.MaxLength<32>;
  /** NUMERIC, BOOLEAN or CATEGORICAL (any case). */
  data_type?: string & tags.MinLength<1> & tags.MaxLength<32>;
  /** The string filter expression over the score fields (spec: String filter expression). */
  filter?: string & tags.MinLength<1> & tags.MaxLength<8192>;
}

export interface CategoryBody {
  label: string & tags.MinLength<1> & tags.MaxLength<500>;
  value: number;
}

export interface ScoreConfigBody {
  name: Name;
  data_type: string & tags.MaxLength<32>;
  min_value?: number | null;
  max_value?: number | null;
  categories?: (CategoryBody[] & tags.MaxItems<100>) | null;
  description?: (string & tags.MaxLength<2000>) | null;
}

/** An update: the name and data type of a config never change. */
export interface ScoreConfigPatchBody {
  min_value?: number | null;
  max_value?: number | null;
  categories?: (CategoryBody[] & tags.MaxItems<100>) | null;
  description?: (string & tags.MaxLength<2000>) | null;
}

export interface ScoreConfigParams {
  name: Name;
}

export interface PageQuery {
  limit?: Limit;
  offset?: Offset;
}

export interface CommentBody {
  resource_type: 'trace' | 'span' | 'session';
  resource_id: Id;
  content: string & tags.MinLength<1> & tags.MaxLength<5000>;
  author_user_id?: Id;
}

export interface CommentListQuery extends PageQuery {
  resource_type: 'trace' | 'span' | 'session';
  resource_id: Id;
}

export interface CommentParams {
  commentId: Uuid;
}

export const validateScoreBody = typia.createValidateEquals<ScoreBody>();
export const validateScoreBatchBody = typia.createValidateEquals<ScoreBatchBody>();
export const validateScoreParams = typia.createValidateEquals<ScoreParams>();
export const validateScoreListQuery = strictQuery(
  typia.http.createValidateQuery<ScoreListQuery>(),
  typia.json.schemas<[ScoreListQuery], '3.1'>(),
);
export const validateScoreSearchBody = typia.createValidateEquals<ScoreSearchBody>();
export const validateScoreAggregationQuery = strictQuery(
  typia.http.createValidateQuery<ScoreAggregationQuery>(),
  typia.json.schemas<[ScoreAggregationQuery], '3.1'>(),
);
export const validateScoreConfigBody = typia.createValidateEquals<ScoreConfigBody>();
export const validateScoreConfigPatchBody = typia.createValidateEquals<ScoreConfigPatchBody>();
export const validateScoreConfigParams = typia.createValidateEquals<ScoreConfigParams>();
export const validatePageQuery = strictQuery(
  typia.http.createValidateQuery<PageQuery>(),
  typia.json.schemas<[PageQuery], '3.1'>(),
);
export const validateCommentBody = typia.createValidateEquals<CommentBody>();
export const validateCommentListQuery = strictQuery(
  typia.http.createValidateQuery<CommentListQuery>(),
  typia.json.schemas<[CommentListQuery], '3.1'>(),
);
export const validateCommentParams = typia.createValidateEquals<CommentParams>();
