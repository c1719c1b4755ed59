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
  type ClaimBody,
  type CompleteBody,
  type WorkerEnvironmentParams,
  type LaunchBody,
  type LeaseParams,
  type TurnBody,
  type WorkerEventsQuery,
  type WorkerRunListQuery,
  type WorkerRunParams,
  type WorkerStreamQuery,
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
import { route, type Context } from '../route.js';
import { WorkerService, type RunNews } from '../workerService.js';
import { publicBase } from './git.js';

const DEFAULT_PAGE = 50;
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
    if (p.environmentId === null) throw new ApiError('forbidden', 'Name the environment of the run (`environment`, or X-Service-Environment)');
    return p.environmentId;
  }
  const env = await ctx.services.store.run('selectEnvironment', { tenantId: p.tenantId, appId: p.appId, name: named, createPreview: false });
  if (!env || (p.readEnvironmentId !== null && p.readEnvironmentId !== env.id)) {
    throw new ApiError('not_found', `No environment "${named}" in this app that these credentials reach`, { details: { environment: 'unknown environment' } });
  }
  return env.id;
}

async function launch(kind: RunKind, body: LaunchBody, headers: Readonly<Record<string, string>>, ctx: Context) {
  const p = ctx.principal;
  const environmentId = await launchEnvironment(ctx, body.environment);
  const app = { tenantId: p.tenantId, appId: p.appId };
  const { row, repository, branch, reader } = await ctx.services.git.connected(app);
  // The worker checks out and pushes with the `local` provider (git/local.ts), on its own disk.
  if (row.provider !== 'local') throw new ApiError('conflict', `Workers run on repositories of the local git provider; this app is connected to ${row.provider}`, { provider: row.provider });
  const baseBranch = body.branch ?? branch;
  const baseCommit = await reader.resolveRef(repository, baseBranch);
  if (!baseCommit) throw new ApiError('not_found', `${repository} has no branch ${baseBranch}`, { details: { branch: 'no such branch' } });
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
      const { row, repository: connected } = await ctx.services.git.connected({ tenantId: ctx.principal.tenantId, appId: ctx.principal.appId });
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
  route<Record<string, string>, Record<string, never>, LaunchBody>({
    method: 'POST',
    path: '/v1/workers/runs',
    permission: 'admin',
    validate: { body: validateLaunchBody },
    handler: ({ body, headers }, ctx) => launch('oneshot', body, headers, ctx),
  }),
  route<Record<string, string>, Record<string, never>, LaunchBody>({
    method: 'POST',
    path: '/v1/workers/sessions',
    permission: 'admin',
    validate: { body: validateLaunchBody },
    handler: ({ body, headers }, ctx) => launch('session', body, headers, ctx),
  }),
  route<WorkerEnvironmentParams, Record<string, never>, TurnBody>({
    method: 'POST',
    path: '/v1/workers/environments/:envId/turns',
    permission: 'admin',
    validate: { params: validateWorkerEnvironmentParams, body: validateTurnBody },
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
  route<Record<string, string>, WorkerRunListQuery>({
    method: 'GET',
    path: '/v1/workers/runs',
    permission: 'trace.read',
    validate: { query: validateWorkerRunListQuery },
    async handler({ query }, ctx) {
      const limit = query.limit ?? DEFAULT_PAGE;
      const offset = query.offset ?? 0;
      const page = await ctx.services.store.run('listWorkerRuns', {
        scope: readScopeOf(ctx.principal),
        ...(query.kind ? { kind: query.kind } : {}),
        ...(query.status ? { status: query.status } : {}),
        ...(query.environment_id ? { environmentId: query.environment_id.toLowerCase() } : {}),
        limit,
        offset,
      });
      return json({ data: page.data, pagination: { total: page.total, limit, offset } });
    },
  }),
  route<WorkerRunParams>({
    method: 'GET',
    path: '/v1/workers/runs/:runId',
    permission: 'trace.read',
    validate: { params: validateWorkerRunParams },
    async handler({ params }, ctx) {
      const run = await ctx.services.store.run('getWorkerRun', { scope: readScopeOf(ctx.principal), id: params.runId.toLowerCase() });
      if (!run) throw new ApiError('not_found', `Worker run ${params.runId} not found`);
      return data(run);
    },
  }),
  route<WorkerRunParams, WorkerEventsQuery>({
    method: 'GET',
    path: '/v1/workers/runs/:runId/events',
    permission: 'trace.read',
    validate: { params: validateWorkerRunParams, query: validateWorkerEventsQuery },
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
  route<WorkerRunParams, WorkerStreamQuery>({
    method: 'GET',
    path: '/v1/workers/runs/:runId/stream',
    permission: 'trace.read',
    validate: { params: validateWorkerRunParams, query: validateWorkerStreamQuery },
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
  route<WorkerRunParams>({
    method: 'POST',
    path: '/v1/workers/runs/:runId/cancel',
    permission: 'admin',
    body: 'none',
    validate: { params: validateWorkerRunParams },
    handler: ({ params }, ctx) => stopRun(ctx, params.runId.toLowerCase(), false),
  }),
  route<WorkerRunParams>({
    method: 'POST',
    path: '/v1/workers/runs/:runId/close',
    permission: 'admin',
    body: 'none',
    validate: { params: validateWorkerRunParams },
    handler: ({ params }, ctx) => stopRun(ctx, params.runId.toLowerCase(), true),
  }),

  // The worker's side.
  route<Record<string, string>, Record<string, never>, ClaimBody>({
    method: 'POST',
    path: '/v1/workers/claim',
    permission: 'worker',
    validate: { body: validateClaimBody },
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
          evals: runKey === null ? null : { key: { keyHash: hashKey(secret, runKey), keyPrefix: shownPrefix(runKey) }, createdBy: actorOf(p) },
        });
        if (claim && gone) {
          // Nobody is there to run it: hand it back at once rather than let the lease expire (a loss).
          // An eval run cannot go back to the queue: it fails now as it would at the lease's end.
          wait.cancel();
          if (claim.kind === 'eval') {
            const ended = await store.run('releaseWorkerEval', { scope: workerScope(p), runId: claim.eval_run.id, leaseId: claim.lease_id });
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
  route<LeaseParams>({
    method: 'POST',
    path: '/v1/workers/leases/:leaseId/heartbeat',
    permission: 'worker',
    body: 'none',
    validate: { params: validateLeaseParams },
    async handler({ params }, ctx) {
      const scope = workerScope(ctx.principal);
      const leaseMs = ctx.services.workers.settings.leaseMs;
      const evalRun = await evalOfLease(ctx, params.leaseId);
      const beat = evalRun
        ? await ctx.services.store.run('heartbeatWorkerEval', { scope, runId: evalRun, leaseId: params.leaseId, leaseMs })
        : await ctx.services.store.run('heartbeatWorkerTurn', { scope, leaseId: params.leaseId, leaseMs });
      if (beat.worker) ctx.services.workers.heardFrom(ctx.principal.tenantId, beat.worker);
      return data(beat);
    },
  }),
  route<LeaseParams, Record<string, never>, Buffer>({
    method: 'POST',
    path: '/v1/workers/leases/:leaseId/events',
    permission: 'worker',
    // A `WorkerEventsBody`, checked on a compute thread (ingest/workerEvents.ts): up to 1,000 agent
    // events against the session contract are too much work for the HTTP thread.
    body: 'raw',
    validate: { params: validateLeaseParams },
    async handler({ params, body, headers }, ctx) {
      const { batch } = await ctx.services.compute.run('prepareWorkerEvents', { body, contentType: headers['content-type'] });
      const out = await ctx.services.store.run('appendWorkerEvents', { scope: workerScope(ctx.principal), leaseId: params.leaseId, batch });
      if (out.stored.length > 0 && ctx.services.workers.watched(out.run_id)) ctx.services.workers.tell(out.run_id, { type: 'events', events: out.stored.map(eventView) });
      return data({ stored: out.stored.length, cancel: out.cancel });
    },
  }),
  route<LeaseParams, Record<string, never>, CompleteBody>({
    method: 'POST',
    path: '/v1/workers/leases/:leaseId/complete',
    permission: 'worker',
    validate: { params: validateLeaseParams, body: validateCompleteBody },
    async handler({ params, body }, ctx) {
      const p = ctx.principal;
      const evalRun = await evalOfLease(ctx, params.leaseId);
      if (evalRun) {
        const error = body.error ?? null;
        const { kind } = checkEvalEnd({ status: body.status, reason: body.reason, exitCode: body.exit_code ?? null, card: body.card ?? null, error });
        const ended = await ctx.services.store.run('endWorkerEval', {
          scope: workerScope(p),
          runId: evalRun,
          leaseId: params.leaseId,
          end: kind === 'complete' ? { kind, card: JSON.stringify(body.card), error: null, costUsd: body.cost_usd ?? null } : { kind, card: null, error, costUsd: null },
        });
        for (const hash of ended.revokedKeyHashes) ctx.services.auth.forget(hash);
        return data(ended.run);
      }
      // A turn's outcome is the agent's exit and the checkpoint; a card and a cost are an eval run's.
      const evalOnly = (['card', 'cost_usd'] as const).filter((k) => body[k] != null);
      if (evalOnly.length > 0) throw validationError('body', Object.fromEntries(evalOnly.map((k) => [k, 'only for the lease of an eval run'])));
      const turn = await ctx.services.store.run('completeWorkerTurn', {
        scope: workerScope(p),
        leaseId: params.leaseId,
        end: { status: body.status, reason: body.reason, exitCode: body.exit_code ?? null, error: body.error ?? null, commitSha: body.commit_sha ?? null, headCommit: body.head_commit ?? null },
      });
      // Traced before the answer: once a worker has reported a turn, its trace is readable.
      await ctx.services.workers.trace(turn.run_id, p.tenantId);
      const after = await ctx.services.store.run('getWorkerRun', { scope: { ...workerScope(p), environmentId: null }, id: turn.run_id });
      return data(after?.turns.find((t) => t.turn_index === turn.turn_index) ?? turn);
    },
  }),
  route<LeaseParams>({
    method: 'POST',
    path: '/v1/workers/leases/:leaseId/release',
    permission: 'worker',
    body: 'none',
    validate: { params: validateLeaseParams },
    async handler({ params }, ctx) {
      const p = ctx.principal;
      const evalRun = await evalOfLease(ctx, params.leaseId);
      if (evalRun) {
        // An eval run has no way back to the queue: handed back, it fails (`worker stopped`).
        const ended = await ctx.services.store.run('releaseWorkerEval', { scope: workerScope(p), runId: evalRun, leaseId: params.leaseId });
        for (const hash of ended.revokedKeyHashes) ctx.services.auth.forget(hash);
        return data(ended.run);
      }
      const turn = await ctx.services.store.run('releaseWorkerTurn', { scope: workerScope(p), leaseId: params.leaseId });
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
