/**
 * The caller's filter in a store statement. The AST arrives as data from the HTTP thread and is
 * compiled here, after the statement has bound its scope and window, so its placeholders continue
 * the statement's own numbering and nobody outside the store counts them.
 */
import type { DuckDBValue } from '@duckdb/node-api';
import { compileFilter, type Filter, type Resource } from '../core/filter/index.js';

/** `filter` over `resource` as a boolean SQL expression; its values go onto `params`, numbered after those there. */
export function filterSql(filter: Filter, resource: Resource, params: DuckDBValue[]): string {
  const compiled = compileFilter(filter, resource, params.length + 1);
  params.push(...compiled.params);
  return compiled.sql;
}
