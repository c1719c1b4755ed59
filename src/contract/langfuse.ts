/**
 * The shapes the Langfuse clients send to `/api/public/*` (docs/guide/langfuse.md), and how a
 * Langfuse score reads as a Tracelake one. Langfuse bodies carry fields Tracelake has no place for
 * (environment, metadata, queueId, configId): their validators let unknown properties through, and
 * the guide says what is not kept.
 */
import typia from 'typia';
import type { ScoreBody } from './scores.js';
import { strictQuery } from './strictQuery.js';

/** `POST /api/public/ingestion`: a batch of events, each judged on its own. */
export interface LangfuseIngestionBody {
  batch: unknown[];
}

/** One event of an ingestion batch; only `score-create` is taken. */
export interface LangfuseIngestionEvent {
  id: string;
  type: string;
  body?: unknown;
}

/** A score as `langfuse.score.create` and `POST /api/public/scores` send it. */
export interface LangfuseScoreBody {
  name: string;
  value: number | string;
  traceId?: string | null;
  observationId?: string | null;
  sessionId?: string | null;
  datasetRunId?: string | null;
  dataType?: string | null;
  comment?: string | null;
  source?: string | null;
}

/** `GET /api/public/v2/prompts/:name`'s query: a label or a version, not both. */
export interface LangfusePromptQuery {
  label?: string;
  version?: number;
  /** Sent by newer clients; Tracelake prompts hold no references to other prompts, so it changes nothing. */
  resolve?: boolean;
}

export const validateLangfuseIngestionBody = typia.createValidate<LangfuseIngestionBody>();
export const validateLangfuseIngestionEvent = typia.createValidate<LangfuseIngestionEvent>();
export const validateLangfuseScoreBody = typia.createValidate<LangfuseScoreBody>();
export const validateLangfusePromptQuery = strictQuery(
  typia.http.createValidateQuery<LangfusePromptQuery>(),
  typia.json.schemas<[LangfusePromptQuery], '3.1'>(),
);

/**
 * The Tracelake score a Langfuse one stands for, or why there is none. The resource is the
 * observation (a span), else the trace, else the session; a text value is a category's label; the
 * source defaults to `sdk`. Its fields are then checked as `POST /v1/scores` checks them.
 */
export function scoreFromLangfuse(v: LangfuseScoreBody): ScoreBody | { refused: string } {
  if (v.datasetRunId) return { refused: 'scores of dataset runs are not supported: score a trace, span or session' };
  const resource = v.observationId ?? v.traceId ?? v.sessionId;
  if (!resource) return { refused: 'traceId, observationId or sessionId is required' };
  const dataType = (v.dataType ?? (typeof v.value === 'string' ? 'CATEGORICAL' : 'NUMERIC')).toUpperCase();
  if (dataType !== 'NUMERIC' && dataType !== 'BOOLEAN' && dataType !== 'CATEGORICAL')
    return { refused: `${dataType} scores are not supported (NUMERIC, BOOLEAN and CATEGORICAL are)` };
  const score: ScoreBody = { name: v.name, resource_id: resource, data_type: dataType };
  if (typeof v.value === 'string') score.label = v.value;
  else score.score = v.value;
  if (v.sessionId) score.session_id = v.sessionId;
  if (v.comment) score.reason = v.comment;
  score.source = v.source ? v.source.toLowerCase() : 'sdk';
  return score;
}
