/**
 * Migrations of the worker tables (versions 700–799): worker runs (one-shot runs and persistent
 * sessions), their turns with the lease a worker holds on the one it runs, and the events workers
 * report for them; and the leases workers hold on eval runs (version 701). No foreign keys (../migration.ts).
 */
import type { Migration } from '../migration.js';

export const WORKER_MIGRATIONS: readonly Migration[] = [
  {
    version: 700,
    name: 'worker runs, turns and events',
    sql: [
      `CREATE TABLE worker_runs (
         id UUID PRIMARY KEY,
         tenant_id UUID NOT NULL,
         app_id UUID NOT NULL,
         environment_id UUID NOT NULL,
         kind VARCHAR NOT NULL CHECK (kind IN ('oneshot', 'session')),
         title VARCHAR,
         profile VARCHAR NOT NULL,
         repository VARCHAR NOT NULL,
         base_branch VARCHAR NOT NULL,
         base_commit VARCHAR,
         work_branch VARCHAR NOT NULL,
         -- The workspace's commit after the last ended turn, and whether a checkpoint was pushed yet
         -- (until then the work branch does not exist, and a new workspace starts from base_branch).
         head_commit VARCHAR,
         checkpointed BOOLEAN NOT NULL DEFAULT false,
         trace_id VARCHAR NOT NULL,
         -- Sessions take turns while open; a one-shot run is never open.
         open BOOLEAN NOT NULL,
         -- The worker that ran the last turn: a session's next turn goes back to it while it lives.
         last_worker VARCHAR,
         created_at TIMESTAMP NOT NULL,
         created_by VARCHAR,
         closed_at TIMESTAMP
       )`,
      `CREATE TABLE worker_turns (
         run_id UUID NOT NULL,
         turn_index INTEGER NOT NULL,
         tenant_id UUID NOT NULL,
         app_id UUID NOT NULL,
         environment_id UUID NOT NULL,
         prompt VARCHAR NOT NULL,
         status VARCHAR NOT NULL CHECK (status IN ('queued', 'running', 'succeeded', 'failed', 'cancelled')),
         -- Claims so far (the number of the current one names its events), and leases that expired.
         attempt INTEGER NOT NULL DEFAULT 0,
         lost_leases INTEGER NOT NULL DEFAULT 0,
         lease_id VARCHAR,
         lease_expires_at TIMESTAMP,
         worker VARCHAR,
         cancel_requested BOOLEAN NOT NULL DEFAULT false,
         reason VARCHAR,
         exit_code INTEGER,
         error VARCHAR,
         commit_sha VARCHAR,
         cost_usd DECIMAL(38, 12),
         input_tokens BIGINT,
         output_tokens BIGINT,
         tool_calls INTEGER,
         created_at TIMESTAMP NOT NULL,
         created_by VARCHAR,
         started_at TIMESTAMP,
         finished_at TIMESTAMP,
         PRIMARY KEY (run_id, turn_index)
       )`,
      // The cursor orders a run's events for readers (the live page resumes after the last it saw).
      'CREATE SEQUENCE worker_event_cursor START 1',
      `CREATE TABLE worker_events (
         run_id UUID NOT NULL,
         turn_index INTEGER NOT NULL,
         attempt INTEGER NOT NULL,
         seq INTEGER NOT NULL,
         cursor BIGINT NOT NULL DEFAULT nextval('worker_event_cursor'),
         tenant_id UUID NOT NULL,
         app_id UUID NOT NULL,
         environment_id UUID NOT NULL,
         seen_at TIMESTAMP NOT NULL,
         kind VARCHAR NOT NULL CHECK (kind IN ('stdout', 'stderr', 'agent', 'step')),
         text VARCHAR,
         level VARCHAR,
         event VARCHAR,
         PRIMARY KEY (run_id, turn_index, attempt, seq)
       )`,
    ],
  },
  {
    version: 701,
    name: 'worker leases on eval runs',
    sql: [
      // An eval run claimed through the worker lease (docs/decisions.md, "Workers"): its state stays
      // in eval_runs; this row holds the lease while the run runs and names the run-scoped key
      // minted at the claim (auth reads it to know the key is the run's). The row outlives the
      // run (lease_id NULL once it ended), so the key stays known as the run's after its revocation.
      `CREATE TABLE worker_eval_leases (
         run_id UUID PRIMARY KEY,
         tenant_id UUID NOT NULL,
         app_id UUID NOT NULL,
         environment_id UUID NOT NULL,
         lease_id VARCHAR,
         lease_expires_at TIMESTAMP,
         worker VARCHAR NOT NULL,
         key_id UUID NOT NULL,
         claimed_at TIMESTAMP NOT NULL,
         ended_at TIMESTAMP
       )`,
    ],
  },
];
