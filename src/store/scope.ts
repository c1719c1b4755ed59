/**
 * The caller's scope as SQL: every store query starts from it, before anything the caller asked
 * for (a user filter is numbered after it, see filterSql.ts).
 */
import type { DuckDBValue } from '@duckdb/node-api';

export interface ReadScope {
  tenantId: string;
  appId: string;
  /** Pinned keys see their environment only; null sees the whole app. */
  environmentId: string | null;
}

/** `WHERE` conditions for a scope, with parameters numbered from `$1`. */
export function scopeSql(scope: ReadScope, alias = ''): { sql: string; params: DuckDBValue[] } {
  const p = alias ? `${alias}.` : '';
  return scope.environmentId === null
    ? { sql: `${p}tenant_id = $1 AND ${p}app_id = $2`, params: [scope.tenantId, scope.appId] }
    : {
        sql: `${p}tenant_id = $1 AND ${p}app_id = $2 AND ${p}environment_id = $3`,
        params: [scope.tenantId, scope.appId, scope.environmentId],
      };
}
