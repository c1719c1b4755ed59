/**
 * AST → string expression, the inverse of the parser: `parseFilter(printFilter(f), r)` equals `f`
 * for any checked filter without `between` (which has no string form).
 */
import { ApiError } from '../errors.js';
import { isGroup, STRING_SPELLING, type Filter, type Predicate, type Scalar } from './ast.js';
import { isBareWord } from './lexer.js';

export function printFilter(filter: Filter): string {
  return filter.map((c) => (isGroup(c) ? `(${c.or.map(predicate).join(' or ')})` : predicate(c))).join(' and ');
}

function predicate(p: Predicate): string {
  const op = STRING_SPELLING[p.op];
  if (op === null)
    throw new ApiError('invalid_filter', `"${p.op}" has no string form; use >= and <=, or the JSON filters`);
  if (p.value === undefined) return `${p.field} ${op}`;
  return `${p.field} ${op} ${Array.isArray(p.value) ? `(${p.value.map(value).join(', ')})` : value(p.value)}`;
}

function value(v: Scalar): string {
  const text = String(v);
  return isBareWord(text) ? text : `"${text.replace(/["\\]/g, '\\$&')}"`;
}
