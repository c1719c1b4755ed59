/**
 * Wire types of the answers, named so that the API reference (src/openapi) can show them. They are
 * built from the views the store and the core already return, not copied: a field added to a view
 * is a field of the answer and of the reference. Handlers whose answers are assembled in the HTTP
 * layer check them against these types (`satisfies`); test/http/openapi.alone.test.ts holds real answers
 * of a running server to them.
 */
import type { tags } from 'typia';
import type { Mode } from '../core/mode.js';
import type { Count } from './ids.js';
import type { LIMITS } from '../core/filter/ast.js';
import type { ErrorCode } from '../core/errors.js';
import type { PriceTable } from '../core/cost/pricing.js';
import type { Deletion } from '../core/admin/rules.js';
import type { FilterSchema } from '../core/filter/schema.js';
import type { TraceGraph } from '../core/graph.js';
import type { Permission, Role } from '../core/permissions.js';
import type { BatchItemResult } from '../core/scores/batch.js';
import type { ScoreAggregation } from '../core/scores/selection.js';
import type { DependencyCheck } from '../store/health.js';
import type { AppDeletion } from '../store/admin/apps.js';
import type { EnvironmentView } from '../store/admin/environments.js';
import type { OperatorKeyView } from '../store/admin/keys.js';
import type { AppView, KeyView } from '../store/admin/meta.js';
import type { CreatedOperatorKey, IssuedSessionToken } from '../store/admin/operator.js';
import type { NewTenant, TenantView } from '../store/admin/tenants.js';
import type { CommentView } from '../store/scores/comments.js';
import type { ScoreConfigView } from '../store/scores/configs.js';
import type { ScoreView } from '../store/scores/scores.js';
import type { SessionView, SpanDetail, SpanView, TraceSummary } from '../store/spans/reads.js';
import type { TraceListItem } from '../store/spans/search.js';
import type { AgentSyncResult } from './agents.js';
import type { Comparison, TaskPair } from '../core/evals/comparison.js';
import type { GitProviderName, GitStatus } from '../core/git/connection.js';
import type { Bucket, Dimension, Measure, View } from '../core/metrics/plan.js';
import type { PromptType } from '../core/prompts/document.js';
import type { JsonValue } from '../core/span.js';
import type { RepositoryInfo } from '../core/git/connection.js';
import type { ExperimentRun, ExperimentSummary, ExperimentView } from '../store/evals/experiments.js';
import type { RunView } from '../store/evals/runs.js';
import type { TrialResult, TrialView } from '../store/evals/trials.js';
import type { MetricsRow } from '../store/metrics/metrics.js';
import type { PromptVersionMetrics } from '../store/prompts/metrics.js';
import type { PromptSummary, PromptVersionView } from '../store/prompts/prompts.js';
import type { SyncReport } from '../store/prompts/sync.js';
import type { EvalClaim } from '../store/workers/evalLeases.js';
import type { Heartbeat, TurnClaim } from '../store/workers/leases.js';
import type { WorkerEventView, WorkerRunDetail, WorkerRunView, WorkerTurnView } from '../store/workers/views.js';

/** The spec's error body; `details` maps each failing field to its message (validation errors). */
export interface ErrorBody {
  error: ErrorDetail;
}

export interface ErrorDetail {
  code: ErrorCode;
  message: string;
  details?: Record<string, string>;
  /** Extra context as flat fields, e.g. `retry_after_seconds`, `required_permission`, `limit`. */
  [extra: string]: unknown;
}

export interface Pagination {
  /** Every match, not only this page. */
  total: Count;
  limit: Count;
  offset: Count;
}

/** `GET /health`: what supervisors poll. */
export interface Liveness {
  status: 'healthy' | 'unhealthy';
  version: string;
  mode: Mode;
  uptime_s: Count;
  /** The failing checks, when unhealthy. */
  dependencies?: DependencyCheck[];
}

/** `GET /v1/health/*` (spec: Health report); 503 with the same body when a dependency is unhealthy. */
export interface HealthReport {
  component: string;
  status: 'healthy' | 'unhealthy';
  timestamp: string & tags.Format<'date-time'>;
  dependencies: DependencyCheck[];
}

interface Range {
  min: Count;
  max: Count;
}

interface RangeWithDefault extends Range {
  default: Count;
}

interface WindowDays {
  default: Count;
  max: Count;
}

