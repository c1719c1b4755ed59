/**
 * Eval runs and trials (spec: Evaluations; the state table "Evaluation run"). An admin creates a run
 * and gets its run-scoped key once; a worker holding that key claims the run, reports its trials and
 * completes or fails it (the key is revoked in the same transaction). Admin credentials may report
 * too. Reads need `experiment.read` and are scoped like every read (tenant, app, environment).
 */
import { generateKey, hashKey, shownPrefix } from '../../auth/keys.js';
import {
  validateCreateRunBody,
  validateRunListQuery,
  validateRunParams,
  validateStatusBody,
  validateTrialItem,
  validateTrialListQuery,
  validateTrialsBody,
} from '../../contract/evals.js';
import { acceptsTrials, reportKind } from '../../core/evals/runState.js';
import { assertTrialCount, prepareTrials } from '../../core/evals/trials.js';
import { roundUsd } from '../../core/cost/money.js';
import { ApiError } from '../../core/errors.js';
import type { CreatedRun } from '../../contract/responses.js';
import type { TrialResult } from '../../store/evals/trials.js';
import { data } from '../reply.js';
import { actorOf, readScopeOf, type Principal } from '../principal.js';
import { paged } from '../paged.js';
import { route } from '../route.js';
import { COMMIT, FINISHED_RUN, RUN_EXAMPLE, RUN_ID, RUN_KEY_ID, TRIAL_ID, WORKER } from '../../openapi/evalExamples.js';
import { CREATED, TRACE_ID } from '../../openapi/examples.js';
import { answer, payload } from '../../openapi/note.js';

/** 1000 trials with their full artifacts do not fit the default JSON body limit. */
const TRIALS_BODY_BYTES = 64 * 1024 * 1024;

/** A run-scoped key reports for its own run only; admin credentials for any run in their scope. */
function assertOwnRun(p: Principal, runId: string): void {
  if (p.runId !== undefined && p.runId !== runId)
    throw new ApiError('forbidden', `This key reports for eval run ${p.runId}, not ${runId}`);
}

