/**
 * What the UI reads from the API's answers: the fields it shows, as it expects them. Declared here
 * (the UI's own type check sees no server module), and held to the server's answer types by
 * test/web/apiTypes.test.ts: at compile time each answer type must be assignable to the type the
 * UI declares, and answers of a real server are checked against these types at run time.
 */

export interface Page<T> {
  data: T[];
  pagination: { total: number; limit: number; offset: number };
}

export interface TraceSummary {
  id: string;
  name: string;
  status: string;
  start: string;
  end: string;
  latency_ms: number;
  cost: number;
  tokens: number;
  span_count: number;
  input_preview: string | null;
  output_preview: string | null;
  tags: string[];
  session_id: string | null;
  user_id: string | null;
  environment: string | null;
}

export interface Span {
  id: string;
  trace_id: string;
  parent_id: string | null;
  name: string;
  type: string;
  span_kind: string;
  status: string;
  status_message: string | null;
  timestamp: string;
  end_time: string;
  duration_ms: number;
  model: string | null;
  prompt_name: string | null;
  service_name: string | null;
  input_tokens: number | null;
  output_tokens: number | null;
  tokens: number | null;
  cost: number | null;
  session_id: string | null;
  user_id: string | null;
  tags: string[];
  input_preview: string | null;
  output_preview: string | null;
  metadata: Record<string, unknown>;
}

export interface SpanDetail extends Span {
  input: string | null;
  output: string | null;
  attributes: Record<string, unknown>;
  resource: Record<string, unknown>;
}

export interface Graph {
  nodes: { id: string; span_id: string; name: string; type: string }[];
  edges: { source: string; target: string }[];
}

export interface Score {
  id: string;
  name: string;
  score: number;
  label: string | null;
  reason: string | null;
  source: string;
  user_id: string | null;
  resource_id: string;
  resource_type: string;
  trace_id: string | null;
  session_id: string | null;
  created_at: string;
}

export interface Comment {
  id: string;
  content: string;
  author_user_id: string | null;
  created_at: string;
}

export interface Session {
  id: string;
  trace_count: number;
  span_count: number;
  start: string;
  end: string;
  cost: number;
  tokens: number;
  user_id: string | null;
}

/** `GET /v1/prompts` lists these. */
export interface PromptSummary {
  name: string;
  type: 'text' | 'chat';
  versions: number[];
  latest_version: number;
  /** Label → version, `latest` included. */
  labels: Record<string, number>;
  variables: string[];
  config: Record<string, unknown>;
  source: 'api' | 'git';
  updated_at: string;
}

export interface ChatMessage {
  role: string;
  content: string;
}

/** One version, as `GET /v1/prompts/{name}?version=` answers it. */
export interface PromptVersion {
  name: string;
  version: number;
  type: 'text' | 'chat';
  prompt: string | ChatMessage[];
  config: Record<string, unknown>;
  variables: string[];
  labels: string[];
  commit_message: string | null;
  source: 'api' | 'git';
  source_path: string | null;
  commit_sha: string | null;
  created_at: string;
  created_by: string | null;
}

export interface ScoreAverage {
  name: string;
  count: number;
  avg_score: number;
}

/** Per version (null: spans naming no version), from `GET /v1/prompts/{name}/metrics`. */
export interface PromptVersionMetrics {
  version: number | null;
  spans: number;
  traces: number;
  input_tokens: number;
  output_tokens: number;
  tokens: number;
  cost: number;
  latency_ms: { avg: number; p50: number; p95: number };
  first_seen: string;
  last_seen: string;
  scores: ScoreAverage[];
  trace_scores: ScoreAverage[];
}

/** A run's headline figures (over its tasks: a task's last attempt decides, its attempts add up). */
export interface RunFigures {
  task_count: number;
  trial_count: number;
  resolved_rate: number | null;
  mean_cost_usd: number | null;
  total_cost_usd: number | null;
  mean_duration_ms: number | null;
  p95_duration_ms: number | null;
}

