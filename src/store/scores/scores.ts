/**
 * Scores at rest: the batch insert (one transaction, all or nothing), reads by id, lists, search,
 * names and aggregations. Every query starts from the caller's scope, then the selection, then the
 * user filter (compiled here, its parameters numbered after the selection's).
 */
import { randomUUID } from 'node:crypto';
import type { DuckDBValue } from '@duckdb/node-api';
import { toCsv } from '../../core/csv.js';
import type { Filter } from '../../core/filter/index.js';
import { SCORE_RESOURCE_ID_SQL } from '../../core/filter/schema.js';
import type { ItemOutcome } from '../../core/scores/batch.js';
import { finalizeScore } from '../../core/scores/config.js';
import type { PreparedScore } from '../../core/scores/item.js';
import type { DataType, ResourceType, Source } from '../../core/scores/model.js';
import { resolveResource } from '../../core/scores/resource.js';
import type { AggregationPlan, ScoreAggregation, ScoreSelection } from '../../core/scores/selection.js';
import type { AppendValue, Database } from '../db.js';
import type { ColumnKind } from '../spans/columns.js';
import { scopeSql, type ReadScope } from '../scope.js';
import { configRules } from './configs.js';
import type { SegmentStore } from '../spans/segmentStore.js';
import { lookupResources } from './resources.js';
import { whereOf } from './sql.js';
import { filterSql } from '../filterSql.js';
import { iso } from '../sql.js';

/** The columns of `scores` in table order (migration 100): rows are appended positionally. */
export const SCORE_COLUMNS = [
  ['id', 'uuid'],
  ['tenant_id', 'uuid'],
  ['app_id', 'uuid'],
  ['environment_id', 'uuid'],
  ['name', 'text'],
  ['score', 'double'],
  ['data_type', 'text'],
  ['label', 'text'],
  ['reason', 'text'],
  ['source', 'text'],
  ['user_id', 'text'],
  ['resource_id', 'text'],
  ['resource_type', 'text'],
  ['trace_id', 'text'],
  ['session_id', 'text'],
  ['config_id', 'uuid'],
  // TIMESTAMP, appended as text that DuckDB casts.
  ['created_at', 'text'],
  ['created_by', 'text'],
] as const satisfies readonly (readonly [string, ColumnKind])[];

const KINDS: ColumnKind[] = SCORE_COLUMNS.map(([, kind]) => kind);

/**
 * The `resource_id` a score row keeps: a span score's span id; none for a trace or session score,
 * whose resource is its `trace_id` or `session_id` (read back by SCORE_RESOURCE_ID_SQL). A copy of
 * a 32-character trace id in every trace score was 18 bytes a score on disk.
 */
export function storedResourceId(type: ResourceType, resourceId: string): string | null {
  return type === 'span' ? resourceId : null;
}

/** A score as the API shows it (spec: Score, plus what a score is attached to and how it was judged). */
export interface ScoreView {
  id: string;
  name: string;
  score: number;
  data_type: DataType;
  label: string | null;
  reason: string | null;
  source: Source;
  user_id: string | null;
  // Stored for span scores only; reads give it back with SCORE_RESOURCE_ID_SQL.
  /** The id of what was scored: the trace's, the span's or the session's. */
  resource_id: string;
  resource_type: ResourceType;
  trace_id: string | null;
  session_id: string | null;
  config_id: string | null;
  environment_id: string | null;
  created_at: string;
}

export const SCORE_CSV_COLUMNS: readonly (keyof ScoreView)[] = [
  'id',
  'name',
  'score',
  'data_type',
  'label',
  'reason',
  'source',
  'user_id',
  'resource_id',
  'resource_type',
  'trace_id',
  'session_id',
  'config_id',
  'environment_id',
  'created_at',
];