/** The spec's Limits, plus this server's configured body caps. */
export interface CapabilityLimits {
  filters: typeof LIMITS;
  search_limit: RangeWithDefault;
  span_list_limit: Range;
  search_window_days: WindowDays;
  score_batch_size: Range;
  client_id_max: Count;
  max_body_bytes: Count;
  max_otlp_body_bytes: Count;
  max_otlp_decompressed_bytes: Count;
}

export interface Capabilities {
  mode: Mode;
  version: string;
  api_version: string;
  /** Feature name → whether this server answers it (an unbuilt or surface-refused feature is false). */
  features: Record<string, boolean>;
  limits: CapabilityLimits;
}

/** `GET /v1/dev/whoami`: who local requests act as. */
export interface WhoAmI {
  kind: 'key' | 'session' | 'local' | 'anonymous' | 'operator';
  tenant_id: string;
  app_id: string;
  environment_id: string | null;
  role: Role;
  permissions: readonly Permission[];
}

/** `GET /v1/auth/app`: the app a credential sent alone belongs to. */
export interface CredentialApp {
  /** What to send in X-Service-App-Id with this credential. */
  app_id: string & tags.Format<'uuid'>;
}

/** OTLP/JSON ExportTraceServiceResponse; empty when every span was accepted. */
export interface OtlpExportAnswer {
  partialSuccess?: {
    /** A decimal string (OTLP/JSON writes int64 as a string). */
    rejectedSpans: string;
    errorMessage: string;
  };
}

/** A trace opened with its spans; `graph` with `?fields=graph`. */
export interface TraceDetail extends TraceSummary {
  /** The root span's metadata. */
  metadata: Record<string, unknown>;
  spans: SpanView[];
  graph?: TraceGraph;
}

/** A span as lists and searches return it (the opened span, SpanDetail, has input and output in full). */
export type SpanListItem = Omit<SpanView, 'cached_input_tokens'>;

export interface TraceDetailAnswer {
  data: TraceDetail;
}
export interface TraceGraphAnswer {
  data: TraceGraph;
}
/** The traces of a session or a run. */
export interface TracePage {
  data: TraceSummary[];
  pagination: Pagination;
}
/** `GET /v1/traces`, `POST /v1/traces/search`. */
export interface TraceSearchPage {
  data: TraceListItem[];
  pagination: Pagination;
}
export interface SpanPage {
  data: SpanListItem[];
  pagination: Pagination;
}
export interface TraceSpansAnswer {
  data: SpanView[];
}
export interface SpanDetailAnswer {
  data: SpanDetail;
}
export interface SessionPage {
  data: SessionView[];
  pagination: Pagination;
}
export interface FilterSchemaAnswer {
  data: FilterSchema;
}
export interface CapabilitiesAnswer {
  data: Capabilities;
}
export interface PricingAnswer {
  data: PriceTable;
}
export interface WhoAmIAnswer {
  data: WhoAmI;
}
export interface CredentialAppAnswer {
  data: CredentialApp;
}

export interface ScoreAnswer {
  data: ScoreView;
}
export interface ScorePage {
  data: ScoreView[];
  pagination: Pagination;
}
export interface ScoreNamesAnswer {
  data: string[];
}
export interface ScoreAggregationsAnswer {
  data: ScoreAggregation[];
}
export interface ScoreBatchResult {
  results: BatchItemResult[];
  summary: BatchSummary;
}
export interface BatchSummary {
  total: Count;
  succeeded: Count;
  failed: Count;
}
/** 201 when every item was stored, 207 when some were refused (each result says why). */
export interface ScoreBatchAnswer {
  data: ScoreBatchResult;
}
/** 400 (every item refused) and 500 (the insert failed): the error shape, with the batch's results as flat fields. */
export interface ScoreBatchFailure {
  error: BatchFailureDetail;
}
export interface BatchFailureDetail extends ErrorDetail, ScoreBatchResult {}
export interface ScoreConfigAnswer {
  data: ScoreConfigView;
}
export interface ScoreConfigPage {
  data: ScoreConfigView[];
  pagination: Pagination;
}
export interface CommentAnswer {
  data: CommentView;
}
export interface CommentPage {
  data: CommentView[];
  pagination: Pagination;
}

