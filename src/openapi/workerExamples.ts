/**
 * The examples and shared words of the notes on worker runs (routes/workers.ts): launching one-shot runs and sessions, the spec's
 * follow-up turn, reads, the live stream, cancel and close; and the worker's own endpoints (claim,
 * heartbeat, events, complete, release), which `tracelake worker` calls, for turns and eval runs.
 */
import type { Catalog } from '../contract/catalog.js';
import { CREATED, ENV_ID } from './examples.js';

export const WORKER =
  'Takes a Worker key (role Worker: it claims turns and reports on them, and reads nothing) or admin credentials (`x-tracelake-permission: worker`). A Worker key pinned to a production environment serves every environment of its app; one pinned elsewhere, its own.';
export const LEASE_GONE = {
  status: 404,
  when: '`not_found` (`reason: lease_lost`): the lease expired, or its turn ended or was handed back. Stop the turn and drop its work.',
} as const;

export const RUN_ID = '5d7e9f1a-2b3c-4d5e-8f6a-7b8c9d0e1f2a';
export const BASE = '9fceb02d0ae598e95dc970b74767f19372d61af8';
export const CHECKPOINT = '1e2d3c4b5a69788796a5b4c3d2e1f0a9b8c7d6e5';
const TRACE = '7a3f9c2e4b1d8a6f0e5c3b9d2a7f4e1c';
export const LEASE = '3f9a1c7e5b2d4f6a8c0e2b4d6f8a0c1e';
export const EVAL_RUN_ID = '8b1c2d3e-4f5a-4b6c-9d7e-0f1a2b3c4d5e';
export const URL = `https://tracelake.example.com/#/workers/runs/${RUN_ID}`;

/** A turn as a run lists it (a lease's end answers one too). */
type Turn = Catalog['WorkerRunAnswer']['data']['turns'][number];
type Run = Catalog['WorkerRunAnswer']['data'];

export const QUEUED_TURN: Turn = {
  run_id: RUN_ID,
  turn_index: 0,
  prompt: 'Round the cart total once, not each line; add a test.',
  status: 'queued',
  attempt: 0,
  lost_leases: 0,
  worker: null,
  cancel_requested: false,
  reason: null,
  exit_code: null,
  error: null,
  commit_sha: null,
  cost_usd: null,
  input_tokens: null,
  output_tokens: null,
  tool_calls: null,
  created_at: CREATED,
  started_at: null,
  finished_at: null,
  lease_expires_at: null,
};

export const DONE_TURN: Turn = {
  ...QUEUED_TURN,
  status: 'succeeded',
  attempt: 1,
  worker: 'build-7-3a9c01d2',
  reason: 'exit',
  exit_code: 0,
  commit_sha: CHECKPOINT,
  cost_usd: 0.4187,
  input_tokens: 182340,
  output_tokens: 6120,
  tool_calls: 23,
  started_at: '2026-11-20T09:15:02.620Z',
  finished_at: '2026-11-20T09:19:48.301Z',
};

const QUEUED_SUMMARY: Catalog['WorkerRunPage']['data'][number] = {
  id: RUN_ID,
  kind: 'session',
  status: 'queued',
  environment_id: ENV_ID,
  title: 'Cart rounding',
  profile: 'claude-code',
  repository: 'acme/shop',
  base_branch: 'main',
  base_commit: BASE,
  work_branch: `tracelake/${RUN_ID}`,
  head_commit: null,
  trace_id: TRACE,
  open: true,
  turn_count: 1,
  cost_usd: 0,
  latest_turn: QUEUED_TURN,
  created_at: CREATED,
  created_by: 'key:0b1c2d3e-4f5a-4b6c-8d7e-9f0a1b2c3d4e',
  closed_at: null,
};
export const QUEUED_RUN: Run = { ...QUEUED_SUMMARY, turns: [QUEUED_TURN] };

export const IDLE_SUMMARY: Catalog['WorkerRunPage']['data'][number] = {
  ...QUEUED_SUMMARY,
  status: 'idle',
  head_commit: CHECKPOINT,
  cost_usd: 0.4187,
  latest_turn: DONE_TURN,
};
export const IDLE_RUN: Run = { ...IDLE_SUMMARY, turns: [DONE_TURN] };
export const CANCELLED_TURN: Turn = {
  ...QUEUED_TURN,
  status: 'cancelled',
  reason: 'cancelled',
  error: 'Cancelled before a worker claimed it',
  finished_at: '2026-11-20T09:15:04.000Z',
};

export const LAUNCH_DESCRIPTION =
  "The run works on the repository of the app's git connection (the `local` provider: workers check it out from the same git root), from `branch` (default the connection's), and pushes a checkpoint commit after each turn to its own branch `tracelake/<run id>`. It belongs to the environment named (any of the app's for a tenant admin, else its own), default the one the credentials write to. `profile` names the agent a worker runs (`claude-code` by default; workers know the profiles). `url` is the live thread page: it asks for credentials, never carries them.";
