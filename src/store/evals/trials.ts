/**
 * Trials at rest. A batch is stored in one transaction, under the run's lock (so it cannot slip
 * past the run's completion): each new trial's row, its three score rows (source `eval`, in the
 * scores table, where the experiment figures are computed from) and its artifact blob. A trial
 * already stored with the same content is accepted again and stores nothing (a retried batch); one
 * stored with other content is rejected.
 */
import { listValue } from '../duckdb.js';
import { acceptsTrials } from '../../core/evals/runState.js';
import { TRIAL_SCORES, trialResource, type PreparedTrial, type TrialRejection } from '../../core/evals/trials.js';
import { ApiError } from '../../core/errors.js';
import { RERUN_ON_CONFLICT, type AppendValue, type Database } from '../db.js';
import { SCORE_COLUMNS, storedResourceId } from '../scores/scores.js';
import type { ColumnKind } from '../spans/columns.js';
import { storeBlobs } from '../spans/blobs.js';
import type { Page } from '../spans/reads.js';
import { scopeSql, type ReadScope } from '../scope.js';
import { iso } from '../sql.js';
import { runInScope, runLock } from './runs.js';

/** The columns of `eval_trials` in table order (migration 400): rows are appended positionally. */
const TRIAL_COLUMNS = [
  ['id', 'uuid'],
  ['tenant_id', 'uuid'],
  ['app_id', 'uuid'],
  ['environment_id', 'uuid'],
  ['run_id', 'uuid'],
  ['task_id', 'text'],
  ['attempt', 'int'],
  ['trace_id', 'text'],
  ['session_id', 'text'],
  ['artifact_sha256', 'text'],
  ['metadata', 'text'],
  ['content_hash', 'text'],
  ['resolved_score_id', 'uuid'],
  ['cost_score_id', 'uuid'],
  ['duration_score_id', 'uuid'],
  ['created_at', 'text'],
] as const satisfies readonly (readonly [string, ColumnKind])[];

const TRIAL_KINDS: ColumnKind[] = TRIAL_COLUMNS.map(([, kind]) => kind);
const SCORE_KINDS: ColumnKind[] = SCORE_COLUMNS.map(([, kind]) => kind);

/** The spec's eval trial result. */
export interface TrialResult {
  /** Ids of the trials stored, by this batch or (a retry) before it, in batch order. */
  accepted: string[];
  rejected: TrialRejection[];
  /** Artifact blobs this batch stored (an artifact the app had already is not stored again). */
  blobsStored: number;
  /** Score rows this batch stored: three per new trial. */
  scoreRows: number;
}

export interface NewTrials {
  scope: ReadScope;
  runId: string;
  trials: PreparedTrial[];
  /** `key:<id>` or the principal kind, kept on the score rows. */
  createdBy: string;
}

/** `2026-11-21 12:00:00.123`: a TIMESTAMP literal in UTC. */
function timestampText(ms: number): string {
  return new Date(ms).toISOString().replace('T', ' ').replace('Z', '');
}

export async function insertTrials(db: Database, n: NewTrials): Promise<TrialResult> {
  return runLock.run(`run:${n.runId}`, () =>
    db.transaction(async (tx) => {
      const run = await runInScope(tx, n.scope, n.runId);
      if (!run) throw new ApiError('not_found', `Eval run ${n.runId} not found`);
      acceptsTrials(run.status);
      const stored = new Map(
        (
          await tx.query<{ id: string; content_hash: string }>(
            'SELECT id, content_hash FROM eval_trials WHERE run_id = $1 AND list_contains($2::VARCHAR[], id::VARCHAR)',
            [n.runId, listValue(n.trials.map((t) => t.id))],
          )
        ).map((r) => [r.id, r.content_hash]),
      );
      const accepted: { index: number; id: string }[] = [];
      const rejected: TrialRejection[] = [];
      const fresh: PreparedTrial[] = [];
      for (const t of n.trials) {
        const before = stored.get(t.id);
        if (before === undefined) fresh.push(t);
        else if (before !== t.contentHash) {
          rejected.push({
            index: t.index,
            reason: `task "${t.taskId}" attempt ${t.attempt} is already stored with other results; report a new attempt instead`,
            sessionId: t.sessionId,
          });
          continue;
        }
        accepted.push({ index: t.index, id: t.id });
      }
      const now = timestampText(Date.now());
      const base = { tenant_id: n.scope.tenantId, app_id: n.scope.appId, environment_id: run.environment_id };
      if (fresh.length === 0)
        return {
          accepted: accepted.sort((a, b) => a.index - b.index).map((a) => a.id),
          rejected,
          blobsStored: 0,
          scoreRows: 0,
        };
      await tx.append(
        'eval_trials',
        TRIAL_KINDS,
        fresh.map((t) => {
          const row: Record<string, AppendValue> = {
            ...base,
            id: t.id,
            run_id: n.runId,
            task_id: t.taskId,
            attempt: t.attempt,
            trace_id: t.traceId,
            session_id: t.sessionId,
            artifact_sha256: t.artifactSha256,
            metadata: t.metadataJson,
            content_hash: t.contentHash,
            resolved_score_id: t.scoreIds.resolved,
            cost_score_id: t.scoreIds.cost,
            duration_score_id: t.scoreIds.duration,
            created_at: now,
          };
          return TRIAL_COLUMNS.map(([name]) => row[name] ?? null);
        }),
      );
      await tx.append(
        'scores',
        SCORE_KINDS,
        fresh.flatMap((t) => scoreRows(t, base, now, n.createdBy)),
      );
      const blobsStored = await storeBlobs(
        tx,
        fresh.map((t) => ({
          tenantId: base.tenant_id,
          appId: base.app_id,
          environmentId: base.environment_id,
          sha256: t.artifactSha256,
          mediaType: 'application/json',
          data: Buffer.from(t.artifactJson, 'utf8'),
        })),
      );
      return {
        accepted: accepted.sort((a, b) => a.index - b.index).map((a) => a.id),
        rejected,
        blobsStored,
        scoreRows: fresh.length * 3,
      };
      // Runs again when another run's trials (or spans) stored one of its artifacts at once.
    }, RERUN_ON_CONFLICT),
  );
}

