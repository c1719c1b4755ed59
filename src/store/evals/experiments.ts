/**
 * Experiments and their figures, computed by DuckDB from the trials' score rows: per run (resolved
 * rate, mean cost, mean and p95 duration, trial and task counts) and per task between a baseline and
 * a candidate run. A task's result in a run is its last attempt's `eval.trial.resolved`; its cost
 * and duration add up all its attempts (a retry costs money and time too). A trial whose score rows
 * were deleted no longer counts.
 *
 * The SQL is exported as text and parameters so that native-bench/evals runs exactly this on a raw
 * DuckDB connection.
 */
import type { DuckDBValue } from '@duckdb/node-api';
import { listValue } from '../duckdb.js';
import { OUTCOMES, type Outcome, type PairAggregates } from '../../core/evals/comparison.js';
import type { RunStatus } from '../../core/evals/runState.js';
import type { Database } from '../db.js';
import type { Page } from '../spans/reads.js';
import { scopeSql, type ReadScope } from '../scope.js';
import { iso } from '../sql.js';

export interface Sql {
  sql: string;
  params: DuckDBValue[];
}

/** The per-task results of the runs `$runs` (a UUID list at parameter `runsParam`), as a CTE body. */
function taskResultsSql(scope: ReadScope, runsParam: (n: number) => string): Sql {
  const s = scopeSql(scope, 't');
  return {
    sql: `SELECT t.run_id, t.task_id,
                 arg_max(rs.score, t.attempt) AS resolved,
                 sum(cs.score::DECIMAL(38, 12)) AS cost_usd,
                 sum(ds.score) AS duration_ms,
                 count(*) AS trials
            FROM eval_trials t
            JOIN scores rs ON rs.id = t.resolved_score_id
            JOIN scores cs ON cs.id = t.cost_score_id
            JOIN scores ds ON ds.id = t.duration_score_id
           WHERE ${s.sql} AND ${runsParam(s.params.length + 1)}
           GROUP BY t.run_id, t.task_id`,
    params: s.params,
  };
}

/** The headline figures of each run named. */
export function runFiguresSql(scope: ReadScope, runIds: string[]): Sql {
  const tasks = taskResultsSql(scope, (n) => `list_contains($${n}::UUID[], t.run_id)`);
  return {
    sql: `WITH tasks AS (${tasks.sql})
          SELECT run_id::VARCHAR AS run_id, count(*)::INTEGER AS task_count, sum(trials)::INTEGER AS trial_count,
                 avg(resolved)::DOUBLE AS resolved_rate, round(avg(cost_usd), 10)::DOUBLE AS mean_cost_usd,
                 round(sum(cost_usd), 10)::DOUBLE AS total_cost_usd,
                 avg(duration_ms)::DOUBLE AS mean_duration_ms, quantile_cont(duration_ms, 0.95)::DOUBLE AS p95_duration_ms
            FROM tasks GROUP BY run_id`,
    params: [...tasks.params, listValue(runIds)],
  };
}

export interface RunFigures {
  task_count: number;
  trial_count: number;
  resolved_rate: number | null;
  mean_cost_usd: number | null;
  total_cost_usd: number | null;
  mean_duration_ms: number | null;
  p95_duration_ms: number | null;
}

const NO_FIGURES: RunFigures = {
  task_count: 0,
  trial_count: 0,
  resolved_rate: null,
  mean_cost_usd: null,
  total_cost_usd: null,
  mean_duration_ms: null,
  p95_duration_ms: null,
};

export async function runFigures(db: Database, scope: ReadScope, runIds: string[]): Promise<Map<string, RunFigures>> {
  if (runIds.length === 0) return new Map();
  const q = runFiguresSql(scope, runIds);
  const rows = await db.query<RunFigures & { run_id: string }>(q.sql, q.params);
  return new Map(rows.map(({ run_id, ...f }) => [run_id, f]));
}

/** The figures of each run named, empty ones for a run without trials. */
export async function figuresByRun(
  db: Database,
  scope: ReadScope,
  runIds: string[],
): Promise<Record<string, RunFigures>> {
  const found = await runFigures(db, scope, runIds);
  return Object.fromEntries(runIds.map((id) => [id, found.get(id) ?? NO_FIGURES]));
}

