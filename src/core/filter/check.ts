/**
 * The semantic checks every predicate passes, whichever form it was written in: the field exists
 * for the resource, the operator suits the field's type, the value has the operator's shape, and
 * every value has the field's type (numbers parsed, enum values put in their canonical spelling,
 * date-times validated). The caller says where each part was written, for the messages.
 */
import { ApiError } from '../errors.js';
import { LIMITS, STRING_SPELLING, type Op, type Predicate, type Resource, type Scalar } from './ast.js';
import { isoToNs } from './datetime.js';
import { lookupField, operatorsFor, type FieldDef } from './schema.js';

export type Part = 'field' | 'op' | 'value';

export interface CheckContext {
  resource: Resource;
  /** Spell operators in messages as the caller wrote them. */
  dialect: 'string' | 'json';
  /** Where a part was written: `at position 14` or `filters[2].value[1]`. */
  locate(part: Part, item?: number): string;
}

/** A predicate as written, before its values are typed. */
export interface RawPredicate {
  field: string;
  op: Op;
  value?: unknown;
}

export function filterError(where: string, message: string): never {
  throw new ApiError('invalid_filter', `${where}: ${message}`);
}

const NUMBER = /^[+-]?(?:\d+(?:\.\d*)?|\.\d+)(?:[eE][+-]?\d+)?$/;

export function checkPredicate(raw: RawPredicate, ctx: CheckContext): Predicate {
  const ref = lookupField(ctx.resource, raw.field);
  if ('error' in ref) filterError(ctx.locate('field'), ref.error);
  const { def } = ref;
  const spell = (op: Op) => `"${ctx.dialect === 'string' ? STRING_SPELLING[op] : op}"`;
  const allowed = operatorsFor(def.type);
  if (!allowed.includes(raw.op)) {
    filterError(
      ctx.locate('op'),
      `operator ${spell(raw.op)} is not allowed for ${raw.field} (${def.type}); allowed: ${allowed.map(spell).join(', ')}`,
    );
  }
  const value = raw.value;
  const where = (item?: number) => ctx.locate('value', item);
  switch (raw.op) {
    case 'exists':
    case 'doesNotExist':
      if (value !== undefined) filterError(where(), `${spell(raw.op)} takes no value`);
      return { field: raw.field, op: raw.op };
    case 'in':
    case 'notIn':
    case 'between': {
      if (!Array.isArray(value)) filterError(where(), `${spell(raw.op)} takes a list of values`);
      if (raw.op === 'between' && value.length !== 2)
        filterError(where(), `"between" takes exactly 2 values [low, high], got ${value.length}`);
      if (value.length === 0) filterError(where(), `${spell(raw.op)} takes at least one value`);
      if (value.length > LIMITS.max_array_items)
        filterError(where(LIMITS.max_array_items), `a list holds at most ${LIMITS.max_array_items} values`);
      return { field: raw.field, op: raw.op, value: value.map((v: unknown, i) => typed(def, raw.field, v, where(i))) };
    }
    default:
      if (value === undefined) filterError(where(), `${spell(raw.op)} takes a value`);
      if (Array.isArray(value)) filterError(where(), `${spell(raw.op)} takes one value, not a list`);
      return { field: raw.field, op: raw.op, value: typed(def, raw.field, value, where()) };
  }
}

/** One value in the field's type. */
function typed(def: FieldDef, field: string, v: unknown, where: string): Scalar {
  if (typeof v === 'number') {
    if (!Number.isFinite(v)) filterError(where, `${field}: a number value must be finite`);
  } else if (typeof v !== 'string') {
    filterError(where, `${field}: a value is a string or a number`);
  } else if (v.length > LIMITS.max_string_value) {
    filterError(where, `${field}: a value holds at most ${LIMITS.max_string_value} characters`);
  }
  const value = v as Scalar;
  switch (def.type) {
    case 'number':
    case 'integer': {
      const n = typeof value === 'number' ? value : NUMBER.test(value) ? Number(value) : NaN;
      if (!Number.isFinite(n)) filterError(where, `${field} takes a number, got ${JSON.stringify(value)}`);
      if (def.type === 'integer' && !Number.isInteger(n))
        filterError(where, `${field} takes an integer, got ${JSON.stringify(value)}`);
      // Past 2^53 a number no longer names one integer (2^53 + 1 reads as 2^53).
      if (def.type === 'integer' && !Number.isSafeInteger(n))
        filterError(
          where,
          `${field} takes an integer from -${Number.MAX_SAFE_INTEGER} to ${Number.MAX_SAFE_INTEGER}, got ${JSON.stringify(value)}`,
        );
      return n === 0 ? 0 : n; // no -0: it prints as 0
    }
    case 'enum': {
      const text = String(value);
      const canonical = def.values!.find((e) => e.toLowerCase() === text.toLowerCase());
      if (canonical === undefined)
        filterError(where, `${field} must be one of ${def.values!.join(', ')}, got ${JSON.stringify(value)}`);
      return canonical;
    }
    case 'datetime':
      if (typeof value !== 'string' || isoToNs(value) === null) {
        filterError(
          where,
          `${field} takes an ISO 8601 date-time such as 2026-01-31T12:00:00Z, got ${JSON.stringify(value)}`,
        );
      }
      return value;
    default:
      return String(value);
  }
}
