/**
 * The notes on worker runs (routes/workers.ts): launching one-shot runs and sessions, the spec's
 * follow-up turn, reads, the live stream, cancel and close; and the worker's own endpoints (claim,
 * heartbeat, events, complete, release), which `tracelake worker` calls, for turns and eval runs.
 */
import type { Catalog } from '../contract/catalog.js';
import type { OperationNote } from './note.js';
import { CREATED, ENV_ID } from './examples.js';
import { answer, json } from './note.js';

export const WORKERS_TAG = 'Workers';

const WORKER =
  'Takes a Worker key (role Worker: it claims turns and reports on them, and reads nothing) or admin credentials (`x-tracelake-permission: worker`). A Worker key pinned to a production environment serves every environment of its app; one pinned elsewhere, its own.';
const LEASE_GONE = { status: 404, when: '`not_found` (`reason: lease_lost`): the lease expired, or its turn ended or was handed back. Stop the turn and drop its work.' } as const;

const RUN_ID = '5d7e9f1a-2b3c-4d5e-8f6a-7b8c9d0e1f2a';
const BASE = '9fceb02d0ae598e95dc970b74767f19372d61af8';
const CHECKPOINT = '1e2d3c4b5a69788796a5b4c3d2e1f0a9b8c7d6e5';
const TRACE = '7a3f9c2e4b1d8a6f0e5c3b9d2a7f4e1c';
const LEASE = '3f9a1c7e5b2d4f6a8c0e2b4d6f8a0c1e';
const EVAL_RUN_ID = '8b1c2d3e-4f5a-4b6c-9d7e-0f1a2b3c4d5e';
const URL = `https://tracelake.example.com/#/workers/runs/${RUN_ID}`;

type Turn = Catalog['WorkerLeaseEndAnswer']['data'];
type Run = Catalog['WorkerRunAnswer']['data'];

