/**
 * Filter AST → a boolean SQL expression with bound parameters only: values (and metadata paths)
 * are always placeholders `$n`, and the only SQL text a field selects comes from the schema table.
 *
 * Relations: `spans` filters run over a span row `x`; `traces` filters over a trace-summary row `t`
 * (span-level fields become `EXISTS (SELECT 1 FROM spans x WHERE <same trace> AND (...))`: a trace
 * matches when ANY of its spans matches, for every operator, negations included); `scores` filters
 * over a score row `s`.
 *
 * Semantics:
 * - String operators are case-sensitive (`contains()`, `starts_with()`, `ends_with()`; never LIKE,
 *   so `%` and `_` in values are plain characters). Enum values are matched in their canonical
 *   spelling, which the checks give them whatever case they were written in.
 * - NULL matches no comparison: `model != 'x'`, `model not contains 'x'` and `model not in (...)`
 *   match only rows that have a model other than those. Absence is tested with `exists` (IS NOT
 *   NULL) and `does not exist` (IS NULL); combine them in an OR-group for "other or none".
 * - `tags` (a list; NULL counts as empty): `contains`/`=` = has the tag, `in` = has any of them,
 *   `not contains`/`!=`/`not in` = has none of them, `exists` = has at least one tag.
 * - `metadata.<key>`: of a span on span filters, of the trace (its root span's) on trace filters;
 *   `any_span.metadata.<key>` on trace filters is the "any span" form. The value is compared as text (`json_extract_string`, so the number 3 is
 *   "3" and true is "true"); `exists` = the key is present (even with a JSON null value). The path
 *   `$."key"` is a bound parameter too.
 * - Date-times are ISO 8601 in the filter; span and trace times are compared as BIGINT
 *   nanoseconds, score `created_at` through `make_timestamp(µs)`. `between` is inclusive.
 */
import { isGroup, type Filter, type Op, type Predicate, type Resource, type Scalar } from './ast.js';
import { isoToNs } from './datetime.js';
import { checkFilter } from './json.js';
import { resolveField, type FieldDef } from './schema.js';

/** A bound value: a filter's scalar, a time in nanoseconds or microseconds, or a metadata path. */
export type FilterParam = Scalar | bigint;

/** A filter as SQL; the store compiles it into its statements (store/filterSql.ts). */
export interface CompiledFilter {
  sql: string;
  params: FilterParam[];
}

type Bind = (value: FilterParam) => string;

/**
 * Compiles `filter` for `resource`, numbering placeholders from `$firstParam`. The filter is
 * checked again first (fields, operators, values, limits); an empty filter is `TRUE`.
 */
export function compileFilter(filter: Filter, resource: Resource, firstParam: number): CompiledFilter {
  const checked = checkFilter(filter, resource);
  if (checked.length === 0) return { sql: 'TRUE', params: [] };
  const params: FilterParam[] = [];
  const bind: Bind = (value) => `$${firstParam + params.push(value) - 1}`;
  const one = (p: Predicate) => `(${predicateSql(p, resource, bind)})`;
  const sql = checked.map((c) => (isGroup(c) ? `(${c.or.map(one).join(' OR ')})` : one(c))).join(' AND ');
  return { sql, params };
}

function predicateSql(p: Predicate, resource: Resource, bind: Bind): string {
  const { def, key } = resolveField(resource, p.field);
  const sql =
    def.type === 'metadata'
      ? metadataSql(def.sql, key as string, p, bind)
      : def.type === 'string_list'
        ? listSql(def.sql, p, bind)
        : compare(
            def.sql,
            p.op,
            values(p).map((v) => param(def, v, bind)),
          );
  return def.level === 'span'
    ? `EXISTS (SELECT 1 FROM spans x WHERE x.tenant_id = t.tenant_id AND x.app_id = t.app_id AND x.trace_id = t.id AND (${sql}))`
    : sql;
}

function values(p: Predicate): Scalar[] {
  return p.value === undefined ? [] : Array.isArray(p.value) ? p.value : [p.value];
}

/** A placeholder for one value, in the column's representation. */
function param(def: FieldDef, v: Scalar, bind: Bind): string {
  if (def.type !== 'datetime') return bind(v);
  const ns = isoToNs(v as string) as bigint; // checked
  return def.time === 'timestamp' ? `make_timestamp(${bind(ns / 1000n)}::BIGINT)` : bind(ns);
}

/** A scalar column (or expression) against placeholders `ph`. */
function compare(c: string, op: Op, ph: string[]): string {
  const [a, b] = ph;
  switch (op) {
    case 'equals':
      return `${c} = ${a}`;
    case 'notEquals':
      return `${c} <> ${a}`;
    case 'gt':
      return `${c} > ${a}`;
    case 'gte':
      return `${c} >= ${a}`;
    case 'lt':
      return `${c} < ${a}`;
    case 'lte':
      return `${c} <= ${a}`;
    case 'contains':
      return `contains(${c}, ${a})`;
    case 'notContains':
      return `NOT contains(${c}, ${a})`;
    case 'startsWith':
      return `starts_with(${c}, ${a})`;
    case 'endsWith':
      return `ends_with(${c}, ${a})`;
    case 'in':
      return `${c} IN (${ph.join(', ')})`;
    case 'notIn':
      return `${c} NOT IN (${ph.join(', ')})`;
    case 'between':
      return `${c} BETWEEN ${a} AND ${b}`;
    case 'exists':
      return `${c} IS NOT NULL`;
    case 'doesNotExist':
      return `${c} IS NULL`;
  }
}

function listSql(column: string, p: Predicate, bind: Bind): string {
  const list = `coalesce(${column}, []::VARCHAR[])`;
  const ph = values(p).map(bind);
  switch (p.op) {
    case 'equals':
    case 'contains':
      return `list_contains(${list}, ${ph[0]})`;
    case 'notEquals':
    case 'notContains':
      return `NOT list_contains(${list}, ${ph[0]})`;
    case 'in':
      return `list_has_any(${list}, [${ph.join(', ')}])`;
    case 'notIn':
      return `NOT list_has_any(${list}, [${ph.join(', ')}])`;
    case 'exists':
      return `len(${list}) > 0`;
    default: // doesNotExist; the checks allow no other operator on a list
      return `len(${list}) = 0`;
  }
}

function metadataSql(column: string, key: string, p: Predicate, bind: Bind): string {
  const path = bind(`$."${key}"`);
  if (p.op === 'exists') return `coalesce(json_exists(${column}, ${path}), false)`;
  if (p.op === 'doesNotExist') return `NOT coalesce(json_exists(${column}, ${path}), false)`;
  return compare(`json_extract_string(${column}, ${path})`, p.op, values(p).map(bind));
}
