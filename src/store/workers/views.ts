/**
 * Worker runs and turns as the API shows them, and the SQL that reads them. A run's status is not
 * stored: it follows from its kind, whether it is open and its latest turn (core/workers/turns.ts,
 * `runStatus`; RUN_STATUS_SQL says the same in SQL, for the list's filter).
 */
import type { DuckDBValue } from '@duckdb/node-api';
import type { EventKind } from '../../core/workers/thread.js';
import { runStatus, type EndReason, type RunKind, type RunStatus, type TurnStatus } from '../../core/workers/turns.js';
import type { Database, Transaction } from '../db.js';
import { scopeSql, type ReadScope } from '../scope.js';
import { iso } from '../sql.js';

export interface WorkerTurnView {
  run_id: string;
  turn_index: number;
  prompt: string;
  status: TurnStatus;
  /** Claims of the turn so far; the events of the current (or last) claim carry this number. */
  attempt: number;
  /** Leases of the turn that expired (a turn fails once they reach the server's attempts). */
  lost_leases: number;
  /** The worker holding (or that last held) the turn. */
  worker: string | null;
  cancel_requested: boolean;
  reason: EndReason | null;
  exit_code: number | null;
  error: string | null;
  /** The checkpoint commit pushed to the run's work branch after the turn; null when nothing changed. */
  commit_sha: string | null;
  /** USD from the price table over the agent's reported usage (the traced spans' cost). */
  cost_usd: number | null;
  input_tokens: number | null;
  output_tokens: number | null;
  tool_calls: number | null;
  created_at: string;
  started_at: string | null;
  finished_at: string | null;
  lease_expires_at: string | null;
}

export interface WorkerRunView {
  id: string;
  kind: RunKind;
  status: RunStatus;
  environment_id: string;
  title: string | null;
  profile: string;
  repository: string;
  base_branch: string;
  base_commit: string | null;
  /** `tracelake/<run id>`: every checkpoint is pushed there. */
  work_branch: string;
  /** The workspace's commit after the last ended turn. */
  head_commit: string | null;
  /** The run's trace (its session id is the run's id). */
  trace_id: string;
  /** Sessions: whether it takes turns. */
  open: boolean;
  turn_count: number;
  /** The turns' costs added up. */
  cost_usd: number;
  latest_turn: WorkerTurnView;
  created_at: string;
  created_by: string | null;
  closed_at: string | null;
}

export interface WorkerRunDetail extends WorkerRunView {
  turns: WorkerTurnView[];
}

/** Columns of a turn: SQL expression and the view's field. */
const TURN_COLUMNS: readonly [string, keyof WorkerTurnView][] = [
  ['t.run_id::VARCHAR', 'run_id'],
  ['t.turn_index', 'turn_index'],
  ['t.prompt', 'prompt'],
  ['t.status', 'status'],
  ['t.attempt', 'attempt'],
  ['t.lost_leases', 'lost_leases'],
  ['t.worker', 'worker'],
  ['t.cancel_requested', 'cancel_requested'],
  ['t.reason', 'reason'],
  ['t.exit_code', 'exit_code'],
  ['t.error', 'error'],
  ['t.commit_sha', 'commit_sha'],
  ['t.cost_usd::DOUBLE', 'cost_usd'],
  ['t.input_tokens::DOUBLE', 'input_tokens'],
  ['t.output_tokens::DOUBLE', 'output_tokens'],
  ['t.tool_calls', 'tool_calls'],
  [iso('t.created_at'), 'created_at'],
  [iso('t.started_at'), 'started_at'],
  [iso('t.finished_at'), 'finished_at'],
  [iso('t.lease_expires_at'), 'lease_expires_at'],
];

export const TURN_FIELDS = TURN_COLUMNS.map(([e, a]) => `${e} AS ${a}`).join(', ');
/** The turn's columns again, each prefixed `t_`, to read a run and its latest turn in one row. */
const LATEST_FIELDS = TURN_COLUMNS.map(([e, a]) => `${e} AS t_${a}`).join(', ');

/** The same rule as core/workers/turns.ts `runStatus`, over `r` (the run) and `t` (its latest turn). */
export const RUN_STATUS_SQL = `CASE WHEN r.kind = 'oneshot' OR t.status IN ('queued', 'running') THEN t.status WHEN r.open THEN 'idle' ELSE 'closed' END`;

