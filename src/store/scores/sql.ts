/** The SQL conditions of a score selection. */
import type { DuckDBValue } from '@duckdb/node-api';
import { SCORE_RESOURCE_ID_SQL } from '../../core/filter/schema.js';
import type { EqualityColumn, ScoreSelection } from '../../core/scores/selection.js';
import { scopeSql, type ReadScope } from '../scope.js';
import { TS_PARAM } from '../sql.js';

/** Scope, window and equalities as `WHERE` conditions over the alias `s`; parameters are pushed onto `params`. */
export function whereOf(scope: ReadScope, selection: ScoreSelection, params: DuckDBValue[]): string {
  const s = scopeSql(scope, 's');
  params.push(...s.params);
  const conditions = [s.sql];
  if (selection.fromMs !== null) {
    params.push(selection.fromMs);
    conditions.push(`s.created_at >= ${TS_PARAM(params.length)}`);
  }
  if (selection.toMs !== null) {
    params.push(selection.toMs);
    conditions.push(`s.created_at < ${TS_PARAM(params.length)}`);
  }
  for (const { column, value } of selection.equals) {
    params.push(value);
    conditions.push(`${columnSql(column)} = $${params.length}`);
  }
  return conditions.join(' AND ');
}

/** `column` is one of core/scores/selection's fixed set, never caller text. */
function columnSql(column: EqualityColumn): string {
  return column === 'resource_id' ? SCORE_RESOURCE_ID_SQL : `s.${column}`;
}