const VIEW_FIELDS = `s.id, s.name, s.score, s.data_type, s.label, s.reason, s.source, s.user_id, ${SCORE_RESOURCE_ID_SQL} AS resource_id, s.resource_type,
  s.trace_id, s.session_id, s.config_id, s.environment_id, ${iso('s.created_at')} AS created_at`;

export interface InsertScores {
  scope: ReadScope;
  /** The environment the caller writes to (its pin, or the one it selected). */
  writeEnvironmentId: string | null;
  items: PreparedScore[];
  /** `key:<id>` or the principal kind; kept on the row, not shown. */
  createdBy: string;
  /** Test only (TRACELAKE_FAULT_INJECTION): make the insert fail after the rows were appended. */
  fault: boolean;
}

export interface InsertedScores {
  /** One per item, in any order. */
  outcomes: ItemOutcome[];
  /** The stored scores (none when the insert failed). */
  scores: ScoreView[];
  /** Why the insert failed; then nothing was stored. */
  insertFailed: string | null;
}

/**
 * Judges each prepared item against its name's config and the resource it names, then stores every
 * item that passed in one transaction: either all of them are stored or none is.
 */
export async function insertScores(db: Database, segments: SegmentStore, input: InsertScores): Promise<InsertedScores> {
  const { scope, items } = input;
  const [configs, lookup] = await Promise.all([
    configRules(db, scope, [...new Set(items.map((i) => i.name))]),
    lookupResources(db, segments, scope, items, input.writeEnvironmentId),
  ]);
  const now = Date.now();
  const createdAt = new Date(now).toISOString();
  const outcomes: ItemOutcome[] = [];
  const rows: AppendValue[][] = [];
  const scores: ScoreView[] = [];
  for (const item of items) {
    const final = finalizeScore(item, configs.get(item.name) ?? null);
    if (!final.ok) {
      outcomes.push({ index: item.index, error: final.error });
      continue;
    }
    const resource = resolveResource(item, lookup, scope.environmentId);
    if (!resource.ok) {
      outcomes.push({ index: item.index, error: resource.error });
      continue;
    }
    const view: ScoreView = {
      id: randomUUID(),
      name: item.name,
      score: final.value.score,
      data_type: final.value.dataType,
      label: final.value.label,
      reason: item.reason,
      source: item.source,
      user_id: item.userId,
      resource_id: resource.value.resourceId,
      resource_type: resource.value.resourceType,
      trace_id: resource.value.traceId,
      session_id: resource.value.sessionId,
      config_id: final.value.configId,
      environment_id: resource.value.environmentId,
      created_at: createdAt,
    };
    outcomes.push({ index: item.index, id: view.id });
    scores.push(view);
    rows.push([
      view.id,
      scope.tenantId,
      scope.appId,
      view.environment_id,
      view.name,
      view.score,
      view.data_type,
      view.label,
      view.reason,
      view.source,
      view.user_id,
      storedResourceId(view.resource_type, view.resource_id),
      view.resource_type,
      view.trace_id,
      view.session_id,
      view.config_id,
      timestampText(now),
      input.createdBy,
    ]);
  }
  if (rows.length === 0) return { outcomes, scores, insertFailed: null };
  try {
    await db.transaction(async (tx) => {
      await tx.append('scores', KINDS, rows);
      // The injected fault is a real constraint violation in the same transaction, so the appended
      // rows are rolled back by DuckDB exactly as on any other failed insert.
      if (input.fault) {
        await tx.exec(
          `INSERT INTO scores (id, tenant_id, app_id, name, score, data_type, source, resource_type, created_at)
           VALUES (gen_random_uuid(), $1, $2, 'injected fault', 0, 'INJECTED', 'api', 'trace', now()::TIMESTAMP)`,
          [scope.tenantId, scope.appId],
        );
      }
    });
  } catch (e) {
    return { outcomes, scores: [], insertFailed: (e as Error).message };
  }
  return { outcomes, scores, insertFailed: null };
}