/** A run as an experiment lists it: what identifies it, and its figures. */
export interface ExperimentRun extends RunFigures {
  id: string;
  status: RunStatus;
  suite: string;
  suite_version: string | null;
  git_commit: string | null;
  git_branch: string | null;
  /** What the worker reported for the whole run. */
  cost_usd: number | null;
  created_at: string;
  finished_at: string | null;
}

export interface ExperimentView {
  id: string;
  name: string;
  created_at: string;
  /** The pinned baseline, when the reader can see it. */
  baseline_run_id: string | null;
  run_count: number;
}

/**
 * The experiment (in the app) and its runs in the reader's scope, oldest first; null when it has
 * none in scope. `withFigures` false leaves the figures empty (the baseline endpoint needs two runs'
 * figures, not every run's).
 */
export async function experimentRuns(
  db: Database,
  scope: ReadScope,
  experimentId: string,
  withFigures = true,
): Promise<{ experiment: ExperimentView; runs: (ExperimentRun & { createdMs: number })[] } | null> {
  const s = scopeSql(scope, 'r');
  const n = s.params.length;
  const runs = await db.query<Omit<ExperimentRun, keyof RunFigures> & { createdMs: number }>(
    `SELECT r.id, r.status, r.suite, r.suite_version, r.git_commit, r.git_branch, r.cost_usd::DOUBLE AS cost_usd,
            ${iso('r.created_at')} AS created_at, ${iso('r.finished_at')} AS finished_at, epoch_ms(r.created_at)::DOUBLE AS "createdMs"
       FROM eval_runs r WHERE ${s.sql} AND r.experiment_id = $${n + 1} ORDER BY r.created_at, r.id`,
    [...s.params, experimentId],
  );
  if (runs.length === 0) return null;
  const [[x], figures] = await Promise.all([
    db.query<Omit<ExperimentView, 'run_count'>>(
      `SELECT x.id, x.name, ${iso('x.created_at')} AS created_at, b.run_id AS baseline_run_id
         FROM experiments x LEFT JOIN experiment_baselines b ON b.experiment_id = x.id WHERE x.tenant_id = $1 AND x.app_id = $2 AND x.id = $3`,
      [scope.tenantId, scope.appId, experimentId],
    ),
    withFigures
      ? runFigures(
          db,
          scope,
          runs.map((r) => r.id),
        )
      : new Map<string, RunFigures>(),
  ]);
  const visible = runs.some((r) => r.id === x!.baseline_run_id) ? x!.baseline_run_id : null;
  return {
    experiment: { ...x!, baseline_run_id: visible, run_count: runs.length },
    runs: runs.map((r) => ({ ...r, ...(figures.get(r.id) ?? NO_FIGURES) })),
  };
}

export interface ExperimentSummary extends ExperimentView {
  latest_run: ExperimentRun | null;
}

/** Experiments with runs in the reader's scope, most recently run first, each with its latest run's figures. */
export async function listExperiments(
  db: Database,
  scope: ReadScope,
  limit: number,
  offset: number,
): Promise<Page<ExperimentSummary>> {
  const s = scopeSql(scope, 'r');
  const n = s.params.length;
  const rows = await db.query<ExperimentView & { latest_run_id: string; total: number }>(
    `WITH runs AS (SELECT r.id, r.experiment_id, r.created_at FROM eval_runs r WHERE ${s.sql}),
          per AS (SELECT experiment_id, count(*)::INTEGER AS run_count, arg_max(id, created_at)::VARCHAR AS latest_run_id, max(created_at) AS last_run_at
                    FROM runs GROUP BY experiment_id)
     SELECT x.id, x.name, ${iso('x.created_at')} AS created_at, per.run_count, per.latest_run_id,
            (SELECT b.run_id FROM experiment_baselines b WHERE b.experiment_id = x.id AND b.run_id IN (SELECT id FROM runs)) AS baseline_run_id,
            (count(*) OVER ())::INTEGER AS total
       FROM experiments x JOIN per ON per.experiment_id = x.id
      WHERE x.tenant_id = $1 AND x.app_id = $2
      ORDER BY per.last_run_at DESC, x.id LIMIT $${n + 1} OFFSET $${n + 2}`,
    [...s.params, limit, offset],
  );
  const latest = new Map(
    (
      await experimentRunsById(
        db,
        scope,
        rows.map((r) => r.latest_run_id),
      )
    ).map((r) => [r.id, r]),
  );
  const total =
    rows[0]?.total ??
    (offset > 0
      ? ((
          await db.query<{ n: number }>(
            `SELECT count(DISTINCT r.experiment_id)::INTEGER AS n FROM eval_runs r WHERE ${s.sql}`,
            s.params,
          )
        )[0]?.n ?? 0)
      : 0);
  return {
    data: rows.map(({ latest_run_id, total: _t, ...x }) => ({ ...x, latest_run: latest.get(latest_run_id) ?? null })),
    total,
  };
}