/** The trial's three score rows, values in SCORE_COLUMNS order. */
function scoreRows(
  t: PreparedTrial,
  base: { tenant_id: string; app_id: string; environment_id: string },
  now: string,
  createdBy: string,
): AppendValue[][] {
  const resource = trialResource(t);
  const common = {
    ...base,
    label: null,
    reason: null,
    source: 'eval',
    user_id: null,
    resource_id: storedResourceId(resource.resourceType, resource.resourceId),
    resource_type: resource.resourceType,
    trace_id: resource.traceId,
    session_id: resource.sessionId,
    config_id: null,
    created_at: now,
    created_by: createdBy,
  };
  const scores: [string, string, number, 'BOOLEAN' | 'NUMERIC'][] = [
    [t.scoreIds.resolved, TRIAL_SCORES.resolved, t.resolved ? 1 : 0, 'BOOLEAN'],
    [t.scoreIds.cost, TRIAL_SCORES.cost, t.costUsd, 'NUMERIC'],
    [t.scoreIds.duration, TRIAL_SCORES.duration, t.durationMs, 'NUMERIC'],
  ];
  return scores.map(([id, name, score, dataType]) => {
    const row: Record<string, AppendValue> = { ...common, id, name, score, data_type: dataType };
    return SCORE_COLUMNS.map(([column]) => row[column] ?? null);
  });
}

/** A trial as the API lists it: what it was, its figures from its score rows, where its artifact is. */
export interface TrialView {
  id: string;
  task_id: string;
  attempt: number;
  resolved: boolean | null;
  cost_usd: number | null;
  duration_ms: number | null;
  trace_id: string | null;
  session_id: string | null;
  artifact_sha256: string;
  metadata: Record<string, unknown> | null;
  created_at: string;
}

/** Trials of a run in scope, by task and attempt; null when the run is not in scope. */
export async function listTrials(
  db: Database,
  scope: ReadScope,
  runId: string,
  limit: number,
  offset: number,
): Promise<Page<TrialView> | null> {
  const s = scopeSql(scope, 't');
  const run = scopeSql(scope, 'r');
  const [found] = await db.query(`SELECT 1 FROM eval_runs r WHERE ${run.sql} AND r.id = $${run.params.length + 1}`, [
    ...run.params,
    runId,
  ]);
  if (!found) return null;
  const n = s.params.length;
  const where = `${s.sql} AND t.run_id = $${n + 1}`;
  const [rows, [count]] = await Promise.all([
    db.query<Omit<TrialView, 'metadata' | 'resolved'> & { metadata: string | null; resolved: number | null }>(
      `SELECT t.id, t.task_id, t.attempt, rs.score AS resolved, cs.score AS cost_usd, ds.score AS duration_ms, t.trace_id, t.session_id,
              t.artifact_sha256, t.metadata, ${iso('t.created_at')} AS created_at
         FROM eval_trials t
         LEFT JOIN scores rs ON rs.id = t.resolved_score_id LEFT JOIN scores cs ON cs.id = t.cost_score_id LEFT JOIN scores ds ON ds.id = t.duration_score_id
        WHERE ${where} ORDER BY t.task_id, t.attempt LIMIT $${n + 2} OFFSET $${n + 3}`,
      [...s.params, runId, limit, offset],
    ),
    db.query<{ n: number }>(`SELECT count(*)::INTEGER AS n FROM eval_trials t WHERE ${where}`, [...s.params, runId]),
  ]);
  return {
    data: rows.map((r) => ({
      ...r,
      resolved: r.resolved === null ? null : r.resolved === 1,
      metadata: r.metadata === null ? null : (JSON.parse(r.metadata) as Record<string, unknown>),
    })),
    total: count?.n ?? 0,
  };
}