/** `2026-11-21 12:00:00.123`: a TIMESTAMP literal in UTC. */
function timestampText(ms: number): string {
  return new Date(ms).toISOString().replace('T', ' ').replace('Z', '');
}

export type ScoreAnswer =
  | { kind: 'json'; data: ScoreView[]; total: number }
  | { kind: 'csv'; csv: string; total: number };

export interface ScorePage {
  scope: ReadScope;
  selection: ScoreSelection;
  limit: number;
  offset: number;
  sortBy: 'created_at' | 'score' | 'name';
  sortOrder: 'asc' | 'desc';
  format: 'json' | 'csv';
}

/** A page of scores, newest first unless asked otherwise, with the total that matched. */
export async function listScores(db: Database, q: ScorePage, filter: Filter = []): Promise<ScoreAnswer> {
  const params: DuckDBValue[] = [];
  const where = `${whereOf(q.scope, q.selection, params)} AND (${filterSql(filter, 'scores', params)})`;
  const dir = q.sortOrder === 'asc' ? 'ASC' : 'DESC';
  const [rows, [count]] = await Promise.all([
    db.query<ScoreView>(
      `SELECT ${VIEW_FIELDS} FROM scores s WHERE ${where} ORDER BY s.${q.sortBy} ${dir}, s.created_at ${dir}, s.id ${dir}
        LIMIT $${params.length + 1} OFFSET $${params.length + 2}`,
      [...params, q.limit, q.offset],
    ),
    db.query<{ n: number }>(`SELECT count(*)::DOUBLE AS n FROM scores s WHERE ${where}`, params),
  ]);
  const total = count?.n ?? 0;
  return q.format === 'csv'
    ? { kind: 'csv', csv: toCsv(SCORE_CSV_COLUMNS, rows as unknown as Record<string, unknown>[]), total }
    : { kind: 'json', data: rows, total };
}

export async function getScore(db: Database, scope: ReadScope, id: string): Promise<ScoreView | null> {
  const s = scopeSql(scope, 's');
  const [row] = await db.query<ScoreView>(
    `SELECT ${VIEW_FIELDS} FROM scores s WHERE ${s.sql} AND s.id = $${s.params.length + 1}`,
    [...s.params, id],
  );
  return row ?? null;
}

/** Deletes one score; the deleted score, or null when none of that id is in scope. */
export async function deleteScore(db: Database, scope: ReadScope, id: string): Promise<ScoreView | null> {
  const s = scopeSql(scope, 's');
  const [row] = await db.query<ScoreView>(
    `DELETE FROM scores AS s WHERE ${s.sql} AND s.id = $${s.params.length + 1} RETURNING ${VIEW_FIELDS}`,
    [...s.params, id],
  );
  return row ?? null;
}

/** The distinct score names in scope, sorted. */
export async function scoreNames(db: Database, scope: ReadScope): Promise<string[]> {
  const s = scopeSql(scope, 's');
  const rows = await db.query<{ name: string }>(
    `SELECT DISTINCT s.name FROM scores s WHERE ${s.sql} ORDER BY s.name`,
    s.params,
  );
  return rows.map((r) => r.name);
}

/**
 * Count, mean, minimum and maximum of `score` per name over the plan's window and equalities and
 * the user filter. The benchmark runs this same function against the same file.
 */
export async function aggregateScores(
  db: Database,
  scope: ReadScope,
  plan: AggregationPlan,
  filter: Filter = [],
): Promise<ScoreAggregation[]> {
  const params: DuckDBValue[] = [];
  const where = `${whereOf(scope, plan, params)} AND (${filterSql(filter, 'scores', params)})`;
  return db.query<ScoreAggregation>(
    `SELECT s.name, count(*)::DOUBLE AS count, avg(s.score)::DOUBLE AS avg_score, min(s.score) AS min_score, max(s.score) AS max_score
       FROM scores s WHERE ${where} GROUP BY s.${plan.groupBy} ORDER BY s.${plan.groupBy}`,
    params,
  );
}
