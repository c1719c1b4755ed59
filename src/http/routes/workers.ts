/**
 * Worker runs (spec: Workers). People launch one-shot runs and persistent sessions, send a session
 * follow-up turns (the spec's `POST /v1/workers/environments/{envId}/turns`), read, cancel and close
 * them (admin to change, trace.read to read); the run's thread streams live as server-sent events.
 * Worker processes (a Worker key, or admin credentials) claim turns — and, when they say they take
 * them, eval runs — under a lease, heartbeat, report events, and complete or hand back the work. docs/decisions.md, "Workers", says why each rule is so.
 */
import { randomBytes, randomUUID } from 'node:crypto';
import { generateKey, hashKey, shownPrefix } from '../../auth/keys.js';
import {
  validateClaimBody,
  validateCompleteBody,
  validateWorkerEnvironmentParams,
  validateLaunchBody,
  validateLeaseParams,
  validateTurnBody,
  validateWorkerEventsQuery,
  validateWorkerRunListQuery,
  validateWorkerRunParams,
  validateWorkerStreamQuery,
  type LaunchBody,
} from '../../contract/workers.js';
import type { LaunchedRun, TurnDispatched } from '../../contract/responses.js';
import { ApiError, validationError } from '../../core/errors.js';
import { checkEvalEnd } from '../../core/workers/evalRun.js';
import { planOf } from '../../core/plans.js';
import type { RunKind } from '../../core/workers/turns.js';
import type { EvalClaim, EvalLease } from '../../store/workers/evalLeases.js';
import { eventView } from '../../store/workers/views.js';
import { actorOf, readScopeOf, type Principal } from '../principal.js';
import { data, json, stream, type StreamSink } from '../reply.js';
import { paged } from '../paged.js';
import { route, type Context } from '../route.js';
import { WorkerService, type RunNews } from '../workerService.js';
import { publicBase } from './git.js';
import { ENV_ID } from '../../openapi/examples.js';
import { answer, payload } from '../../openapi/note.js';
import {
  BASE,
  CANCELLED_TURN,
  CHECKPOINT,
  DONE_TURN,
  EVAL_RUN_ID,
  IDLE_RUN,
  IDLE_SUMMARY,
  LAUNCH_DESCRIPTION,
  LEASE,
  LEASE_GONE,
  QUEUED_RUN,
  QUEUED_TURN,
  RUN_ID,
  URL,
  WORKER,
} from '../../openapi/workerExamples.js';

/** The profile a run names when its launch names none. */
const DEFAULT_PROFILE = 'claude-code';
/** A comment line on an idle stream, so proxies and the browser keep it open. */
const KEEPALIVE_MS = 15_000;
/** Events a stream reads from the store at a time while it catches up. */
const CATCH_UP_PAGE = 500;

/** The live thread page of a run (the web UI's hash route; credentials are the UI's, never in the URL). */
function threadUrl(ctx: Context, headers: Readonly<Record<string, string>>, runId: string): string {
  return `${publicBase(ctx, headers)}/#/workers/runs/${runId}`;
}

function maxInFlight(ctx: Context): number | null {
  return planOf(ctx.services.plans, ctx.principal.plan).max_concurrent_worker_runs;
}

/**
 * The environment a run is launched in: the one named (it must lie in what the caller reads: any
 * of the app's for a tenant admin, else its own), or the one the credentials write to.
 */
async function launchEnvironment(ctx: Context, named: string | undefined): Promise<string> {
  const p = ctx.principal;
  if (named === undefined) {
    if (p.environmentId === null)
      throw new ApiError('forbidden', 'Name the environment of the run (`environment`, or X-Service-Environment)');
    return p.environmentId;
  }
  const env = await ctx.services.store.run('selectEnvironment', {
    tenantId: p.tenantId,
    appId: p.appId,
    name: named,
    createPreview: false,
  });
  if (!env || (p.readEnvironmentId !== null && p.readEnvironmentId !== env.id)) {
    throw new ApiError('not_found', `No environment "${named}" in this app that these credentials reach`, {
      details: { environment: 'unknown environment' },
    });
  }
  return env.id;
}