/** A new key: its metadata and, this once, the key itself. */
export interface CreatedKey extends KeyView {
  plaintext_key: string;
}
export interface CreatedKeyAnswer {
  data: CreatedKey;
}
export interface KeyAnswer {
  data: KeyView;
}
export interface KeyListAnswer {
  data: KeyView[];
}
export interface AppAnswer {
  data: AppView;
}
export interface AppListAnswer {
  data: AppView[];
}
export interface AppDeletionAnswer {
  data: AppDeletion;
}
export interface EnvironmentAnswer {
  data: EnvironmentView;
}
export interface EnvironmentListAnswer {
  data: EnvironmentView[];
}
export interface EnvironmentDeletionAnswer {
  data: Deletion;
}

// The operator API (/v1/operator/*): what the CLI prints for each command, as `data`. Apps and
// environments are the tenant API's views (AppAnswer, EnvironmentAnswer and their lists).

/** `GET /v1/operator/server`: which server this is and which store it serves. */
export interface OperatorServer {
  /** Absolute, links resolved: the CLI compares it with its own data dir. */
  data_dir: string;
  version: string;
  pid: Count;
  started_at: string & tags.Format<'date-time'>;
}
export interface OperatorServerAnswer {
  data: OperatorServer;
}
/** A new tenant with the ids of its `default` app and that app's `production` environment. */
export interface CreatedTenantAnswer {
  data: NewTenant;
}
export interface TenantAnswer {
  data: TenantView;
}
export interface TenantListAnswer {
  data: TenantView[];
}
export interface CreatedOperatorKeyAnswer {
  data: CreatedOperatorKey;
}
export interface OperatorKeyAnswer {
  data: OperatorKeyView;
}
export interface OperatorKeyListAnswer {
  data: OperatorKeyView[];
}
export interface SessionTokenAnswer {
  data: IssuedSessionToken;
}

// Coding-agent sessions.

export interface AgentSyncAnswer {
  data: AgentSyncResult;
}

// Eval runs, trials and experiments.

/** The run-scoped key made with a run; `plaintext_key` is in the creation answer only. */
export interface RunKey {
  id: string;
  key_prefix: string;
  plaintext_key: string;
  created_at: string & tags.Format<'date-time'>;
}
export interface CreatedRun extends RunView {
  api_key: RunKey;
}
export interface CreatedRunAnswer {
  data: CreatedRun;
}
export interface EvalRunAnswer {
  data: RunView;
}
export interface EvalRunPage {
  data: RunView[];
  pagination: Pagination;
}
export interface EvalTrialPage {
  data: TrialView[];
  pagination: Pagination;
}
/** The spec's eval trial result. */
export interface EvalTrialsAnswer {
  data: TrialResult;
}
export interface ExperimentPage {
  data: ExperimentSummary[];
  pagination: Pagination;
}
/** An experiment with its runs in the reader's scope, oldest first, each with its figures. */
export interface ExperimentDetail extends ExperimentView {
  runs: ExperimentRun[];
}
export interface ExperimentAnswer {
  data: ExperimentDetail;
}
export interface BaselineRun extends ExperimentRun {
  /** Pinned with `PUT /v1/experiments/{id}/baseline`, rather than the latest succeeded run before the candidate. */
  pinned: boolean;
}
export interface RunComparison extends Comparison {
  /** Every task of either run, by task id. */
  per_task: TaskPair[];
}
/** A candidate run against the experiment's baseline; null members when there is nothing to compare. */
export interface BaselineComparison {
  experiment_id: string;
  experiment: string;
  baseline: BaselineRun | null;
  candidate: ExperimentRun | null;
  comparison: RunComparison | null;
}
export interface BaselineAnswer {
  data: BaselineComparison;
}
export interface BaselinePin {
  experiment_id: string;
  /** Null: the pin was removed. */
  baseline_run_id: string | null;
}
export interface BaselinePinAnswer {
  data: BaselinePin;
}

// Git connections, templates and prompts.