export function evalRoutes(secret: Buffer) {
  return [
    route({
      method: 'POST',
      path: '/v1/evals/runs',
      permission: 'admin',
      validate: { body: validateCreateRunBody },
      note: {
        tag: 'Evaluations',
        summary: 'Create an eval run',
        description:
          'In the environment the credentials write to (a kind-scoped or unpinned admin names it with `X-Service-Environment`); the experiment is created with its first run. The answer carries the run-scoped key a worker uses to claim the run and report its trials (`api_key.plaintext_key`, in this answer only); the key is revoked when the run ends.',
        headers: { 'X-Service-Environment': 'The environment of the run, for credentials not pinned to one.' },
        body: payload('CreateRunBody', {
          run: {
            experiment: 'checkout-agent',
            suite: 'support-tickets',
            suite_version: '2026-11',
            config: { model: 'gpt-4o', temperature: 0, max_turns: 30 },
            git_commit: COMMIT,
            git_branch: 'main',
          },
        }),
        answers: [
          answer(201, 'CreatedRunAnswer', 'The run, queued, with its key this once.', {
            created: {
              data: {
                ...RUN_EXAMPLE,
                api_key: {
                  id: RUN_KEY_ID,
                  key_prefix: 'sk_service_B',
                  plaintext_key: 'sk_service_B7c8D9e0F1g2H3i4J5k6L7m8N9o0P1q2R3s4T5u6V7w',
                  created_at: CREATED,
                },
              },
            },
          }),
        ],
        errors: [{ status: 403, when: '`forbidden`: not admin credentials, or no environment is named.' }],
      },
      async handler({ body }, ctx) {
        const p = ctx.principal;
        if (p.environmentId === null)
          throw new ApiError('forbidden', 'Name the environment of the run in X-Service-Environment');
        const plaintext = generateKey();
        const { run, key } = await ctx.services.store.run('createEvalRun', {
          scope: { tenantId: p.tenantId, appId: p.appId, environmentId: p.environmentId },
          experiment: body.experiment,
          suite: body.suite,
          suiteVersion: body.suite_version ?? null,
          config: JSON.stringify(body.config ?? {}),
          gitCommit: body.git_commit?.toLowerCase() ?? null,
          gitBranch: body.git_branch ?? null,
          createdBy: actorOf(p),
          key: { keyHash: hashKey(secret, plaintext), keyPrefix: shownPrefix(plaintext) },
        });
        return data(
          {
            ...run,
            api_key: { id: key.id, key_prefix: key.key_prefix, plaintext_key: plaintext, created_at: key.created_at },
          } satisfies CreatedRun,
          201,
        );
      },
    }),
    route({
      method: 'GET',
      path: '/v1/evals/runs',
      permission: 'experiment.read',
      validate: { query: validateRunListQuery },
      note: {
        tag: 'Evaluations',
        summary: 'List eval runs',
        description: "Latest first, in the reader's scope; by experiment or status.",
        query: 'RunListQuery',
        answers: [
          answer(200, 'EvalRunPage', 'A page of runs.', {
            page: { data: [FINISHED_RUN], pagination: { total: 1, limit: 50, offset: 0 } },
          }),
        ],
      },
      async handler({ query }, ctx) {
        return paged(query, (page) =>
          ctx.services.store.run('listEvalRuns', {
            scope: readScopeOf(ctx.principal),
            ...(query.experiment_id ? { experimentId: query.experiment_id.toLowerCase() } : {}),
            ...(query.status ? { status: query.status } : {}),
            ...page,
          }),
        );
      },
    }),
    route({
      method: 'GET',
      path: '/v1/evals/runs/:runId',
      permission: 'experiment.read',
      validate: { params: validateRunParams },
      note: {
        tag: 'Evaluations',
        summary: 'One eval run',
        params: 'EvalRunParams',
        answers: [answer(200, 'EvalRunAnswer', 'The run.', { succeeded: { data: FINISHED_RUN } })],
      },
      async handler({ params }, ctx) {
        const run = await ctx.services.store.run('getEvalRun', {
          scope: readScopeOf(ctx.principal),
          id: params.runId.toLowerCase(),
        });
        if (!run) throw new ApiError('not_found', `Eval run ${params.runId} not found`);
        return data(run);
      },
    }),
    route({
      method: 'GET',
      path: '/v1/evals/runs/:runId/trials',
      permission: 'experiment.read',
      validate: { params: validateRunParams, query: validateTrialListQuery },
      note: {
        tag: 'Evaluations',
        summary: 'The trials of an eval run',
        description:
          'By task and attempt, with the figures of their score rows and the address of their artifact (`GET /v1/agents/blob/{sha256}`).',
        params: 'EvalRunParams',
        query: 'TrialListQuery',
        answers: [
          answer(200, 'EvalTrialPage', 'A page of trials.', {
            page: {
              data: [
                {
                  id: TRIAL_ID,
                  task_id: 'ticket-1042',
                  attempt: 1,
                  resolved: true,
                  cost_usd: 0.0412,
                  duration_ms: 48210,
                  trace_id: TRACE_ID,
                  session_id: null,
                  artifact_sha256: 'c5b2a3f4e9d8c7b6a5f4e3d2c1b0a9f8e7d6c5b4a3f2e1d0c9b8a7f6e5d4c3b2',
                  metadata: { difficulty: 'hard' },
                  created_at: '2026-11-20T09:20:11.480Z',
                },
              ],
              pagination: { total: 52, limit: 50, offset: 0 },
            },
          }),
        ],
      },
      async handler({ params, query }, ctx) {
        return paged(query, async (page) => {
          const trials = await ctx.services.store.run('listEvalTrials', {
            scope: readScopeOf(ctx.principal),
            runId: params.runId.toLowerCase(),
            ...page,
          });
          if (!trials) throw new ApiError('not_found', `Eval run ${params.runId} not found`);
          return trials;
        });
      },
    }),
    route({
      method: 'POST',
      path: '/v1/evals/runs/:runId/status',
      permission: 'eval_run',
      validate: { params: validateRunParams, body: validateStatusBody },
      note: {
        tag: 'Evaluations',
        summary: "Report an eval run's status (worker)",
        description: `A report with neither card nor error claims a queued run (it becomes \`running\`); one with a \`card\` completes it (\`succeeded\`), one with an \`error\` fails it (\`failed\`). \`null\` counts as absent. Ending a run revokes its key. \`costUsd\` is the run's cost as the worker reports it. ${WORKER}`,
        params: 'EvalRunParams',
        body: payload('StatusBody', {
          claim: { card: null, costUsd: null, error: null },
          complete: {
            card: { resolved: 36, tasks: 50, notes: 'Two regressions in refunds.' },
            costUsd: 2.06,
            error: null,
          },
          fail: { card: null, costUsd: 0.41, error: 'The sandbox image could not be pulled' },
        }),
        answers: [
          answer(
            200,
            'EvalRunAnswer',
            'The run after the report (a claim answers its `config`, what a worker needs to start).',
            { completed: { data: FINISHED_RUN } },
          ),
        ],
        errors: [
          { status: 400, when: '`invalid_request_body`: a `card` and an `error` in one report, or a blank `error`.' },
          { status: 403, when: '`forbidden`: a run-scoped key of another run, or credentials that are neither.' },
          {
            status: 409,
            when: "`conflict`, with the run's `status`: the run has ended (any report), is already claimed (a second claim), or is not claimed yet (complete, fail).",
          },
        ],
      },
      async handler({ params, body }, ctx) {
        const runId = params.runId.toLowerCase();
        assertOwnRun(ctx.principal, runId);
        const kind = reportKind(body);
        const changed = await ctx.services.store.run('reportEvalStatus', {
          scope: readScopeOf(ctx.principal),
          runId,
          kind,
          card: kind === 'complete' ? JSON.stringify(body.card) : null,
          error: kind === 'fail' ? body.error! : null,
          costUsd: body.costUsd === undefined || body.costUsd === null ? null : roundUsd(body.costUsd),
        });
        if (!changed) throw new ApiError('not_found', `Eval run ${params.runId} not found`);
        for (const hash of changed.revokedKeyHashes) ctx.services.auth.forget(hash);
        return data(changed.run);
      },
    }),
    route({
      method: 'POST',
      path: '/v1/evals/trials',
      permission: 'eval_run',
      maxBodyBytes: (config) => Math.max(config.maxBodyBytes, TRIALS_BODY_BYTES),
      validate: { body: validateTrialsBody },
      note: {
        tag: 'Evaluations',
        summary: 'Report trials of an eval run (worker)',
        description: `1 to 1000 trials of a running run. Each is checked on its own: a malformed one is in \`rejected\` and the rest is stored, each with three score rows (\`eval.trial.resolved\`, \`eval.trial.cost_usd\`, \`eval.trial.duration_ms\`) and its artifact as a blob. Ids derive from run, task and attempt, so a retried batch stores nothing twice. The body limit is 64 MiB. ${WORKER}`,
        body: payload('EvalTrialsRequest', {
          two: {
            evalRunId: RUN_ID,
            schemaVersion: 1,
            trials: [
              {
                taskId: 'ticket-1042',
                attempt: 1,
                resolved: true,
                costUsd: 0.0412,
                durationMs: 48210,
                traceId: TRACE_ID,
                artifact: { patch: 'diff --git a/src/cart/total.ts b/src/cart/total.ts\n…' },
                metadata: { difficulty: 'hard' },
              },
              {
                taskId: 'ticket-1043',
                resolved: false,
                costUsd: 0.0388,
                durationMs: 61002,
                sessionId: 'session-7d1e',
                artifact: { transcript: 'Could not reproduce.' },
              },
            ],
          },
        }),
        answers: [
          answer(200, 'EvalTrialsAnswer', 'What was stored and what was rejected.', {
            partly: {
              data: {
                accepted: [TRIAL_ID],
                rejected: [{ index: 1, reason: 'costUsd: expected number & Minimum<0>', sessionId: 'session-7d1e' }],
                blobsStored: 1,
                scoreRows: 3,
              },
            },
          }),
        ],
        errors: [
          { status: 400, when: '`invalid_request_body`: not the envelope, or no trials.' },
          { status: 403, when: '`forbidden`: a run-scoped key of another run, or credentials that are neither.' },
          { status: 404, when: '`not_found`: no such run in scope.' },
          {
            status: 409,
            when: "`conflict`, with the run's `status`: the run is not running (not claimed yet, or ended).",
          },
          { status: 413, when: 'More than 1000 trials, or a body over 64 MiB.' },
        ],
      },
      async handler({ body }, ctx) {
        const runId = body.evalRunId.toLowerCase();
        assertOwnRun(ctx.principal, runId);
        assertTrialCount(body.trials.length);
        const { trials, rejected } = prepareTrials(runId, body.trials, validateTrialItem);
        if (trials.length === 0) {
          // Nothing to store, but the run must still exist and take trials: a batch of only bad trials
          // for a closed run is told the run is closed.
          const run = await ctx.services.store.run('getEvalRun', { scope: readScopeOf(ctx.principal), id: runId });
          if (!run) throw new ApiError('not_found', `Eval run ${body.evalRunId} not found`);
          acceptsTrials(run.status);
          return data({ accepted: [], rejected, blobsStored: 0, scoreRows: 0 } satisfies TrialResult);
        }
        const stored = await ctx.services.store.run('insertEvalTrials', {
          scope: readScopeOf(ctx.principal),
          runId,
          trials,
          createdBy: actorOf(ctx.principal),
        });
        return data({
          ...stored,
          rejected: [...rejected, ...stored.rejected].sort((a, b) => a.index - b.index),
        } satisfies TrialResult);
      },
    }),
  ];
}