const QUEUED_TURN: Turn = {
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

const DONE_TURN: Turn = {
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
const QUEUED_RUN: Run = { ...QUEUED_SUMMARY, turns: [QUEUED_TURN] };

const IDLE_SUMMARY: Catalog['WorkerRunPage']['data'][number] = { ...QUEUED_SUMMARY, status: 'idle', head_commit: CHECKPOINT, cost_usd: 0.4187, latest_turn: DONE_TURN };
const IDLE_RUN: Run = { ...IDLE_SUMMARY, turns: [DONE_TURN] };
const CANCELLED_TURN: Turn = { ...QUEUED_TURN, status: 'cancelled', reason: 'cancelled', error: 'Cancelled before a worker claimed it', finished_at: '2026-11-20T09:15:04.000Z' };

const LAUNCH_DESCRIPTION =
  'The run works on the repository of the app\'s git connection (the `local` provider: workers check it out from the same git root), from `branch` (default the connection\'s), and pushes a checkpoint commit after each turn to its own branch `tracelake/<run id>`. It belongs to the environment named (any of the app\'s for a tenant admin, else its own), default the one the credentials write to. `profile` names the agent a worker runs (`claude-code` by default; workers know the profiles). `url` is the live thread page: it asks for credentials, never carries them.';

export const WORKER_OPERATIONS: Readonly<Record<string, OperationNote>> = {
  'POST /v1/workers/runs': {
    tag: WORKERS_TAG,
    summary: 'Launch a one-shot run',
    description: `One turn: a worker claims it, runs the agent with \`task_prompt\`, and the run ends with the turn. ${LAUNCH_DESCRIPTION}`,
    body: json('LaunchBody', { run: { task_prompt: 'Round the cart total once, not each line; add a test.', profile: 'claude-code', branch: 'main', title: 'Cart rounding' } }),
    answers: [answer(201, 'LaunchedRunAnswer', 'The run, its first turn queued, with the link to its live thread.', { launched: { data: { ...QUEUED_RUN, kind: 'oneshot', open: false, url: URL } } })],
    errors: [
      { status: 402, when: '`entitlement_required` (`entitlement: max_concurrent_worker_runs`, `current`, `limit`): the plan\'s cap on runs with a turn queued or running; 0 means the plan has no workers.' },
      { status: 404, when: '`not_found`: no such environment in reach, or no such branch.' },
      { status: 409, when: '`git_connection_missing`: the app has no finished git connection; `conflict`: it is not a `local` one.' },
    ],
  },
  'POST /v1/workers/sessions': {
    tag: WORKERS_TAG,
    summary: 'Launch a persistent session',
    description: `Like a one-shot run, but the session stays open after its first turn: send it follow-up turns with \`POST /v1/workers/environments/{envId}/turns\` (one at a time; the agent resumes its conversation in the same workspace and branch) until it is closed. An environment has at most one open session. ${LAUNCH_DESCRIPTION}`,
    body: json('LaunchBody', { session: { task_prompt: 'Round the cart total once, not each line; add a test.', title: 'Cart rounding' } }),
    answers: [answer(201, 'LaunchedRunAnswer', 'The session, its first turn queued, with the link to its live thread.', { launched: { data: { ...QUEUED_RUN, url: URL } } })],
    errors: [
      { status: 402, when: '`entitlement_required`: as for one-shot runs.' },
      { status: 404, when: '`not_found`: no such environment in reach, or no such branch.' },
      { status: 409, when: '`conflict`: the environment has an open session already; `git_connection_missing`: no finished git connection.' },
    ],
  },
  'POST /v1/workers/environments/:envId/turns': {
    tag: WORKERS_TAG,
    summary: 'Send the environment\'s session a follow-up turn',
    description: 'The spec\'s endpoint: a turn for the open session of the environment. The agent resumes its prior conversation in the same workspace and checkpoints to the session\'s work branch. One turn at a time, decided atomically: of two requests racing for an idle session exactly one is accepted.',
    params: 'WorkerEnvironmentParams',
    body: json('TurnBody', { turn: { task_prompt: 'Now do the same for the invoice totals.' } }),
    answers: [answer(202, 'TurnDispatchedAnswer', 'The turn is queued for a worker.', { queued: { data: { run_id: RUN_ID, turn_index: 1, url: URL } } })],
    errors: [
      { status: 402, when: '`entitlement_required`: the plan\'s cap on runs in flight.' },
      { status: 404, when: '`not_found`: the environment has no open session (in reach).' },
      { status: 409, when: '`environment_busy`: a turn of the session is queued or running.' },
    ],
  },
  'GET /v1/workers/runs': {
    tag: WORKERS_TAG,
    summary: 'List worker runs and sessions',
    description: 'Latest first, in the reader\'s scope. A run\'s `status` is its latest turn\'s, or for a session between turns `idle` (open) or `closed`.',
    query: 'WorkerRunListQuery',
    answers: [answer(200, 'WorkerRunPage', 'A page of runs, each with its latest turn.', { page: { data: [IDLE_SUMMARY], pagination: { total: 1, limit: 50, offset: 0 } } })],
  },
  'GET /v1/workers/runs/:runId': {
    tag: WORKERS_TAG,
    summary: 'One worker run with its turns',
    description: 'Each turn with its attempts (claims), the worker, how it ended, its checkpoint commit, and its cost, tokens and tool calls (from the agent\'s reported usage and the price table: the figures of the run\'s trace).',
    params: 'WorkerRunParams',
    answers: [answer(200, 'WorkerRunAnswer', 'The run.', { idle: { data: IDLE_RUN } })],
  },
  'GET /v1/workers/runs/:runId/events': {
    tag: WORKERS_TAG,
    summary: 'The events of a run\'s thread',
    description: 'What the workers reported, oldest first: output lines (`stdout`, `stderr`), the agent\'s structured events (`agent`: a coding-agent session event), and the worker\'s own steps (`step`). `after` is the `cursor` of the last event seen.',
    params: 'WorkerRunParams',
    query: 'WorkerEventsQuery',
    answers: [
      answer(200, 'WorkerEventList', 'Up to `limit` events (default 500).', {
        some: {
          data: [
            { cursor: 41, turn_index: 0, attempt: 1, seq: 0, at: '2026-11-20T09:15:02.700Z', kind: 'step', text: 'Workspace: checked out acme/shop main at 9fceb02d0ae5', level: 'info', event: null },
            { cursor: 42, turn_index: 0, attempt: 1, seq: 1, at: '2026-11-20T09:15:09.310Z', kind: 'agent', text: null, level: null, event: { id: 'toolu_01', parentId: null, timestamp: '2026-11-20T09:15:09.310Z', type: 'tool_call', callId: 'toolu_01', name: 'Read', input: { file_path: 'src/cart/total.ts' } } },
          ],
        },
      }),
    ],
  },
  'GET /v1/workers/runs/:runId/stream': {
    tag: WORKERS_TAG,
    summary: 'A run\'s thread, live (server-sent events)',
    description:
      'A `text/event-stream` that stays open: first `event: run` (the run with its turns), then `event: events` (a JSON array of events as `GET …/events` answers them: the stored ones after `after`, then each batch as a worker reports it) and `event: run` again whenever a turn changes (claimed, ended, handed back, its lease lost). Comment lines keep an idle stream open. Send the credentials in headers (read it with `fetch`; the live thread page of the web UI does): they never go in the URL. A server shutting down ends the stream; reconnect with `after` set to the last cursor.',
    params: 'WorkerRunParams',
    query: 'WorkerStreamQuery',
    answers: [{ status: 200, description: 'The stream.', media: { 'text/event-stream': 'Server-sent events: `run` and `events`, each a JSON `data` line.' } }],
  },
  'POST /v1/workers/runs/:runId/cancel': {
    tag: WORKERS_TAG,
    summary: 'Cancel the turn in flight',
    description: 'A queued turn is cancelled at once; a running one is asked to stop (its worker learns it within a heartbeat, stops the agent, checkpoints what it did and reports the turn `cancelled`).',
    params: 'WorkerRunParams',
    answers: [answer(200, 'WorkerRunAnswer', 'The run after the request.', { cancelled: { data: { ...QUEUED_RUN, kind: 'oneshot', open: false, status: 'cancelled', latest_turn: CANCELLED_TURN, turns: [CANCELLED_TURN] } } })],
    errors: [{ status: 409, when: '`conflict`: no turn is queued or running.' }],
  },
  'POST /v1/workers/runs/:runId/close': {
    tag: WORKERS_TAG,
    summary: 'Close a session',
    description: 'It takes no more turns (a turn in flight is cancelled as above); its trace ends.',
    params: 'WorkerRunParams',
    answers: [answer(200, 'WorkerRunAnswer', 'The session, closed.', { closed: { data: { ...IDLE_RUN, status: 'closed', open: false, closed_at: '2026-11-20T10:02:00.000Z' } } })],
    errors: [{ status: 409, when: '`conflict`: a one-shot run (cancel it instead), or the session is closed already.' }],
  },
  'POST /v1/workers/claim': {
    tag: WORKERS_TAG,
    summary: 'Claim a turn or an eval run (worker)',
    description: `The oldest queued turn of a profile the worker runs, under a lease: keep it with heartbeats (\`heartbeat_ms\`), report events, then complete or release it. A lease not renewed in time (TRACELAKE_WORKER_LEASE_SECONDS) puts the turn back in the queue, or fails it once it has lost TRACELAKE_WORKER_MAX_ATTEMPTS leases. A session's later turn goes back to the worker that ran the earlier ones while that worker is alive (it holds the workspace and the agent's conversation). With \`evals: true\` the claim may hand out a queued eval run instead, whichever was queued first (\`kind\` says which): claiming it is the eval run's claim (queued → running; a run claimed with its own key is never handed out, and a run held here answers 409 to its key's claim), and the answer carries a key minted for the run (\`api_key.plaintext_key\`, shown only here, revoked when the run ends) for the eval command to report trials with. An eval run's lease that expires, or that is released, fails the run (\`lease_expired\`, \`worker stopped\`): an eval run never goes back to the queue. With \`wait_seconds\` the claim waits for work (long poll). ${WORKER}`,
    body: json('ClaimBody', { poll: { worker: 'build-7-3a9c01d2', profiles: ['claude-code', 'codex'], wait_seconds: 20 }, evals: { worker: 'evals-1', profiles: ['claude-code'], wait_seconds: 20, evals: true } }),
    answers: [
      answer(200, 'WorkerClaimAnswer', 'The turn to run with its lease, or null when none came within the wait.', {
        claimed: {
          data: {
            kind: 'turn',
            lease_id: LEASE,
            lease_expires_at: '2026-11-20T09:15:32.620Z',
            heartbeat_ms: 2000,
            run: { id: RUN_ID, kind: 'session', profile: 'claude-code', repository: 'acme/shop', base_branch: 'main', work_branch: `tracelake/${RUN_ID}`, checkout_branch: 'main', head_commit: null, environment_id: ENV_ID },
            turn: { index: 0, attempt: 1, prompt: 'Round the cart total once, not each line; add a test.', resume: false },
          },
        },
        eval: {
          data: {
            kind: 'eval',
            lease_id: LEASE,
            lease_expires_at: '2026-11-20T09:15:32.620Z',
            heartbeat_ms: 2000,
            eval_run: {
              id: EVAL_RUN_ID,
              experiment: 'checkout-agent',
              environment_id: ENV_ID,
              suite: 'swe-lite',
              suite_version: '2026.11',
              config: { model: 'claude-sonnet-4-5', temperature: 0 },
              git_commit: BASE,
              git_branch: 'main',
              repository: 'acme/shop',
            },
            api_key: { id: '0c1d2e3f-4a5b-4c6d-8e7f-9a0b1c2d3e4f', key_prefix: 'sk_service_C', plaintext_key: 'sk_service_C4d5E6f7G8h9I0j1K2l3M4n5O6p7Q8r9S0t1U2v3W4x' },
          },
        },
        none: { data: null },
      }),
    ],
  },
  'POST /v1/workers/leases/:leaseId/heartbeat': {
    tag: WORKERS_TAG,
    summary: 'Keep a lease (worker)',
    description: `Extends the lease by the server's lease time. \`cancel\` says the turn was asked to stop. ${WORKER}`,
    params: 'LeaseParams',
    answers: [answer(200, 'WorkerHeartbeatAnswer', 'The lease, extended.', { kept: { data: { run_id: RUN_ID, turn_index: 0, lease_expires_at: '2026-11-20T09:15:34.640Z', cancel: false, worker: 'build-7-3a9c01d2' } } })],
    errors: [LEASE_GONE],
  },
  'POST /v1/workers/leases/:leaseId/events': {
    tag: WORKERS_TAG,
    summary: 'Report events of a turn (worker)',
    description: `Up to 1000 events, numbered by \`seq\` within the attempt; a seq stored already (a retried batch) is skipped. An \`agent\` event is a coding-agent session event (docs/agents.md) without its id and time (stamped here); fields the session contract lacks are dropped, and one that still does not fit is kept as a text line. They reach the run's live stream at once. ${WORKER}`,
    params: 'LeaseParams',
    body: json('WorkerEventsBody', {
      batch: {
        events: [
          { seq: 0, at: '2026-11-20T09:15:02.700Z', kind: 'step', text: 'Workspace: checked out acme/shop main at 9fceb02d0ae5', level: 'info' },
          { seq: 1, at: '2026-11-20T09:15:09.310Z', kind: 'agent', event: { type: 'tool_call', callId: 'toolu_01', name: 'Read', input: { file_path: 'src/cart/total.ts' } } },
          { seq: 2, at: '2026-11-20T09:15:09.900Z', kind: 'stderr', text: 'warning: lockfile out of date' },
        ],
      },
    }),
    answers: [answer(200, 'WorkerEventsAnswer', 'How many were stored, and whether to stop.', { stored: { data: { stored: 3, cancel: false } } })],
    errors: [LEASE_GONE],
  },
  'POST /v1/workers/leases/:leaseId/complete': {
    tag: WORKERS_TAG,
    summary: 'Report how a turn ended (worker)',
    description: `\`succeeded\` only for an agent that exited with 0 (\`reason: exit\`); \`cancelled\` only when the turn was asked to stop. \`commit_sha\` is the checkpoint pushed to the run's work branch (null when nothing changed), \`head_commit\` the workspace's commit after the turn. The run's trace is updated before the answer. An eval run's lease: \`succeeded\` (exit 0) with its \`card\` and \`cost_usd\`, or \`failed\` with its \`error\`; the run ends and its keys are revoked, and the answer is the eval run. ${WORKER}`,
    params: 'LeaseParams',
    body: json('CompleteBody', {
      succeeded: { status: 'succeeded', reason: 'exit', exit_code: 0, error: null, commit_sha: CHECKPOINT, head_commit: CHECKPOINT },
      timeout: { status: 'failed', reason: 'timeout', exit_code: null, error: 'The agent ran past its timeout of 1800 s and was stopped', commit_sha: null, head_commit: BASE },
      eval: { status: 'succeeded', reason: 'exit', exit_code: 0, error: null, card: { resolved_rate: 0.62, tasks: 50, costUsd: 3.18 }, cost_usd: 3.18 },
    }),
    answers: [answer(200, 'WorkerLeaseEndAnswer', 'The turn, ended, with its figures (or the eval run, ended).', { ended: { data: DONE_TURN } })],
    errors: [LEASE_GONE, { status: 400, when: '`invalid_request_body` with `details`: a field of the wrong shape, or `card`/`cost_usd` on the lease of a turn (they are an eval run\'s).' }, { status: 409, when: '`conflict`: `succeeded` without exit code 0, or `cancelled` when nobody asked; for an eval run, `succeeded` without a card, `failed` without an error, or another status or reason than an eval run ends with.' }],
  },
  'POST /v1/workers/leases/:leaseId/release': {
    tag: WORKERS_TAG,
    summary: 'Hand a turn back (worker)',
    description: `A stopping worker returns its turn to the queue for another worker (not counted as a lost lease), or, when it was asked to stop, ends it \`cancelled\`. An eval run cannot go back to the queue: released, it fails with the error \`worker stopped\` (the trials it reported are kept), and the answer is the eval run. ${WORKER}`,
    params: 'LeaseParams',
    answers: [answer(200, 'WorkerLeaseEndAnswer', 'The turn after it (or the eval run, failed).', { back: { data: { ...QUEUED_TURN, attempt: 1, worker: 'build-7-3a9c01d2', started_at: '2026-11-20T09:15:02.620Z' } } })],
    errors: [LEASE_GONE],
  },
};