export interface GitStatusAnswer {
  data: GitStatus;
}
/** A started handshake: where a human finishes it (`url`, null when the connect call connected at once). */
export interface GitHandshake {
  provider: GitProviderName;
  url: string | null;
  /** The handshake's token (in `url` too): the capability to finish it, for one hour. */
  state: string | null;
  expires_at: (string & tags.Format<'date-time'>) | null;
  status: GitStatus;
}
export interface GitHandshakeAnswer {
  data: GitHandshake;
}
export interface GitRepositoryListAnswer {
  data: RepositoryInfo[];
}
/** Branch names, sorted. */
export interface GitBranchListAnswer {
  data: string[];
}
export interface GitDisconnection {
  disconnected: true;
}
export interface GitDisconnectionAnswer {
  data: GitDisconnection;
}
/** One template file at a commit, with what it declares; `error` says why it cannot be used as a template. */
export interface TemplateFile {
  path: string;
  repository: string;
  /** The ref asked for (or the connection's branch) … */
  ref: string;
  /** … and the commit it named. */
  commit_sha: string;
  /** The file's blob sha. */
  sha: string;
  content: string;
  /** The prompt a `.md` file under `prompts/` defines; null for other files. */
  prompt_name: string | null;
  /** Null when a prompt file's front matter does not parse. */
  type: PromptType | null;
  variables: string[];
  config: Record<string, JsonValue>;
  labels: string[];
  error: string | null;
}
export interface TemplateAnswer {
  data: TemplateFile;
}
export interface PromptPage {
  data: PromptSummary[];
  pagination: Pagination;
}
export interface PromptVersionAnswer {
  data: PromptVersionView;
}
export interface PromptSyncAnswer {
  data: SyncReport;
}
export interface LabelRemoval {
  name: string;
  label: string;
  removed: true;
}
export interface LabelRemovalAnswer {
  data: LabelRemoval;
}
/** A version with its template rendered: `prompt` is the text, or the messages, with the variables filled in. */
export type RenderedPrompt = Pick<PromptVersionView, 'name' | 'version' | 'type' | 'labels' | 'config' | 'prompt'>;
export interface RenderedPromptAnswer {
  data: RenderedPrompt;
}
export interface MetricsWindow {
  start_date: string & tags.Format<'date-time'>;
  end_date: string & tags.Format<'date-time'>;
}
export interface PromptMetricsAnswer {
  /** One entry per version the window's spans name (version null: spans naming no version). */
  data: PromptVersionMetrics[];
  window: MetricsWindow;
}

// Metrics.

/** What a metrics answer measured, and how much it left out. */
export interface MetricsMeta {
  view: View;
  bucket: Bucket;
  from: string & tags.Format<'date-time'>;
  to: string & tags.Format<'date-time'>;
  /** Buckets in the window: rows are sparse (an empty bucket has none), so a client fills the rest. */
  buckets: Count;
  measures: Measure[];
  group_by: Dimension[];
  group_limit: Count;
  /** Groups in the window before the limit. */
  groups: Count;
  groups_omitted: Count;
}
/** `GET /v1/metrics`: one row per bucket and group, `{bucket, <dimension>: value…, <measure>: value…}`. */
export interface MetricsAnswer {
  data: MetricsRow[];
  meta: MetricsMeta;
}

// Worker runs.

/** A launched run or session: the run with its first turn, and the link to its live thread. */
export interface LaunchedRun extends WorkerRunDetail {
  url: string;
}
export interface LaunchedRunAnswer {
  data: LaunchedRun;
}
/** The spec's answer to a follow-up turn. */
export interface TurnDispatched {
  run_id: string;
  turn_index: Count;
  url: string;
}
export interface TurnDispatchedAnswer {
  data: TurnDispatched;
}
export interface WorkerRunAnswer {
  data: WorkerRunDetail;
}
export interface WorkerRunPage {
  data: WorkerRunView[];
  pagination: Pagination;
}
export interface WorkerEventList {
  data: WorkerEventView[];
}
/**
 * A claim: the work to run under its lease — a turn (`kind: "turn"`), or for a worker that takes
 * eval runs an eval run (`kind: "eval"`) — or null when no work came within the wait.
 */
export interface WorkerClaimAnswer {
  data: TurnClaim | EvalClaim | null;
}
export interface WorkerHeartbeatAnswer {
  data: Heartbeat;
}
export interface WorkerEventsStored {
  /** Events stored by this request (a retried batch's stored ones are skipped). */
  stored: Count;
  /** The turn was asked to stop: end the agent and report the turn cancelled. */
  cancel: boolean;
}
export interface WorkerEventsAnswer {
  data: WorkerEventsStored;
}
/** How a lease ended: the turn after it (a turn's lease), or the eval run after it (an eval run's lease). */
export interface WorkerLeaseEndAnswer {
  data: WorkerTurnView | RunView;
}