async function launch(kind: RunKind, body: LaunchBody, headers: Readonly<Record<string, string>>, ctx: Context) {
  const p = ctx.principal;
  const environmentId = await launchEnvironment(ctx, body.environment);
  const app = { tenantId: p.tenantId, appId: p.appId };
  const { row, repository, branch, reader } = await ctx.services.git.connected(app);
  // The worker checks out and pushes with the `local` provider (git/local.ts), on its own disk.
  if (row.provider !== 'local')
    throw new ApiError(
      'conflict',
      `Workers run on repositories of the local git provider; this app is connected to ${row.provider}`,
      { provider: row.provider },
    );
  const baseBranch = body.branch ?? branch;
  const baseCommit = await reader.resolveRef(repository, baseBranch);
  if (!baseCommit)
    throw new ApiError('not_found', `${repository} has no branch ${baseBranch}`, {
      details: { branch: 'no such branch' },
    });
  const id = randomUUID();
  const profile = body.profile ?? DEFAULT_PROFILE;
  const run = await ctx.services.store.run('launchWorkerRun', {
    id,
    scope: { tenantId: p.tenantId, appId: p.appId, environmentId },
    kind,
    title: body.title ?? null,
    profile,
    prompt: body.task_prompt,
    repository,
    baseBranch,
    baseCommit,
    traceId: WorkerService.traceIdOf(app, id, profile),
    createdBy: actorOf(p),
    maxInFlight: maxInFlight(ctx),
  });
  ctx.services.workers.workQueued();
  return data({ ...run, url: threadUrl(ctx, headers, id) } satisfies LaunchedRun, 201);
}

/** The scope a worker claims in and reports on: what its credentials read. */
function workerScope(p: Principal) {
  return readScopeOf(p);
}

/** One server-sent event. */
function sse(sink: StreamSink, event: string, value: unknown): boolean {
  return sink.write(`event: ${event}\ndata: ${JSON.stringify(value)}\n\n`);
}

/**
 * An eval run's claim as the worker gets it: the minted key's plaintext (shown only here), and the
 * app's repository when the run names a commit or branch and the app has a local git connection.
 */
async function evalClaimOf(ctx: Context, leased: EvalLease, plaintext: string): Promise<EvalClaim> {
  const run = leased.eval_run;
  let repository: string | null = null;
  if (run.git_commit !== null || run.git_branch !== null) {
    try {
      const { row, repository: connected } = await ctx.services.git.connected({
        tenantId: ctx.principal.tenantId,
        appId: ctx.principal.appId,
      });
      if (row.provider === 'local') repository = connected;
    } catch (e) {
      if (!(e instanceof ApiError)) throw e;
      // No connection: the command runs in an empty directory.
    }
  }
  return { ...leased, eval_run: { ...run, repository }, api_key: { ...leased.api_key, plaintext_key: plaintext } };
}

/** The eval run a lease id names (null: a turn's lease, or an unknown one, which the turn path answers 404). */
function evalOfLease(ctx: Context, leaseId: string): Promise<string | null> {
  return ctx.services.store.run('workerEvalOfLease', { leaseId });
}

