import t from 'tap';
import { checkPredicate, type CheckContext } from '../../../src/core/filter/check.js';
import { refuses } from './refusal.js';

const json: CheckContext = {
  resource: 'spans',
  dialect: 'json',
  locate: (part, item) => `${part}${item === undefined ? '' : `[${item}]`}`,
};
const text: CheckContext = { ...json, dialect: 'string' };

t.test('values are typed by the field', async (t) => {
  t.same(checkPredicate({ field: 'cost', op: 'in', value: ['1.5', 2, '-3e2', '.5'] }, json), {
    field: 'cost',
    op: 'in',
    value: [1.5, 2, -300, 0.5],
  });
  t.same(checkPredicate({ field: 'span_kind', op: 'equals', value: 'LLM' }, json), {
    field: 'span_kind',
    op: 'equals',
    value: 'llm',
  });
  t.same(checkPredicate({ field: 'name', op: 'equals', value: 1e21 }, json), {
    field: 'name',
    op: 'equals',
    value: '1e+21',
  });
  t.same(
    checkPredicate({ field: 'start', op: 'gt', value: '2026-01-01' }, json),
    { field: 'start', op: 'gt', value: '2026-01-01' },
    'date-times keep their text',
  );
});

t.test('refusals say where and why', async (t) => {
  refuses(
    t,
    () => checkPredicate({ field: 'cost', op: 'gt', value: Number.POSITIVE_INFINITY }, json),
    /^value: cost: a number value must be finite$/,
  );
  refuses(
    t,
    () => checkPredicate({ field: 'cost', op: 'in', value: [1, Number.NaN] }, json),
    /^value\[1\]: cost: a number value must be finite$/,
  );
  refuses(
    t,
    () => checkPredicate({ field: 'cost', op: 'contains', value: '1' }, text),
    /^op: operator "contains" is not allowed for cost \(number\); allowed: "=", "!=", ">"/,
  );
  refuses(
    t,
    () => checkPredicate({ field: 'nope', op: 'equals', value: '1' }, text),
    /^field: unknown field "nope" for spans/,
  );
  refuses(
    t,
    () => checkPredicate({ field: 'start', op: 'gt', value: 1 }, json),
    /^value: start takes an ISO 8601 date-time/,
  );
  refuses(
    t,
    () => checkPredicate({ field: 'tokens', op: 'in', value: Array.from({ length: 51 }, (_, i) => i) }, json),
    /^value\[50\]: a list holds at most 50 values$/,
  );
});
