/**
 * The API's answers as the UI reads them: the server's own types, imported as types only (esbuild
 * erases them; nothing of the server is bundled). The UI's type check (src/web/tsconfig.json) sees
 * the server modules these names come from, so a change to an answer's type is checked against
 * the pages that read it. test/web/apiTypes.alone.test.ts validates a real server's answers against
 * these types at run time.
 */
import type { Outcome } from '../core/evals/comparison.js';
import type { Pagination } from '../contract/responses.js';
import type { WorkerRunDetail, WorkerRunView } from '../store/workers/views.js';

export type { ChatMessage } from '../core/prompts/document.js';
export type { Interval } from '../core/evals/stats.js';
export type { MeanChange, Outcome, TaskPair } from '../core/evals/comparison.js';
export type { FilterSchema, SchemaField } from '../core/filter/schema.js';
export type { TraceGraph as Graph } from '../core/graph.js';
export type { ScoreAggregation as Aggregation } from '../core/scores/selection.js';
export type {
  BaselineComparison,
  Capabilities,
  CredentialApp,
  ExperimentDetail,
  MetricsAnswer,
  TraceDetail,
} from '../contract/responses.js';
/** A span in a trace or a list (a trace's spans carry one field more; the opened one is a SpanDetail). */
export type { SpanListItem as Span } from '../contract/responses.js';
export type {
  ExperimentRun,
  ExperimentSummary,
  ExperimentView as Experiment,
  RunFigures,
} from '../store/evals/experiments.js';
export type { MetricsRow } from '../store/metrics/metrics.js';
export type { Dimension, View as MetricsView } from '../core/metrics/plan.js';
export type { PromptVersionMetrics, ScoreAverage } from '../store/prompts/metrics.js';
export type { PromptSummary, PromptVersionView as PromptVersion } from '../store/prompts/prompts.js';
export type { CommentView as Comment } from '../store/scores/comments.js';
export type { ScoreView as Score } from '../store/scores/scores.js';
export type { SessionView as Session, SpanDetail } from '../store/spans/reads.js';
/** A trace as lists show it (a session's traces carry one field more). */
export type { TraceListItem as TraceSummary } from '../store/spans/search.js';
export type { WorkerTurnView as WorkerTurn } from '../store/workers/views.js';

/** A page of a list: `{data, pagination}`. */
export interface Page<T> {
  data: T[];
  pagination: Pagination;
}

/** A worker run as lists show it; `GET /v1/workers/runs/{id}` adds its turns. */
export type WorkerRun = WorkerRunView & Partial<Pick<WorkerRunDetail, 'turns'>>;

/** The comparison page's order of outcomes: what changed first. */
export const OUTCOMES = [
  'fixed',
  'regressed',
  'both_resolved',
  'both_failed',
  'only_baseline',
  'only_candidate',
] as const satisfies readonly Outcome[];
