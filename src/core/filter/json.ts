/**
 * The structured filters of the search bodies (spec: POST /v1/traces/search). typia checks their
 * shape at the HTTP edge; this re-checks every limit and the semantics, so the core never trusts
 * its caller, and turns them into the same AST as the string grammar. The compiler walks ASTs
 * through `checkFilter`, the same walk with the AST's `op` key.
 */
import { LIMITS, OPS, type Clause, type Filter, type Op, type Predicate, type Resource } from './ast.js';
import { checkPredicate, filterError } from './check.js';

/** Checks `filters` (the `filters` array of a search body) for `resource`; throws `ApiError('invalid_filter')`. */
export function validateJsonFilters(filters: unknown, resource: Resource): Filter {
  return walk(filters, resource, 'operator', 'filters');
}

/** Checks an AST built by hand (or by another process) before it is compiled. */
export function checkFilter(filter: unknown, resource: Resource): Filter {
  return walk(filter, resource, 'op', 'filter');
}

type OpKey = 'operator' | 'op';

function walk(input: unknown, resource: Resource, opKey: OpKey, root: string): Filter {
  if (!Array.isArray(input)) filterError(root, 'expected an array of predicates and OR-groups');
  if (input.length > LIMITS.max_filters)
    filterError(root, `at most ${LIMITS.max_filters} items are allowed, got ${input.length}`);
  let count = 0;
  const counted = (where: string) => {
    if (++count > LIMITS.max_predicates)
      filterError(
        where,
        `too many predicates: at most ${LIMITS.max_predicates} are allowed, counting OR-group members`,
      );
  };
  return input.map((item: unknown, i): Clause => {
    const at = `${root}[${i}]`;
    if (!isObject(item) || !('or' in item)) {
      counted(at);
      return predicate(item, at, resource, opKey);
    }
    unexpectedKeys(item, ['or'], at);
    const members = item.or;
    if (!Array.isArray(members)) filterError(`${at}.or`, 'expected an array of predicates');
    if (members.length === 0) filterError(`${at}.or`, 'an OR-group holds at least 1 predicate');
    return {
      or: members.map((m: unknown, j) => {
        const where = `${at}.or[${j}]`;
        if (isObject(m) && 'or' in m) filterError(where, 'OR-groups do not nest');
        counted(where);
        return predicate(m, where, resource, opKey);
      }),
    };
  });
}

function predicate(item: unknown, at: string, resource: Resource, opKey: OpKey): Predicate {
  if (!isObject(item)) filterError(at, `expected a predicate {field, ${opKey}, value} or an OR-group {or: [...]}`);
  // `position` is the parser's own annotation of an AST; it carries no meaning here.
  unexpectedKeys(item, opKey === 'op' ? ['field', 'op', 'value', 'position'] : ['field', 'operator', 'value'], at);
  const { field, value } = item;
  const op = item[opKey];
  if (typeof field !== 'string' || field.length < LIMITS.field_length.min || field.length > LIMITS.field_length.max) {
    filterError(
      `${at}.field`,
      `a field is a string of ${LIMITS.field_length.min} to ${LIMITS.field_length.max} characters`,
    );
  }
  if (!OPS.includes(op as Op))
    filterError(`${at}.${opKey}`, `unknown operator ${JSON.stringify(op)}; expected one of ${OPS.join(', ')}`);
  return checkPredicate(
    { field, op: op as Op, value },
    {
      resource,
      dialect: 'json',
      locate: (part, n) =>
        part === 'field'
          ? `${at}.field`
          : part === 'op'
            ? `${at}.${opKey}`
            : n === undefined
              ? `${at}.value`
              : `${at}.value[${n}]`,
    },
  );
}

function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

function unexpectedKeys(item: Record<string, unknown>, allowed: string[], at: string): void {
  const extra = Object.keys(item).find((k) => !allowed.includes(k));
  if (extra !== undefined) filterError(at, `unexpected property ${JSON.stringify(extra)}`);
}