const RUN_FIELDS = `r.id::VARCHAR AS id, r.kind, r.environment_id::VARCHAR AS environment_id, r.title, r.profile, r.repository, r.base_branch, r.base_commit, r.work_branch,
  r.head_commit, r.trace_id, r.open, agg.turn_count, coalesce(agg.cost, 0)::DOUBLE AS cost_usd, ${iso('r.created_at')} AS created_at, r.created_by,
  ${iso('r.closed_at')} AS closed_at`;

/** Runs with their figures and latest turn (`t`), scoped; `where` and `params` continue the scope's. */
function runsFrom(scope: ReadScope): { from: string; where: string; params: DuckDBValue[] } {
  const s = scopeSql(scope, 'r');
  return {
    from: `worker_runs r
      JOIN (SELECT run_id, max(turn_index) AS last, count(*)::INTEGER AS turn_count, sum(cost_usd) AS cost
              FROM worker_turns WHERE tenant_id = $1 AND app_id = $2 GROUP BY run_id) agg ON agg.run_id = r.id
      JOIN worker_turns t ON t.run_id = r.id AND t.turn_index = agg.last`,
    where: s.sql,
    params: s.params,
  };
}

type TurnRow = WorkerTurnView;
type RunRow = Omit<WorkerRunView, 'status' | 'latest_turn'>;

function runOf(row: Record<string, unknown>): WorkerRunView {
  const turn = {} as Record<string, unknown>;
  const run = {} as Record<string, unknown>;
  for (const [k, v] of Object.entries(row)) {
    if (k.startsWith('t_')) turn[k.slice(2)] = v;
    else run[k] = v;
  }
  const latest = turn as unknown as TurnRow;
  const r = run as unknown as RunRow;
  return { ...r, status: runStatus(r.kind, r.open, latest.status), latest_turn: latest };
}

export async function readRuns(
  db: Database | Transaction,
  scope: ReadScope,
  q: { id?: string; kind?: RunKind; status?: RunStatus; environmentId?: string; limit: number; offset: number },
): Promise<{ data: WorkerRunView[]; total: number }> {
  const { from, where: scoped, params } = runsFrom(scope);
  let where = scoped;
  const p = [...params];
  if (q.id !== undefined) where += ` AND r.id = $${p.push(q.id)}`;
  if (q.kind !== undefined) where += ` AND r.kind = $${p.push(q.kind)}`;
  if (q.environmentId !== undefined) where += ` AND r.environment_id = $${p.push(q.environmentId)}`;
  if (q.status !== undefined) where += ` AND ${RUN_STATUS_SQL} = $${p.push(q.status)}`;
  const [rows, [count]] = await Promise.all([
    db.query(
      `SELECT ${RUN_FIELDS}, ${LATEST_FIELDS} FROM ${from} WHERE ${where} ORDER BY r.created_at DESC, r.id LIMIT $${p.length + 1} OFFSET $${p.length + 2}`,
      [...p, q.limit, q.offset],
    ),
    db.query<{ n: number }>(`SELECT count(*)::INTEGER AS n FROM ${from} WHERE ${where}`, p),
  ]);
  return { data: rows.map(runOf), total: count?.n ?? 0 };
}

export async function readRun(
  db: Database | Transaction,
  scope: ReadScope,
  id: string,
): Promise<WorkerRunDetail | null> {
  const [run] = (await readRuns(db, scope, { id, limit: 1, offset: 0 })).data;
  if (!run) return null;
  return { ...run, turns: await readTurns(db, id) };
}

export async function readTurns(
  db: Database | Transaction,
  runId: string,
  turnIndex?: number,
): Promise<WorkerTurnView[]> {
  const params: DuckDBValue[] = [runId];
  const one = turnIndex === undefined ? '' : ` AND t.turn_index = $${params.push(turnIndex)}`;
  return db.query<WorkerTurnView>(
    `SELECT ${TURN_FIELDS} FROM worker_turns t WHERE t.run_id = $1${one} ORDER BY t.turn_index`,
    params,
  );
}

/** A stored event as readers get it. */
export interface WorkerEventView {
  cursor: number;
  turn_index: number;
  attempt: number;
  seq: number;
  at: string;
  kind: EventKind;
  text: string | null;
  level: 'info' | 'error' | null;
  event: Record<string, unknown> | null;
}

/** A stored event with its agent event still JSON text (`eventView` parses it). */
export type WorkerEventRow = Omit<WorkerEventView, 'event'> & { event: string | null };
export const eventView = (r: WorkerEventRow): WorkerEventView => ({
  ...r,
  event: r.event === null ? null : (JSON.parse(r.event) as Record<string, unknown>),
});
