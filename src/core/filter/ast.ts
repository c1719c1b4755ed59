/**
 * The filter AST shared by the string grammar, the JSON filters, the printer and the SQL compiler.
 * A filter is an AND of clauses; a clause is one predicate or an OR-group of predicates (groups do
 * not nest). Operators use the JSON spellings of the spec.
 */

export const OPS = [
  'equals',
  'notEquals',
  'contains',
  'notContains',
  'startsWith',
  'endsWith',
  'gt',
  'gte',
  'lt',
  'lte',
  'exists',
  'doesNotExist',
  'in',
  'notIn',
  'between',
] as const;

export type Op = (typeof OPS)[number];

export type Scalar = string | number;
export type Value = Scalar | Scalar[];

export interface Predicate {
  field: string;
  op: Op;
  /** Absent for `exists` / `doesNotExist`; an array for `in`, `notIn`, `between`. */
  value?: Value;
  /**
   * 0-based offset of the predicate in a string expression. Only the parser's internal checks use
   * it; the AST returned by `parseFilter` carries none, so parse and print round-trip exactly.
   */
  position?: number;
}

export interface OrGroup {
  or: Predicate[];
}

export type Clause = Predicate | OrGroup;

/** An AND of clauses; the empty filter matches everything. */
export type Filter = Clause[];

export type Resource = 'traces' | 'spans' | 'scores';

export const RESOURCES: readonly Resource[] = ['traces', 'spans', 'scores'];

/** How an operator is written in the string grammar; `between` has no string form. */
export const STRING_SPELLING: Record<Op, string | null> = {
  equals: '=',
  notEquals: '!=',
  contains: 'contains',
  notContains: 'not contains',
  startsWith: 'starts with',
  endsWith: 'ends with',
  gt: '>',
  gte: '>=',
  lt: '<',
  lte: '<=',
  exists: 'exists',
  doesNotExist: 'does not exist',
  in: 'in',
  notIn: 'not in',
  between: null,
};

/** The spec's limits on filters (spec: Limits); the string grammar follows the same ones. */
export const LIMITS = {
  max_predicates: 20,
  max_filters: 20,
  field_length: { min: 1, max: 128 },
  max_string_value: 500,
  max_array_items: 50,
} as const;

export function isGroup(c: Clause): c is OrGroup {
  return 'or' in c;
}

/**
 * The values a filter compares `field` with for equality (`=`, `!=`, `in`, `not in`), OR-groups
 * included — the names a caller must recognise (an unknown environment name is a mistake to
 * report, not an empty answer).
 */
export function equalityValues(filter: Filter, field: string): Scalar[] {
  const out: Scalar[] = [];
  for (const clause of filter) {
    for (const p of isGroup(clause) ? clause.or : [clause]) {
      if (p.field !== field || !(p.op === 'equals' || p.op === 'notEquals' || p.op === 'in' || p.op === 'notIn'))
        continue;
      out.push(...(Array.isArray(p.value) ? p.value : p.value === undefined ? [] : [p.value]));
    }
  }
  return out;
}