async function experimentRunsById(db: Database, scope: ReadScope, ids: string[]): Promise<ExperimentRun[]> {
  if (ids.length === 0) return [];
  const s = scopeSql(scope, 'r');
  const runs = await db.query<Omit<ExperimentRun, keyof RunFigures>>(
    `SELECT r.id, r.status, r.suite, r.suite_version, r.git_commit, r.git_branch, r.cost_usd::DOUBLE AS cost_usd,
            ${iso('r.created_at')} AS created_at, ${iso('r.finished_at')} AS finished_at
       FROM eval_runs r WHERE ${s.sql} AND list_contains($${s.params.length + 1}::UUID[], r.id)`,
    [...s.params, listValue(ids)],
  );
  const figures = await runFigures(db, scope, ids);
  return runs.map((r) => ({ ...r, ...(figures.get(r.id) ?? NO_FIGURES) }));
}

/** The experiment of a run in scope; null when the run is not in scope. */
export async function experimentOfRun(db: Database, scope: ReadScope, runId: string): Promise<string | null> {
  const s = scopeSql(scope, 'r');
  const [row] = await db.query<{ experiment_id: string }>(
    `SELECT r.experiment_id FROM eval_runs r WHERE ${s.sql} AND r.id = $${s.params.length + 1}`,
    [...s.params, runId],
  );
  return row?.experiment_id ?? null;
}

/** The two statements of a comparison: the per-task pairs, and their aggregates. */
export function comparisonSql(
  scope: ReadScope,
  baselineId: string,
  candidateId: string,
): { pairs: Sql; aggregates: Sql } {
  const tasks = taskResultsSql(scope, (n) => `t.run_id IN ($${n}::UUID, $${n + 1}::UUID)`);
  const n = tasks.params.length;
  const pairs = `WITH tasks AS (${tasks.sql}),
    b AS (SELECT * FROM tasks WHERE run_id = $${n + 1}::UUID),
    c AS (SELECT * FROM tasks WHERE run_id = $${n + 2}::UUID),
    pairs AS (
      SELECT coalesce(b.task_id, c.task_id) AS task_id,
             CASE WHEN b.task_id IS NULL THEN 'only_candidate' WHEN c.task_id IS NULL THEN 'only_baseline'
                  WHEN b.resolved = 1 AND c.resolved = 1 THEN 'both_resolved' WHEN c.resolved = 1 THEN 'fixed'
                  WHEN b.resolved = 1 THEN 'regressed' ELSE 'both_failed' END AS outcome,
             b.resolved AS br, c.resolved AS cr, b.cost_usd AS bc, c.cost_usd AS cc, b.duration_ms AS bd, c.duration_ms AS cd
        FROM b FULL JOIN c ON b.task_id = c.task_id)`;
  const params = [...tasks.params, baselineId, candidateId];
  const paired = `outcome NOT IN ('only_baseline', 'only_candidate')`;
  return {
    // The per-task table is written as JSON by DuckDB itself: a thousand rows cross the thread
    // boundary and the HTTP answer as one string instead of a thousand objects.
    pairs: {
      sql: `${pairs}
            SELECT coalesce(to_json(list(json_object(
                     'task_id', task_id, 'outcome', outcome, 'baseline_resolved', br = 1, 'candidate_resolved', cr = 1,
                     'baseline_cost_usd', round(bc, 10)::DOUBLE, 'candidate_cost_usd', round(cc, 10)::DOUBLE,
                     'baseline_duration_ms', bd::DOUBLE, 'candidate_duration_ms', cd::DOUBLE) ORDER BY task_id)), '[]')::VARCHAR AS per_task
              FROM pairs`,
      params,
    },
    aggregates: {
      sql: `${pairs}
            SELECT ${OUTCOMES.map((o) => `(count(*) FILTER (WHERE outcome = '${o}'))::INTEGER AS ${o}`).join(', ')},
                   (avg(bc) FILTER (WHERE ${paired}))::DOUBLE AS bc_mean, (avg(cc) FILTER (WHERE ${paired}))::DOUBLE AS cc_mean,
                   (avg(cc - bc) FILTER (WHERE ${paired}))::DOUBLE AS c_diff, (stddev_samp((cc - bc)::DOUBLE) FILTER (WHERE ${paired}))::DOUBLE AS c_sd,
                   (avg(bd) FILTER (WHERE ${paired}))::DOUBLE AS bd_mean, (avg(cd) FILTER (WHERE ${paired}))::DOUBLE AS cd_mean,
                   (avg(cd - bd) FILTER (WHERE ${paired}))::DOUBLE AS d_diff, (stddev_samp(cd - bd) FILTER (WHERE ${paired}))::DOUBLE AS d_sd
              FROM pairs`,
      params,
    },
  };
}

