/**
 * The examples of the notes on eval runs, trials and experiments (routes/evals.ts,
 * routes/experiments.ts), kept apart for size. The comparison example is computed by the core's own
 * statistics (core/evals/comparison.ts) from its counts, so its intervals and p-value are the ones
 * the server would answer for those tasks.
 */
import type { Catalog } from '../contract/catalog.js';
import { buildComparison } from '../core/evals/comparison.js';
import { CREATED, ENV_ID } from './examples.js';

/** The words on `eval_run`, the permission of what a worker reports. */
export const WORKER =
  'Takes the run-scoped key `POST /v1/evals/runs` answered (for its own run only: another run is 403) or admin credentials (`x-tracelake-permission: eval_run`).';

export const RUN_ID = '8c1e2d3f-4a5b-4c6d-9e7f-0a1b2c3d4e5f';
export const BASELINE_ID = '7b0d1c2e-3f4a-4b5c-8d6e-9f0a1b2c3d4e';
export const EXPERIMENT_ID = '2f3e4d5c-6b7a-4980-a1b2-c3d4e5f60718';
export const RUN_KEY_ID = '4e5f6a7b-8c9d-4e0f-9a1b-2c3d4e5f6a7b';
export const TRIAL_ID = '1a2b3c4d-5e6f-8a7b-9c8d-7e6f5a4b3c2d';
export const COMMIT = '9fceb02d0ae598e95dc970b74767f19372d61af8';
const FINISHED = '2026-11-20T09:41:37.020Z';

export const RUN_EXAMPLE: Catalog['EvalRunAnswer']['data'] = {
  id: RUN_ID,
  experiment_id: EXPERIMENT_ID,
  experiment: 'checkout-agent',
  environment_id: ENV_ID,
  suite: 'support-tickets',
  suite_version: '2026-11',
  config: { model: 'gpt-4o', temperature: 0, max_turns: 30 },
  git_commit: COMMIT,
  git_branch: 'main',
  status: 'queued',
  key_id: RUN_KEY_ID,
  cost_usd: null,
  card: null,
  error: null,
  created_at: CREATED,
  claimed_at: null,
  finished_at: null,
};

export const FINISHED_RUN: Catalog['EvalRunAnswer']['data'] = {
  ...RUN_EXAMPLE,
  status: 'succeeded',
  cost_usd: 2.06,
  card: { resolved: 36, tasks: 50, notes: 'Two regressions in refunds.' },
  claimed_at: '2026-11-20T09:15:03.500Z',
  finished_at: FINISHED,
};

const FIGURES = {
  task_count: 50,
  trial_count: 52,
  resolved_rate: 0.72,
  mean_cost_usd: 0.0412,
  total_cost_usd: 2.06,
  mean_duration_ms: 48210,
  p95_duration_ms: 121400,
};

export const EXPERIMENT_RUN: Catalog['ExperimentAnswer']['data']['runs'][number] = {
  id: RUN_ID,
  status: 'succeeded',
  suite: 'support-tickets',
  suite_version: '2026-11',
  git_commit: COMMIT,
  git_branch: 'main',
  cost_usd: 2.06,
  created_at: CREATED,
  finished_at: FINISHED,
  ...FIGURES,
};

export const BASELINE_RUN: Catalog['ExperimentAnswer']['data']['runs'][number] = {
  ...EXPERIMENT_RUN,
  id: BASELINE_ID,
  git_commit: '3b18e512dba79e4c8300dd08aeb37f8e728b8dad',
  cost_usd: 2.31,
  created_at: '2026-11-19T09:15:02.114Z',
  finished_at: '2026-11-19T09:44:10.871Z',
  trial_count: 50,
  resolved_rate: 0.64,
  mean_cost_usd: 0.0462,
  total_cost_usd: 2.31,
  mean_duration_ms: 51830,
  p95_duration_ms: 130250,
};

export const EXPERIMENT: Omit<Catalog['ExperimentAnswer']['data'], 'runs'> = {
  id: EXPERIMENT_ID,
  name: 'checkout-agent',
  created_at: '2026-11-19T09:15:02.114Z',
  baseline_run_id: null,
  run_count: 2,
};

/** 50 paired tasks: 6 fixed, 2 regressed; cost and duration down a little. */
export const COMPARISON = buildComparison({
  counts: { both_resolved: 30, fixed: 6, regressed: 2, both_failed: 12, only_baseline: 0, only_candidate: 0 },
  cost: { baselineMean: 0.0462, candidateMean: 0.0412, diffMean: -0.005, diffSd: 0.012 },
  duration: { baselineMean: 51830, candidateMean: 48210, diffMean: -3620, diffSd: 9100 },
});
