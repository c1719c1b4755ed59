/**
 * Every wire type the API reference names, in one list. typia turns the list into JSON schemas at
 * build time (`CATALOG_SCHEMAS`) and into the validator of documented examples (`validateExamples`),
 * so the reference, its examples and the request validators all come from the same types.
 */
import typia, { type tags } from 'typia';
import type { AgentBlob, AgentSession } from '../core/agents/session.js';
import type * as Admin from './admin.js';
import type * as ApiKeys from './apiKeys.js';
import type * as Apps from './apps.js';
import type * as Evals from './evals.js';
import type * as Git from './git.js';
import type * as Langfuse from './langfuse.js';
import type * as Metrics from './metrics.js';
import type * as Operator from './operator.js';
import type * as Prompts from './prompts.js';
import type * as R from './responses.js';
import type * as Scores from './scores.js';
import type * as Search from './search.js';
import type * as Traces from './traces.js';
import type * as Ui from './ui.js';
import type * as Workers from './workers.js';

/**
 * `POST /v1/scores/batch` as documented: each item is a ScoreBody. The route's own envelope takes
 * `unknown[]` and checks the items one by one, so that one bad item does not refuse the batch.
 */
export interface ScoreBatchRequest {
  scores: Scores.ScoreBody[] & tags.MinItems<1> & tags.MaxItems<1000>;
}

/**
 * `POST /v1/agents/sync` as documented: the session shape of core/agents/session.ts and the blobs.
 * The route reads the body raw and a compute thread checks it (ingest/agentsBatch.ts): the envelope
 * whole (AgentSyncBody, contract/agents.ts), then each session and blob on its own, so one bad session is listed
 * in `rejected` instead of refusing the batch.
 */
export interface AgentSyncRequest {
  schemaVersion: 1;
  sessions: AgentSession[] & tags.MaxItems<1000>;
  blobs?: AgentBlob[] & tags.MaxItems<10000>;
}

/**
 * `POST /v1/evals/trials` as documented: each item is a TrialItem. The route's envelope takes
 * `unknown[]` and checks the trials one by one, so that one bad trial does not refuse the batch.
 */
export interface EvalTrialsRequest {
  evalRunId: Evals.EvalRunParams['runId'];
  schemaVersion: 1;
  trials: Evals.TrialItem[] & tags.MinItems<1> & tags.MaxItems<1000>;
}