type AggregateRow = Record<Outcome, number> &
  Record<'bc_mean' | 'cc_mean' | 'c_diff' | 'c_sd' | 'bd_mean' | 'cd_mean' | 'd_diff' | 'd_sd', number | null>;
/** The aggregates of the pairs for core/evals/comparison.ts to finish, and the per-task table as JSON text (TaskPair[]). */
export async function compareRuns(
  db: Database,
  scope: ReadScope,
  baselineId: string,
  candidateId: string,
): Promise<{ aggregates: PairAggregates; perTaskJson: string; figures: Record<string, RunFigures> }> {
  const q = comparisonSql(scope, baselineId, candidateId);
  const [pairs, [agg], figures] = await Promise.all([
    db.query<{ per_task: string }>(q.pairs.sql, q.pairs.params),
    db.query<AggregateRow>(q.aggregates.sql, q.aggregates.params),
    figuresByRun(db, scope, [baselineId, candidateId]),
  ]);
  const a = agg!;
  return {
    figures,
    aggregates: {
      counts: Object.fromEntries(OUTCOMES.map((o) => [o, a[o]])) as Record<Outcome, number>,
      cost: { baselineMean: a.bc_mean, candidateMean: a.cc_mean, diffMean: a.c_diff, diffSd: a.c_sd },
      duration: { baselineMean: a.bd_mean, candidateMean: a.cd_mean, diffMean: a.d_diff, diffSd: a.d_sd },
    },
    perTaskJson: pairs[0]!.per_task,
  };
}

/** Pins `runId` (a succeeded run of the experiment in scope) as the baseline, or removes the pin. */
export async function pinBaseline(
  db: Database,
  scope: ReadScope,
  experimentId: string,
  runId: string | null,
  by: string,
): Promise<'pinned' | 'unpinned' | 'no_experiment' | 'no_run' | { notSucceeded: RunStatus }> {
  const [x] = await db.query('SELECT 1 FROM experiments WHERE tenant_id = $1 AND app_id = $2 AND id = $3', [
    scope.tenantId,
    scope.appId,
    experimentId,
  ]);
  if (!x) return 'no_experiment';
  if (runId === null) {
    await db.exec('DELETE FROM experiment_baselines WHERE tenant_id = $1 AND app_id = $2 AND experiment_id = $3', [
      scope.tenantId,
      scope.appId,
      experimentId,
    ]);
    return 'unpinned';
  }
  const s = scopeSql(scope, 'r');
  const [run] = await db.query<{ status: RunStatus }>(
    `SELECT r.status FROM eval_runs r WHERE ${s.sql} AND r.id = $${s.params.length + 1} AND r.experiment_id = $${s.params.length + 2}`,
    [...s.params, runId, experimentId],
  );
  if (!run) return 'no_run';
  if (run.status !== 'succeeded') return { notSucceeded: run.status };
  await db.exec(
    `INSERT INTO experiment_baselines (experiment_id, tenant_id, app_id, run_id, pinned_at, pinned_by) VALUES ($1, $2, $3, $4, now()::TIMESTAMP, $5)
     ON CONFLICT (experiment_id) DO UPDATE SET run_id = excluded.run_id, pinned_at = excluded.pinned_at, pinned_by = excluded.pinned_by`,
    [experimentId, scope.tenantId, scope.appId, runId, by],
  );
  return 'pinned';
}