export const workerRoutes = (secret: Buffer) => [
  route({
    method: 'POST',
    path: '/v1/workers/runs',
    permission: 'admin',
    validate: { body: validateLaunchBody },
    note: {
      tag: 'Workers',
      summary: 'Launch a one-shot run',
      description: `One turn: a worker claims it, runs the agent with \`task_prompt\`, and the run ends with the turn. ${LAUNCH_DESCRIPTION}`,
      body: payload('LaunchBody', {
        run: {
          task_prompt: 'Round the cart total once, not each line; add a test.',
          profile: 'claude-code',
          branch: 'main',
          title: 'Cart rounding',
        },
      }),
      answers: [
        answer(201, 'LaunchedRunAnswer', 'The run, its first turn queued, with the link to its live thread.', {
          launched: { data: { ...QUEUED_RUN, kind: 'oneshot', open: false, url: URL } },
        }),
      ],
      errors: [
        {
          status: 402,
          when: "`entitlement_required` (`entitlement: max_concurrent_worker_runs`, `current`, `limit`): the plan's cap on runs with a turn queued or running; 0 means the plan has no workers.",
        },
        { status: 404, when: '`not_found`: no such environment in reach, or no such branch.' },
        {
          status: 409,
          when: '`git_connection_missing`: the app has no finished git connection; `conflict`: it is not a `local` one.',
        },
      ],
    },
    handler: ({ body, headers }, ctx) => launch('oneshot', body, headers, ctx),
  }),
  route({
    method: 'POST',
    path: '/v1/workers/sessions',
    permission: 'admin',
    validate: { body: validateLaunchBody },
    note: {
      tag: 'Workers',
      summary: 'Launch a persistent session',
      description: `Like a one-shot run, but the session stays open after its first turn: send it follow-up turns with \`POST /v1/workers/environments/{envId}/turns\` (one at a time; the agent resumes its conversation in the same workspace and branch) until it is closed. An environment has at most one open session. ${LAUNCH_DESCRIPTION}`,
      body: payload('LaunchBody', {
        session: { task_prompt: 'Round the cart total once, not each line; add a test.', title: 'Cart rounding' },
      }),
      answers: [
        answer(201, 'LaunchedRunAnswer', 'The session, its first turn queued, with the link to its live thread.', {
          launched: { data: { ...QUEUED_RUN, url: URL } },
        }),
      ],
      errors: [
        { status: 402, when: '`entitlement_required`: as for one-shot runs.' },
        { status: 404, when: '`not_found`: no such environment in reach, or no such branch.' },
        {
          status: 409,
          when: '`conflict`: the environment has an open session already; `git_connection_missing`: no finished git connection.',
        },
      ],
    },
    handler: ({ body, headers }, ctx) => launch('session', body, headers, ctx),
  }),
  route({
    method: 'POST',
    path: '/v1/workers/environments/:envId/turns',
    permission: 'admin',
    validate: { params: validateWorkerEnvironmentParams, body: validateTurnBody },
    note: {
      tag: 'Workers',
      summary: "Send the environment's session a follow-up turn",
      description:
        "The spec's endpoint: a turn for the open session of the environment. The agent resumes its prior conversation in the same workspace and checkpoints to the session's work branch. One turn at a time, decided atomically: of two requests racing for an idle session exactly one is accepted.",
      params: 'WorkerEnvironmentParams',
      body: payload('TurnBody', { turn: { task_prompt: 'Now do the same for the invoice totals.' } }),
      answers: [
        answer(202, 'TurnDispatchedAnswer', 'The turn is queued for a worker.', {
          queued: { data: { run_id: RUN_ID, turn_index: 1, url: URL } },
        }),
      ],
      errors: [
        { status: 402, when: "`entitlement_required`: the plan's cap on runs in flight." },
        { status: 404, when: '`not_found`: the environment has no open session (in reach).' },
        { status: 409, when: '`environment_busy`: a turn of the session is queued or running.' },
      ],
    },
    async handler({ params, body, headers }, ctx) {
      const p = ctx.principal;
      const turn = await ctx.services.store.run('addWorkerTurn', {
        scope: readScopeOf(p),
        environmentId: params.envId.toLowerCase(),
        prompt: body.task_prompt,
        createdBy: actorOf(p),
        maxInFlight: maxInFlight(ctx),
      });
      ctx.services.workers.workQueued();
      void ctx.services.workers.tellRun(turn.run_id, p);
      return data({ ...turn, url: threadUrl(ctx, headers, turn.run_id) } satisfies TurnDispatched, 202);
    },
  }),
  route({
    method: 'GET',
    path: '/v1/workers/runs',
    permission: 'trace.read',
    validate: { query: validateWorkerRunListQuery },
    note: {
      tag: 'Workers',
      summary: 'List worker runs and sessions',
      description:
        "Latest first, in the reader's scope. A run's `status` is its latest turn's, or for a session between turns `idle` (open) or `closed`.",
      query: 'WorkerRunListQuery',
      answers: [
        answer(200, 'WorkerRunPage', 'A page of runs, each with its latest turn.', {
          page: { data: [IDLE_SUMMARY], pagination: { total: 1, limit: 50, offset: 0 } },
        }),
      ],
    },
    async handler({ query }, ctx) {
      return paged(query, (page) =>
        ctx.services.store.run('listWorkerRuns', {
          scope: readScopeOf(ctx.principal),
          ...(query.kind ? { kind: query.kind } : {}),
          ...(query.status ? { status: query.status } : {}),
          ...(query.environment_id ? { environmentId: query.environment_id.toLowerCase() } : {}),
          ...page,
        }),
      );
    },
  }),
  route({
    method: 'GET',
    path: '/v1/workers/runs/:runId',
    permission: 'trace.read',
    validate: { params: validateWorkerRunParams },
    note: {
      tag: 'Workers',
      summary: 'One worker run with its turns',
      description:
        "Each turn with its attempts (claims), the worker, how it ended, its checkpoint commit, and its cost, tokens and tool calls (from the agent's reported usage and the price table: the figures of the run's trace).",
      params: 'WorkerRunParams',
      answers: [answer(200, 'WorkerRunAnswer', 'The run.', { idle: { data: IDLE_RUN } })],
    },
    async handler({ params }, ctx) {
      const run = await ctx.services.store.run('getWorkerRun', {
        scope: readScopeOf(ctx.principal),
        id: params.runId.toLowerCase(),
      });
      if (!run) throw new ApiError('not_found', `Worker run ${params.runId} not found`);
      return data(run);
    },
  }),
  route({
    method: 'GET',
    path: '/v1/workers/runs/:runId/events',
    permission: 'trace.read',
    validate: { params: validateWorkerRunParams, query: validateWorkerEventsQuery },
    note: {
      tag: 'Workers',
      summary: "The events of a run's thread",
      description:
        "What the workers reported, oldest first: output lines (`stdout`, `stderr`), the agent's structured events (`agent`: a coding-agent session event), and the worker's own steps (`step`). `after` is the `cursor` of the last event seen.",
      params: 'WorkerRunParams',
      query: 'WorkerEventsQuery',
      answers: [
        answer(200, 'WorkerEventList', 'Up to `limit` events (default 500).', {
          some: {
            data: [
              {
                cursor: 41,
                turn_index: 0,
                attempt: 1,
                seq: 0,
                at: '2026-11-20T09:15:02.700Z',
                kind: 'step',
                text: 'Workspace: checked out acme/shop main at 9fceb02d0ae5',
                level: 'info',
                event: null,
              },
              {
                cursor: 42,
                turn_index: 0,
                attempt: 1,
                seq: 1,
                at: '2026-11-20T09:15:09.310Z',
                kind: 'agent',
                text: null,
                level: null,
                event: {
                  id: 'toolu_01',
                  parentId: null,
                  timestamp: '2026-11-20T09:15:09.310Z',
                  type: 'tool_call',
                  callId: 'toolu_01',
                  name: 'Read',
                  input: { file_path: 'src/cart/total.ts' },
                },
              },
            ],
          },
        }),
      ],
    },
    async handler({ params, query }, ctx) {
      const events = await ctx.services.store.run('workerRunEvents', {
        scope: readScopeOf(ctx.principal),
        runId: params.runId.toLowerCase(),
        after: query.after ?? 0,
        limit: query.limit ?? 500,
        ...(query.turn === undefined ? {} : { turn: query.turn }),
      });
      if (!events) throw new ApiError('not_found', `Worker run ${params.runId} not found`);
      return json({ data: events });
    },
  }),
  route({
    method: 'GET',
    path: '/v1/workers/runs/:runId/stream',
    permission: 'trace.read',
    validate: { params: validateWorkerRunParams, query: validateWorkerStreamQuery },
    note: {
      tag: 'Workers',
      summary: "A run's thread, live (server-sent events)",
      description:
        'A `text/event-stream` that stays open: first `event: run` (the run with its turns), then `event: events` (a JSON array of events as `GET …/events` answers them: the stored ones after `after`, then each batch as a worker reports it) and `event: run` again whenever a turn changes (claimed, ended, handed back, its lease lost). Comment lines keep an idle stream open. Send the credentials in headers (read it with `fetch`; the live thread page of the web UI does): they never go in the URL. A server shutting down ends the stream; reconnect with `after` set to the last cursor.',
      params: 'WorkerRunParams',
      query: 'WorkerStreamQuery',
      answers: [
        {
          status: 200,
          description: 'The stream.',
          media: { 'text/event-stream': 'Server-sent events: `run` and `events`, each a JSON `data` line.' },
        },
      ],
    },
    async handler({ params, query }, ctx) {
      const scope = readScopeOf(ctx.principal);
      const runId = params.runId.toLowerCase();
      const run = await ctx.services.store.run('getWorkerRun', { scope, id: runId });
      if (!run) throw new ApiError('not_found', `Worker run ${params.runId} not found`);
      const { workers, store, log } = ctx.services;
      return stream(
        'text/event-stream',
        (sink) => {
          // News that arrives while the stored events are read is held, then sent after them.
          let held: RunNews[] | null = [];
          let cursor = query.after ?? 0;
          const send = (news: RunNews) => {
            if (news.type === 'run') return void sse(sink, 'run', news.run);
            const fresh = news.events.filter((e) => e.cursor > cursor);
            if (fresh.length === 0) return;
            cursor = fresh[fresh.length - 1]!.cursor;
            sse(sink, 'events', fresh);
          };
          const unwatch = workers.watch(runId, (news) => (held ? held.push(news) : send(news)));
          const keepalive = setInterval(() => sink.write(': keepalive\n\n'), KEEPALIVE_MS);
          sse(sink, 'run', run);
          void (async () => {
            for (;;) {
              const page = await store.run('workerRunEvents', { scope, runId, after: cursor, limit: CATCH_UP_PAGE });
              if (!page || page.length === 0) break;
              send({ type: 'events', events: page });
              if (page.length < CATCH_UP_PAGE) break;
            }
            for (const news of held!) send(news);
            held = null;
            sink.write(': caught up\n\n');
          })().catch((err: unknown) => {
            log.warn({ err, run_id: runId }, 'a worker run stream failed');
            sink.end();
          });
          return () => {
            unwatch();
            clearInterval(keepalive);
          };
        },
        { 'Cache-Control': 'no-store', 'X-Accel-Buffering': 'no' },
      );
    },
  }),
  route({
    method: 'POST',
    path: '/v1/workers/runs/:runId/cancel',
    permission: 'admin',
    body: 'none',
    validate: { params: validateWorkerRunParams },
    note: {
      tag: 'Workers',
      summary: 'Cancel the turn in flight',
      description:
        'A queued turn is cancelled at once; a running one is asked to stop (its worker learns it within a heartbeat, stops the agent, checkpoints what it did and reports the turn `cancelled`).',
      params: 'WorkerRunParams',
      answers: [
        answer(200, 'WorkerRunAnswer', 'The run after the request.', {
          cancelled: {
            data: {
              ...QUEUED_RUN,
              kind: 'oneshot',
              open: false,
              status: 'cancelled',
              latest_turn: CANCELLED_TURN,
              turns: [CANCELLED_TURN],
            },
          },
        }),
      ],
      errors: [{ status: 409, when: '`conflict`: no turn is queued or running.' }],
    },
    handler: ({ params }, ctx) => stopRun(ctx, params.runId.toLowerCase(), false),
  }),
  route({
    method: 'POST',
    path: '/v1/workers/runs/:runId/close',
    permission: 'admin',
    body: 'none',
    validate: { params: validateWorkerRunParams },
    note: {
      tag: 'Workers',
      summary: 'Close a session',
      description: 'It takes no more turns (a turn in flight is cancelled as above); its trace ends.',
      params: 'WorkerRunParams',
      answers: [
        answer(200, 'WorkerRunAnswer', 'The session, closed.', {
          closed: { data: { ...IDLE_RUN, status: 'closed', open: false, closed_at: '2026-11-20T10:02:00.000Z' } },
        }),
      ],
      errors: [
        { status: 409, when: '`conflict`: a one-shot run (cancel it instead), or the session is closed already.' },
      ],
    },
    handler: ({ params }, ctx) => stopRun(ctx, params.runId.toLowerCase(), true),
  }),

  // The worker's side.
  route({
    method: 'POST',
    path: '/v1/workers/claim',
    permission: 'worker',
    validate: { body: validateClaimBody },
    note: {
      tag: 'Workers',
      summary: 'Claim a turn or an eval run (worker)',
      description: `The oldest queued turn of a profile the worker runs, under a lease: keep it with heartbeats (\`heartbeat_ms\`), report events, then complete or release it. A lease not renewed in time (TRACELAKE_WORKER_LEASE_SECONDS) puts the turn back in the queue, or fails it once it has lost TRACELAKE_WORKER_MAX_ATTEMPTS leases. A session's later turn goes back to the worker that ran the earlier ones while that worker is alive (it holds the workspace and the agent's conversation). With \`evals: true\` the claim may hand out a queued eval run instead, whichever was queued first (\`kind\` says which): claiming it is the eval run's claim (queued → running; a run claimed with its own key is never handed out, and a run held here answers 409 to its key's claim), and the answer carries a key minted for the run (\`api_key.plaintext_key\`, shown only here, revoked when the run ends) for the eval command to report trials with. An eval run's lease that expires, or that is released, fails the run (\`lease_expired\`, \`worker stopped\`): an eval run never goes back to the queue. With \`wait_seconds\` the claim waits for work (long poll). ${WORKER}`,
      body: payload('ClaimBody', {
        poll: { worker: 'build-7-3a9c01d2', profiles: ['claude-code', 'codex'], wait_seconds: 20 },
        evals: { worker: 'evals-1', profiles: ['claude-code'], wait_seconds: 20, evals: true },
      }),
      answers: [
        answer(200, 'WorkerClaimAnswer', 'The turn to run with its lease, or null when none came within the wait.', {
          claimed: {
            data: {
              kind: 'turn',
              lease_id: LEASE,
              lease_expires_at: '2026-11-20T09:15:32.620Z',
              heartbeat_ms: 2000,
              run: {
                id: RUN_ID,
                kind: 'session',
                profile: 'claude-code',
                repository: 'acme/shop',
                base_branch: 'main',
                work_branch: `tracelake/${RUN_ID}`,
                checkout_branch: 'main',
                head_commit: null,
                environment_id: ENV_ID,
              },
              turn: {
                index: 0,
                attempt: 1,
                prompt: 'Round the cart total once, not each line; add a test.',
                resume: false,
              },
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
              api_key: {
                id: '0c1d2e3f-4a5b-4c6d-8e7f-9a0b1c2d3e4f',
                key_prefix: 'sk_service_C',
                plaintext_key: 'sk_service_C4d5E6f7G8h9I0j1K2l3M4n5O6p7Q8r9S0t1U2v3W4x',
              },
            },
          },
          none: { data: null },
        }),
      ],
    },
    async handler({ body }, ctx) {
      const p = ctx.principal;
      const { workers, store } = ctx.services;
      const deadline = Date.now() + (body.wait_seconds ?? 0) * 1000;
      let gone = false;
      let waiting: { cancel: () => void } | null = null;
      ctx.onAbort(() => {
        gone = true;
        waiting?.cancel();
      });
      for (;;) {
        workers.heardFrom(p.tenantId, body.worker);
        // Asked before looking, so a turn queued while the claim runs wakes the wait that follows.
        const wait = workers.waitForWork(Math.max(0, deadline - Date.now()));
        // The key an eval run gets if this claim takes one; its plaintext is shown in this answer only.
        const runKey = body.evals ? generateKey() : null;
        const claim = await store.run('claimWorkerTurn', {
          scope: workerScope(p),
          worker: body.worker,
          profiles: body.profiles,
          liveWorkers: workers.liveWorkers(p.tenantId),
          leaseId: randomBytes(16).toString('hex'),
          leaseMs: workers.settings.leaseMs,
          evals:
            runKey === null
              ? null
              : { key: { keyHash: hashKey(secret, runKey), keyPrefix: shownPrefix(runKey) }, createdBy: actorOf(p) },
        });
        if (claim && gone) {
          // Nobody is there to run it: hand it back at once rather than let the lease expire (a loss).
          // An eval run cannot go back to the queue: it fails now as it would at the lease's end.
          wait.cancel();
          if (claim.kind === 'eval') {
            const ended = await store.run('releaseWorkerEval', {
              scope: workerScope(p),
              runId: claim.eval_run.id,
              leaseId: claim.lease_id,
            });
            for (const hash of ended.revokedKeyHashes) ctx.services.auth.forget(hash);
            return data(null);
          }
          await store.run('releaseWorkerTurn', { scope: workerScope(p), leaseId: claim.lease_id });
          workers.workQueued();
          return data(null);
        }
        if (claim || gone || Date.now() >= deadline) {
          wait.cancel();
          if (claim?.kind === 'eval') return data(await evalClaimOf(ctx, claim, runKey!));
          if (claim) void workers.tellRun(claim.run.id, p);
          return data(claim);
        }
        waiting = wait;
        await wait.done;
        waiting = null;
        if (gone) return data(null);
      }
    },
  }),
  route({
    method: 'POST',
    path: '/v1/workers/leases/:leaseId/heartbeat',
    permission: 'worker',
    body: 'none',
    validate: { params: validateLeaseParams },
    note: {
      tag: 'Workers',
      summary: 'Keep a lease (worker)',
      description: `Extends the lease by the server's lease time. \`cancel\` says the turn was asked to stop. ${WORKER}`,
      params: 'LeaseParams',
      answers: [
        answer(200, 'WorkerHeartbeatAnswer', 'The lease, extended.', {
          kept: {
            data: {
              run_id: RUN_ID,
              turn_index: 0,
              lease_expires_at: '2026-11-20T09:15:34.640Z',
              cancel: false,
              worker: 'build-7-3a9c01d2',
            },
          },
        }),
      ],
      errors: [LEASE_GONE],
    },
    async handler({ params }, ctx) {
      const scope = workerScope(ctx.principal);
      const leaseMs = ctx.services.workers.settings.leaseMs;
      const evalRun = await evalOfLease(ctx, params.leaseId);
      const beat = evalRun
        ? await ctx.services.store.run('heartbeatWorkerEval', {
            scope,
            runId: evalRun,
            leaseId: params.leaseId,
            leaseMs,
          })
        : await ctx.services.store.run('heartbeatWorkerTurn', { scope, leaseId: params.leaseId, leaseMs });
      if (beat.worker) ctx.services.workers.heardFrom(ctx.principal.tenantId, beat.worker);
      return data(beat);
    },
  }),
  route({
    method: 'POST',
    path: '/v1/workers/leases/:leaseId/events',
    permission: 'worker',
    // A `WorkerEventsBody`, checked on a compute thread (ingest/workerEvents.ts): up to 1,000 agent
    // events against the session contract are too much work for the HTTP thread.
    body: 'raw',
    validate: { params: validateLeaseParams },
    note: {
      tag: 'Workers',
      summary: 'Report events of a turn (worker)',
      description: `Up to 1000 events, numbered by \`seq\` within the attempt; a seq stored already (a retried batch) is skipped. An \`agent\` event is a coding-agent session event (docs/agents.md) without its id and time (stamped here); fields the session contract lacks are dropped, and one that still does not fit is kept as a text line. They reach the run's live stream at once. ${WORKER}`,
      params: 'LeaseParams',
      body: payload('WorkerEventsBody', {
        batch: {
          events: [
            {
              seq: 0,
              at: '2026-11-20T09:15:02.700Z',
              kind: 'step',
              text: 'Workspace: checked out acme/shop main at 9fceb02d0ae5',
              level: 'info',
            },
            {
              seq: 1,
              at: '2026-11-20T09:15:09.310Z',
              kind: 'agent',
              event: { type: 'tool_call', callId: 'toolu_01', name: 'Read', input: { file_path: 'src/cart/total.ts' } },
            },
            { seq: 2, at: '2026-11-20T09:15:09.900Z', kind: 'stderr', text: 'warning: lockfile out of date' },
          ],
        },
      }),
      answers: [
        answer(200, 'WorkerEventsAnswer', 'How many were stored, and whether to stop.', {
          stored: { data: { stored: 3, cancel: false } },
        }),
      ],
      errors: [LEASE_GONE],
    },
    async handler({ params, body, headers }, ctx) {
      const { batch } = await ctx.services.compute.run('prepareWorkerEvents', {
        body,
        contentType: headers['content-type'],
      });
      const out = await ctx.services.store.run('appendWorkerEvents', {
        scope: workerScope(ctx.principal),
        leaseId: params.leaseId,
        batch,
      });
      if (out.stored.length > 0 && ctx.services.workers.watched(out.run_id))
        ctx.services.workers.tell(out.run_id, { type: 'events', events: out.stored.map(eventView) });
      return data({ stored: out.stored.length, cancel: out.cancel });
    },
  }),
  route({
    method: 'POST',
    path: '/v1/workers/leases/:leaseId/complete',
    permission: 'worker',
    validate: { params: validateLeaseParams, body: validateCompleteBody },
    note: {
      tag: 'Workers',
      summary: 'Report how a turn ended (worker)',
      description: `\`succeeded\` only for an agent that exited with 0 (\`reason: exit\`); \`cancelled\` only when the turn was asked to stop. \`commit_sha\` is the checkpoint pushed to the run's work branch (null when nothing changed), \`head_commit\` the workspace's commit after the turn. The run's trace is updated before the answer. An eval run's lease: \`succeeded\` (exit 0) with its \`card\` and \`cost_usd\`, or \`failed\` with its \`error\`; the run ends and its keys are revoked, and the answer is the eval run. ${WORKER}`,
      params: 'LeaseParams',
      body: payload('CompleteBody', {
        succeeded: {
          status: 'succeeded',
          reason: 'exit',
          exit_code: 0,
          error: null,
          commit_sha: CHECKPOINT,
          head_commit: CHECKPOINT,
        },
        timeout: {
          status: 'failed',
          reason: 'timeout',
          exit_code: null,
          error: 'The agent ran past its timeout of 1800 s and was stopped',
          commit_sha: null,
          head_commit: BASE,
        },
        eval: {
          status: 'succeeded',
          reason: 'exit',
          exit_code: 0,
          error: null,
          card: { resolved_rate: 0.62, tasks: 50, costUsd: 3.18 },
          cost_usd: 3.18,
        },
      }),
      answers: [
        answer(200, 'WorkerLeaseEndAnswer', 'The turn, ended, with its figures (or the eval run, ended).', {
          ended: { data: DONE_TURN },
        }),
      ],
      errors: [
        LEASE_GONE,
        {
          status: 400,
          when: "`invalid_request_body` with `details`: a field of the wrong shape, or `card`/`cost_usd` on the lease of a turn (they are an eval run's).",
        },
        {
          status: 409,
          when: '`conflict`: `succeeded` without exit code 0, or `cancelled` when nobody asked; for an eval run, `succeeded` without a card, `failed` without an error, or another status or reason than an eval run ends with.',
        },
      ],
    },
    async handler({ params, body }, ctx) {
      const p = ctx.principal;
      const evalRun = await evalOfLease(ctx, params.leaseId);
      if (evalRun) {
        const error = body.error ?? null;
        const { kind } = checkEvalEnd({
          status: body.status,
          reason: body.reason,
          exitCode: body.exit_code ?? null,
          card: body.card ?? null,
          error,
        });
        const ended = await ctx.services.store.run('endWorkerEval', {
          scope: workerScope(p),
          runId: evalRun,
          leaseId: params.leaseId,
          end:
            kind === 'complete'
              ? { kind, card: JSON.stringify(body.card), error: null, costUsd: body.cost_usd ?? null }
              : { kind, card: null, error, costUsd: null },
        });
        for (const hash of ended.revokedKeyHashes) ctx.services.auth.forget(hash);
        return data(ended.run);
      }
      // A turn's outcome is the agent's exit and the checkpoint; a card and a cost are an eval run's.
      const evalOnly = (['card', 'cost_usd'] as const).filter((k) => body[k] != null);
      if (evalOnly.length > 0)
        throw validationError(
          'body',
          Object.fromEntries(evalOnly.map((k) => [k, 'only for the lease of an eval run'])),
        );
      const turn = await ctx.services.store.run('completeWorkerTurn', {
        scope: workerScope(p),
        leaseId: params.leaseId,
        end: {
          status: body.status,
          reason: body.reason,
          exitCode: body.exit_code ?? null,
          error: body.error ?? null,
          commitSha: body.commit_sha ?? null,
          headCommit: body.head_commit ?? null,
        },
      });
      // Traced before the answer: once a worker has reported a turn, its trace is readable.
      await ctx.services.workers.trace(turn.run_id, p.tenantId);
      const after = await ctx.services.store.run('getWorkerRun', {
        scope: { ...workerScope(p), environmentId: null },
        id: turn.run_id,
      });
      return data(after?.turns.find((t) => t.turn_index === turn.turn_index) ?? turn);
    },
  }),
  route({
    method: 'POST',
    path: '/v1/workers/leases/:leaseId/release',
    permission: 'worker',
    body: 'none',
    validate: { params: validateLeaseParams },
    note: {
      tag: 'Workers',
      summary: 'Hand a turn back (worker)',
      description: `A stopping worker returns its turn to the queue for another worker (not counted as a lost lease), or, when it was asked to stop, ends it \`cancelled\`. An eval run cannot go back to the queue: released, it fails with the error \`worker stopped\` (the trials it reported are kept), and the answer is the eval run. ${WORKER}`,
      params: 'LeaseParams',
      answers: [
        answer(200, 'WorkerLeaseEndAnswer', 'The turn after it (or the eval run, failed).', {
          back: {
            data: { ...QUEUED_TURN, attempt: 1, worker: 'build-7-3a9c01d2', started_at: '2026-11-20T09:15:02.620Z' },
          },
        }),
      ],
      errors: [LEASE_GONE],
    },
    async handler({ params }, ctx) {
      const p = ctx.principal;
      const evalRun = await evalOfLease(ctx, params.leaseId);
      if (evalRun) {
        // An eval run has no way back to the queue: handed back, it fails (`worker stopped`).
        const ended = await ctx.services.store.run('releaseWorkerEval', {
          scope: workerScope(p),
          runId: evalRun,
          leaseId: params.leaseId,
        });
        for (const hash of ended.revokedKeyHashes) ctx.services.auth.forget(hash);
        return data(ended.run);
      }
      const turn = await ctx.services.store.run('releaseWorkerTurn', {
        scope: workerScope(p),
        leaseId: params.leaseId,
      });
      if (turn.status === 'queued') ctx.services.workers.workQueued();
      if (turn.status === 'queued') void ctx.services.workers.tellRun(turn.run_id, p);
      else void ctx.services.workers.trace(turn.run_id, p.tenantId);
      return data(turn);
    },
  }),
];

async function stopRun(ctx: Context, runId: string, close: boolean) {
  const p = ctx.principal;
  const changed = await ctx.services.store.run('stopWorkerRun', { scope: readScopeOf(p), runId, close });
  if (!changed) throw new ApiError('not_found', `Worker run ${runId} not found`);
  // A queued turn was cancelled at once: it has ended, and is traced; a running one ends when its worker says so.
  if (changed.turn?.status === 'cancelled' || close) void ctx.services.workers.trace(runId, p.tenantId);
  else void ctx.services.workers.tellRun(runId, p);
  return data(changed.run);
}