/** Name → type; a name is how the routes' notes (src/openapi/note.ts) refer to a type. */
export interface Catalog {
  // Requests: path parameters, query parameters and bodies.
  TraceParams: Traces.TraceParams;
  TraceSpanParams: Traces.TraceSpanParams;
  SpanParams: Traces.SpanParams;
  SessionParams: Traces.SessionParams;
  RunParams: Traces.RunParams;
  TraceQuery: Traces.TraceQuery;
  EnvironmentQuery: Traces.EnvironmentQuery;
  PageQuery: Traces.PageQuery;
  TracePageQuery: Traces.TracePageQuery;
  SessionListQuery: Traces.SessionListQuery;
  TraceListQuery: Search.TraceListQuery;
  TraceSearchBody: Search.TraceSearchBody;
  SpanListQuery: Search.SpanListQuery;
  SpanSearchBody: Search.SpanSearchBody;
  ScoreBody: Scores.ScoreBody;
  ScoreBatchRequest: ScoreBatchRequest;
  ScoreParams: Scores.ScoreParams;
  ScoreListQuery: Scores.ScoreListQuery;
  ScoreSearchBody: Scores.ScoreSearchBody;
  ScoreAggregationQuery: Scores.ScoreAggregationQuery;
  ScoreConfigBody: Scores.ScoreConfigBody;
  ScoreConfigPatchBody: Scores.ScoreConfigPatchBody;
  ScoreConfigParams: Scores.ScoreConfigParams;
  CommentBody: Scores.CommentBody;
  CommentListQuery: Scores.CommentListQuery;
  CommentParams: Scores.CommentParams;
  CreateKeyBody: ApiKeys.CreateKeyBody;
  KeyIdParams: ApiKeys.KeyIdParams;
  KeyAppQuery: ApiKeys.KeyAppQuery;
  CreateAppBody: Apps.CreateAppBody;
  AppParams: Apps.AppParams;
  BlobParams: Apps.BlobParams;
  CreateEnvironmentBody: Admin.CreateEnvironmentBody;
  EnvironmentListQuery: Admin.EnvironmentListQuery;
  EnvironmentParams: Admin.EnvironmentParams;
  UpdateEnvironmentBody: Admin.UpdateEnvironmentBody;
  DeleteEnvironmentBody: Admin.DeleteEnvironmentBody;
  UpdateAppBody: Admin.UpdateAppBody;
  DeleteAppBody: Admin.DeleteAppBody;
  OperatorTenantParams: Operator.OperatorTenantParams;
  OperatorAppParams: Operator.OperatorAppParams;
  OperatorKeyParams: Operator.OperatorKeyParams;
  OperatorCreateTenantBody: Operator.OperatorCreateTenantBody;
  OperatorSetPlanBody: Operator.OperatorSetPlanBody;
  OperatorCreateAppBody: Operator.OperatorCreateAppBody;
  OperatorCreateEnvironmentBody: Operator.OperatorCreateEnvironmentBody;
  OperatorCreateKeyBody: Operator.OperatorCreateKeyBody;
  OperatorCreateTokenBody: Operator.OperatorCreateTokenBody;
  AgentSyncRequest: AgentSyncRequest;
  CreateRunBody: Evals.CreateRunBody;
  EvalRunParams: Evals.EvalRunParams;
  RunListQuery: Evals.RunListQuery;
  TrialListQuery: Evals.TrialListQuery;
  StatusBody: Evals.StatusBody;
  EvalTrialsRequest: EvalTrialsRequest;
  ExperimentParams: Evals.ExperimentParams;
  ExperimentListQuery: Evals.ExperimentListQuery;
  BaselineQuery: Evals.BaselineQuery;
  PinBaselineBody: Evals.PinBaselineBody;
  GitAppParams: Git.GitAppParams;
  GitConnectBody: Git.GitConnectBody;
  GitBranchesQuery: Git.GitBranchesQuery;
  GitSetupQuery: Git.GitSetupQuery;
  GitHubCallbackQuery: Git.GitHubCallbackQuery;
  TemplateQuery: Prompts.TemplateQuery;
  PromptListQuery: Prompts.PromptListQuery;
  LangfuseIngestionBody: Langfuse.LangfuseIngestionBody;
  LangfuseScoreBody: Langfuse.LangfuseScoreBody;
  LangfusePromptQuery: Langfuse.LangfusePromptQuery;
  CreatePromptBody: Prompts.CreatePromptBody;
  PromptParams: Prompts.PromptParams;
  PromptFetchQuery: Prompts.PromptFetchQuery;
  PromptVersionParams: Prompts.PromptVersionParams;
  SetLabelsBody: Prompts.SetLabelsBody;
  PromptLabelParams: Prompts.PromptLabelParams;
  RenderBody: Prompts.RenderBody;
  LaunchBody: Workers.LaunchBody;
  TurnBody: Workers.TurnBody;
  WorkerEnvironmentParams: Workers.WorkerEnvironmentParams;
  WorkerRunParams: Workers.WorkerRunParams;
  WorkerRunListQuery: Workers.WorkerRunListQuery;
  WorkerEventsQuery: Workers.WorkerEventsQuery;
  WorkerStreamQuery: Workers.WorkerStreamQuery;
  ClaimBody: Workers.ClaimBody;
  LeaseParams: Workers.LeaseParams;
  WorkerEventsBody: Workers.WorkerEventsBody;
  CompleteBody: Workers.CompleteBody;
  PromptMetricsQuery: Prompts.PromptMetricsQuery;
  MetricsQuery: Metrics.MetricsQuery;
  AssetQuery: Ui.AssetQuery;
  // Answers.
  ErrorBody: R.ErrorBody;
  Liveness: R.Liveness;
  HealthReport: R.HealthReport;
  CapabilitiesAnswer: R.CapabilitiesAnswer;
  PricingAnswer: R.PricingAnswer;
  WhoAmIAnswer: R.WhoAmIAnswer;
  CredentialAppAnswer: R.CredentialAppAnswer;
  OtlpExportAnswer: R.OtlpExportAnswer;
  TraceDetailAnswer: R.TraceDetailAnswer;
  TraceGraphAnswer: R.TraceGraphAnswer;
  TracePage: R.TracePage;
  TraceSearchPage: R.TraceSearchPage;
  SpanPage: R.SpanPage;
  TraceSpansAnswer: R.TraceSpansAnswer;
  SpanDetailAnswer: R.SpanDetailAnswer;
  SessionPage: R.SessionPage;
  FilterSchemaAnswer: R.FilterSchemaAnswer;
  ScoreAnswer: R.ScoreAnswer;
  ScorePage: R.ScorePage;
  ScoreNamesAnswer: R.ScoreNamesAnswer;
  ScoreAggregationsAnswer: R.ScoreAggregationsAnswer;
  ScoreBatchAnswer: R.ScoreBatchAnswer;
  ScoreBatchFailure: R.ScoreBatchFailure;
  ScoreConfigAnswer: R.ScoreConfigAnswer;
  ScoreConfigPage: R.ScoreConfigPage;
  CommentAnswer: R.CommentAnswer;
  CommentPage: R.CommentPage;
  CreatedKeyAnswer: R.CreatedKeyAnswer;
  KeyAnswer: R.KeyAnswer;
  KeyListAnswer: R.KeyListAnswer;
  AppAnswer: R.AppAnswer;
  AppListAnswer: R.AppListAnswer;
  AppDeletionAnswer: R.AppDeletionAnswer;
  EnvironmentAnswer: R.EnvironmentAnswer;
  EnvironmentListAnswer: R.EnvironmentListAnswer;
  EnvironmentDeletionAnswer: R.EnvironmentDeletionAnswer;
  OperatorServerAnswer: R.OperatorServerAnswer;
  CreatedTenantAnswer: R.CreatedTenantAnswer;
  TenantAnswer: R.TenantAnswer;
  TenantListAnswer: R.TenantListAnswer;
  CreatedOperatorKeyAnswer: R.CreatedOperatorKeyAnswer;
  OperatorKeyAnswer: R.OperatorKeyAnswer;
  OperatorKeyListAnswer: R.OperatorKeyListAnswer;
  SessionTokenAnswer: R.SessionTokenAnswer;
  AgentSyncAnswer: R.AgentSyncAnswer;
  CreatedRunAnswer: R.CreatedRunAnswer;
  EvalRunAnswer: R.EvalRunAnswer;
  EvalRunPage: R.EvalRunPage;
  EvalTrialPage: R.EvalTrialPage;
  EvalTrialsAnswer: R.EvalTrialsAnswer;
  ExperimentPage: R.ExperimentPage;
  ExperimentAnswer: R.ExperimentAnswer;
  BaselineAnswer: R.BaselineAnswer;
  BaselinePinAnswer: R.BaselinePinAnswer;
  GitStatusAnswer: R.GitStatusAnswer;
  GitHandshakeAnswer: R.GitHandshakeAnswer;
  GitRepositoryListAnswer: R.GitRepositoryListAnswer;
  GitBranchListAnswer: R.GitBranchListAnswer;
  GitDisconnectionAnswer: R.GitDisconnectionAnswer;
  TemplateAnswer: R.TemplateAnswer;
  PromptPage: R.PromptPage;
  PromptVersionAnswer: R.PromptVersionAnswer;
  PromptSyncAnswer: R.PromptSyncAnswer;
  LabelRemovalAnswer: R.LabelRemovalAnswer;
  RenderedPromptAnswer: R.RenderedPromptAnswer;
  PromptMetricsAnswer: R.PromptMetricsAnswer;
  MetricsAnswer: R.MetricsAnswer;
  LaunchedRunAnswer: R.LaunchedRunAnswer;
  TurnDispatchedAnswer: R.TurnDispatchedAnswer;
  WorkerRunAnswer: R.WorkerRunAnswer;
  WorkerRunPage: R.WorkerRunPage;
  WorkerEventList: R.WorkerEventList;
  WorkerClaimAnswer: R.WorkerClaimAnswer;
  WorkerHeartbeatAnswer: R.WorkerHeartbeatAnswer;
  WorkerEventsAnswer: R.WorkerEventsAnswer;
  WorkerLeaseEndAnswer: R.WorkerLeaseEndAnswer;
}

export type CatalogName = keyof Catalog;

/** Values of catalog types, grouped by name. */
export type CatalogValues = { [K in CatalogName]?: Catalog[K][] };

/** JSON schemas (OpenAPI 3.1) of the catalog: `Catalog` itself, and every type it names as a component. */
export const CATALOG_SCHEMAS = typia.json.schemas<[Catalog], '3.1'>();

/** Checks values against their catalog types exactly (no property the type lacks). */
export const validateCatalogValues = typia.createValidateEquals<CatalogValues>();
