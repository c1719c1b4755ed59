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
  type CreateRunBody,
  type RunListQuery,
  type EvalRunParams,
  type StatusBody,
  type TrialListQuery,
  type TrialsBody,
} from '../../contract/evals.js';
import { acceptsTrials, reportKind } from '../../core/evals/runState.js';
import { assertTrialCount, prepareTrials } from '../../core/evals/trials.js';
import { roundUsd } from '../../core/cost/money.js';
import { ApiError } from '../../core/errors.js';
import type { CreatedRun } from '../../contract/responses.js';
import type { TrialResult } from '../../store/evals/trials.js';
import { data, json } from '../reply.js';
import { actorOf, readScopeOf, type Principal } from '../principal.js';
import { route } from '../route.js';

const DEFAULT_PAGE = 50;
/** 1000 trials with their full artifacts do not fit the default JSON body limit. */
const TRIALS_BODY_BYTES = 64 * 1024 * 1024;

/** A run-scoped key reports for its own run only; admin credentials for any run in their scope. */
function assertOwnRun(p: Principal, runId: string): void {
  if (p.runId !== undefined && p.runId !== runId) throw new ApiError('forbidden', `This key reports for eval run ${p.runId}, not ${runId}`);
}

export function evalRoutes(secret: Buffer) {
  return [
    route<Record<string, string>, Record<string, never>, CreateRunBody>({
      method: 'POST',
      path: '/v1/evals/runs',
      permission: 'admin',
      validate: { body: validateCreateRunBody },
      async handler({ body }, ctx) {
        const p = ctx.principal;
        if (p.environmentId === null) throw new ApiError('forbidden', 'Name the environment of the run in X-Service-Environment');
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
        return data({ ...run, api_key: { id: key.id, key_prefix: key.key_prefix, plaintext_key: plaintext, created_at: key.created_at } } satisfies CreatedRun, 201);
      },
    }),
    route<Record<string, string>, RunListQuery>({
      method: 'GET',
      path: '/v1/evals/runs',
      permission: 'experiment.read',
      validate: { query: validateRunListQuery },
      async handler({ query }, ctx) {
        const limit = query.limit ?? DEFAULT_PAGE;
        const offset = query.offset ?? 0;
        const page = await ctx.services.store.run('listEvalRuns', {
          scope: readScopeOf(ctx.principal),
          ...(query.experiment_id ? { experimentId: query.experiment_id.toLowerCase() } : {}),
          ...(query.status ? { status: query.status } : {}),
          limit,
          offset,
        });
        return json({ data: page.data, pagination: { total: page.total, limit, offset } });
      },
    }),
    route<EvalRunParams>({
      method: 'GET',
      path: '/v1/evals/runs/:runId',
      permission: 'experiment.read',
      validate: { params: validateRunParams },
      async handler({ params }, ctx) {
        const run = await ctx.services.store.run('getEvalRun', { scope: readScopeOf(ctx.principal), id: params.runId.toLowerCase() });
        if (!run) throw new ApiError('not_found', `Eval run ${params.runId} not found`);
        return data(run);
      },
    }),
    route<EvalRunParams, TrialListQuery>({
      method: 'GET',
      path: '/v1/evals/runs/:runId/trials',
      permission: 'experiment.read',
      validate: { params: validateRunParams, query: validateTrialListQuery },
      async handler({ params, query }, ctx) {
        const limit = query.limit ?? DEFAULT_PAGE;
        const offset = query.offset ?? 0;
        const page = await ctx.services.store.run('listEvalTrials', { scope: readScopeOf(ctx.principal), runId: params.runId.toLowerCase(), limit, offset });
        if (!page) throw new ApiError('not_found', `Eval run ${params.runId} not found`);
        return json({ data: page.data, pagination: { total: page.total, limit, offset } });
      },
    }),
    route<EvalRunParams, Record<string, never>, StatusBody>({
      method: 'POST',
      path: '/v1/evals/runs/:runId/status',
      permission: 'eval_run',
      validate: { params: validateRunParams, body: validateStatusBody },
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
    route<Record<string, string>, Record<string, never>, TrialsBody>({
      method: 'POST',
      path: '/v1/evals/trials',
      permission: 'eval_run',
      maxBodyBytes: (config) => Math.max(config.maxBodyBytes, TRIALS_BODY_BYTES),
      validate: { body: validateTrialsBody },
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
        const stored = await ctx.services.store.run('insertEvalTrials', { scope: readScopeOf(ctx.principal), runId, trials, createdBy: actorOf(ctx.principal) });
        return data({ ...stored, rejected: [...rejected, ...stored.rejected].sort((a, b) => a.index - b.index) } satisfies TrialResult);
      },
    }),
  ];
}
