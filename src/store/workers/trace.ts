/**
 * What tracing a run needs from the store (core/workers/thread.ts builds the session from it), and
 * the figures of its turns once traced.
 */
import type { FiguredTurn, StoredEvent, TracedRun, TurnFigures } from '../../core/workers/thread.js';
import type { Database } from '../db.js';
import { iso } from '../sql.js';
import { tenantLockKey, workerLock } from './runs.js';

export interface TraceInputs {
  scope: { tenantId: string; appId: string; environmentId: string };
  /** The tenant's plan (its agents tier applies to the trace). */
  plan: string;
  /**
   * The run, its turns and their events as one JSON text (`RunTraceText`), for a compute thread to
   * parse: as objects, a long run's events would be rebuilt on the HTTP thread on their way through
   * it, holding every other request up (native-bench/RESULTS.md, "endTurn").
   */
  text: string;
}

/** `TraceInputs.text`: the agent events and steps of every turn's last attempt, each event as the JSON text it is stored as. */
export interface RunTraceText {
  run: TracedRun;
  turns: FiguredTurn[];
  events: (Omit<StoredEvent, 'event'> & { event: string | null })[];
}

export async function traceInputs(db: Database, runId: string): Promise<TraceInputs | null> {
  const [run] = await db.query<{
    tenant_id: string;
    app_id: string;
    environment_id: string;
    plan: string;
    profile: string;
    title: string | null;
    created_at: string;
    closed_at: string | null;
    kind: string;
    repository: string;
    work_branch: string;
    head_commit: string | null;
    created_by: string | null;
  }>(
    `SELECT r.tenant_id::VARCHAR AS tenant_id, r.app_id::VARCHAR AS app_id, r.environment_id::VARCHAR AS environment_id, t.plan, r.profile, r.title,
            ${iso('r.created_at')} AS created_at, ${iso('r.closed_at')} AS closed_at, r.kind, r.repository, r.work_branch, r.head_commit, r.created_by
       FROM worker_runs r JOIN tenants t ON t.id = r.tenant_id WHERE r.id = $1`,
    [runId],
  );
  if (!run) return null;
  const turns = await db.query<FiguredTurn>(
    `SELECT turn_index AS "index", prompt, ${iso('created_at')} AS "createdAt", status, attempt, ${iso('finished_at')} AS "finishedAt", reason, error,
            commit_sha AS "commitSha", cost_usd IS NOT NULL AS figured
       FROM worker_turns WHERE run_id = $1 ORDER BY turn_index`,
    [runId],
  );
  const events = await db.query<RunTraceText['events'][number]>(
    `SELECT e.turn_index AS "turnIndex", e.attempt, e.seq, ${iso('e.seen_at')} AS "at", e.kind, e.text, e.level, e.event
       FROM worker_events e JOIN worker_turns t ON t.run_id = e.run_id AND t.turn_index = e.turn_index AND t.attempt = e.attempt
      WHERE e.run_id = $1 AND e.kind IN ('agent', 'step') ORDER BY e.turn_index, e.seq`,
    [runId],
  );
  // A one-shot run ends with its turn; a session when it is closed.
  const oneshotEnd = run.kind === 'oneshot' ? (turns[0]?.finishedAt ?? null) : null;
  const traced: TracedRun = {
    id: runId,
    agent: run.profile,
    title: run.title,
    createdAt: run.created_at,
    endedAt: run.closed_at ?? oneshotEnd,
    repository: run.repository,
    workBranch: run.work_branch,
    headCommit: run.head_commit,
    createdBy: run.created_by,
  };
  const text = JSON.stringify({ run: traced, turns, events } satisfies RunTraceText);
  return {
    scope: { tenantId: run.tenant_id, appId: run.app_id, environmentId: run.environment_id },
    plan: run.plan,
    text,
  };
}

/** Records the figures of ended turns that have none yet; answers the turn indexes it set. */
export async function recordFigures(
  db: Database,
  tenantId: string,
  runId: string,
  figures: (TurnFigures & { turnIndex: number })[],
): Promise<number[]> {
  if (figures.length === 0) return [];
  return workerLock.run(tenantLockKey(tenantId), () =>
    db.transaction(async (tx) => {
      const set: number[] = [];
      for (const f of figures) {
        const rows = await tx.query(
          `UPDATE worker_turns SET cost_usd = $3::DECIMAL(38, 12), input_tokens = $4, output_tokens = $5, tool_calls = $6
            WHERE run_id = $1 AND turn_index = $2 AND cost_usd IS NULL AND finished_at IS NOT NULL RETURNING turn_index`,
          [runId, f.turnIndex, f.costUsd, f.inputTokens, f.outputTokens, f.toolCalls],
        );
        if (rows.length > 0) set.push(f.turnIndex);
      }
      return set;
    }),
  );
}

/** The tenant and app of a run (the lease sweep tells its watchers). */
export async function runScope(db: Database, runId: string): Promise<{ tenantId: string; appId: string } | null> {
  const [row] = await db.query<{ tenantId: string; appId: string }>(
    'SELECT tenant_id::VARCHAR AS "tenantId", app_id::VARCHAR AS "appId" FROM worker_runs WHERE id = $1',
    [runId],
  );
  return row ?? null;
}