export interface ExperimentRun extends RunFigures {
  id: string;
  status: 'queued' | 'running' | 'succeeded' | 'failed';
  suite: string;
  suite_version: string | null;
  git_commit: string | null;
  git_branch: string | null;
  cost_usd: number | null;
  created_at: string;
  finished_at: string | null;
}

export interface Experiment {
  id: string;
  name: string;
  created_at: string;
  baseline_run_id: string | null;
  run_count: number;
}

export type ExperimentSummary = Experiment & { latest_run: ExperimentRun | null };

export type Interval = [number, number];

export interface MeanChange {
  baseline_mean: number | null;
  candidate_mean: number | null;
  change: number | null;
  ci95: Interval | null;
}

export const OUTCOMES = ['fixed', 'regressed', 'both_resolved', 'both_failed', 'only_baseline', 'only_candidate'] as const;
export type Outcome = (typeof OUTCOMES)[number];

export interface TaskPair {
  task_id: string;
  outcome: Outcome;
  baseline_resolved: boolean | null;
  candidate_resolved: boolean | null;
  baseline_cost_usd: number | null;
  candidate_cost_usd: number | null;
  baseline_duration_ms: number | null;
  candidate_duration_ms: number | null;
}

/** `GET /v1/experiments/baseline`: a run against the experiment's baseline. */
export interface BaselineComparison {
  experiment_id: string;
  experiment: string;
  baseline: (ExperimentRun & { pinned: boolean }) | null;
  candidate: ExperimentRun | null;
  comparison: {
    tasks: Record<Outcome, number> & { paired: number };
    resolved_rate: { baseline: number | null; candidate: number | null; change: number | null; ci95: Interval | null; p_value: number; method: string };
    cost_usd: MeanChange;
    duration_ms: MeanChange;
    per_task: TaskPair[];
  } | null;
}

export interface SchemaField {
  name: string;
  type: string;
  operators: string[];
  values?: string[];
  description: string;
}

export interface FilterSchema {
  resources: Record<'traces' | 'spans' | 'scores', { fields: SchemaField[] }>;
  operators: Record<string, { string: string | null; json: string }>;
}

export interface Capabilities {
  mode: 'cloud' | 'local';
  version: string;
  features: Record<string, boolean>;
}

export type MetricsRow = Record<string, string | number | null> & { bucket: string };

export interface MetricsAnswer {
  data: MetricsRow[];
  meta: { view: string; bucket: string; from: string; to: string; buckets: number; measures: string[]; group_by: string[] };
}

/** A turn as `GET /v1/workers/runs/{id}` answers it (store/workers/views.ts). */
export interface WorkerTurn {
  run_id: string;
  turn_index: number;
  prompt: string;
  status: 'queued' | 'running' | 'succeeded' | 'failed' | 'cancelled';
  attempt: number;
  lost_leases: number;
  worker: string | null;
  cancel_requested: boolean;
  reason: string | null;
  exit_code: number | null;
  error: string | null;
  commit_sha: string | null;
  cost_usd: number | null;
  input_tokens: number | null;
  output_tokens: number | null;
  tool_calls: number | null;
  created_at: string;
  started_at: string | null;
  finished_at: string | null;
}

export interface WorkerRun {
  id: string;
  kind: 'oneshot' | 'session';
  status: string;
  environment_id: string;
  title: string | null;
  profile: string;
  repository: string;
  base_branch: string;
  base_commit: string | null;
  work_branch: string;
  head_commit: string | null;
  trace_id: string;
  open: boolean;
  turn_count: number;
  cost_usd: number;
  latest_turn: WorkerTurn;
  created_at: string;
  closed_at: string | null;
  turns?: WorkerTurn[];
}

/** `GET /v1/scores/aggregations`: a score name's figures. */
export interface Aggregation {
  name: string;
  count: number;
  avg_score: number;
  min_score: number;
  max_score: number;
}
