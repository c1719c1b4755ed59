/**
 * Migrations of the eval tables (versions 400–499): experiments, their runs and the runs' trials.
 * A trial's figures live in the scores table (source `eval`); a trial row says which task and
 * attempt it was and names its three score rows and its artifact blob. No foreign keys (../migration.ts).
 */
import type { Migration } from '../migration.js';

export const EVAL_MIGRATIONS: readonly Migration[] = [
  {
    version: 400,
    name: 'experiments, eval runs, eval trials',
    sql: [
      `CREATE TABLE experiments (
         id UUID PRIMARY KEY,
         tenant_id UUID NOT NULL,
         app_id UUID NOT NULL,
         name VARCHAR NOT NULL,
         created_at TIMESTAMP NOT NULL,
         created_by VARCHAR,
         UNIQUE (tenant_id, app_id, name)
       )`,
      // The pin lives apart from the experiment row, which never changes after its insert.
      `CREATE TABLE experiment_baselines (
         experiment_id UUID PRIMARY KEY,
         tenant_id UUID NOT NULL,
         app_id UUID NOT NULL,
         run_id UUID NOT NULL,
         pinned_at TIMESTAMP NOT NULL,
         pinned_by VARCHAR
       )`,
      `CREATE TABLE eval_runs (
         id UUID PRIMARY KEY,
         tenant_id UUID NOT NULL,
         app_id UUID NOT NULL,
         environment_id UUID NOT NULL,
         experiment_id UUID NOT NULL,
         suite VARCHAR NOT NULL,
         suite_version VARCHAR,
         config VARCHAR NOT NULL,
         git_commit VARCHAR,
         git_branch VARCHAR,
         status VARCHAR NOT NULL CHECK (status IN ('queued', 'running', 'succeeded', 'failed')),
         key_id UUID,
         card VARCHAR,
         cost_usd DECIMAL(38, 12),
         error VARCHAR,
         created_at TIMESTAMP NOT NULL,
         created_by VARCHAR,
         claimed_at TIMESTAMP,
         finished_at TIMESTAMP
       )`,
      `CREATE TABLE eval_trials (
         id UUID PRIMARY KEY,
         tenant_id UUID NOT NULL,
         app_id UUID NOT NULL,
         environment_id UUID NOT NULL,
         run_id UUID NOT NULL,
         task_id VARCHAR NOT NULL,
         attempt INTEGER NOT NULL,
         trace_id VARCHAR,
         session_id VARCHAR,
         artifact_sha256 VARCHAR NOT NULL,
         metadata VARCHAR,
         content_hash VARCHAR NOT NULL,
         resolved_score_id UUID NOT NULL,
         cost_score_id UUID NOT NULL,
         duration_score_id UUID NOT NULL,
         created_at TIMESTAMP NOT NULL
       )`,
    ],
  },
];
