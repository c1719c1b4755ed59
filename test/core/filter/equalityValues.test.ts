/** src/core/filter/ast.ts: helpers over the filter AST. */
import t from 'tap';
import { equalityValues, type Filter } from '../../../src/core/filter/index.js';

t.test('equalityValues: the values a field is compared with for equality, OR-groups included', async (t) => {
  const filter: Filter = [
    { field: 'environment', op: 'equals', value: 'staging' },
    {
      or: [
        { field: 'environment', op: 'in', value: ['a', 'b'] },
        { field: 'name', op: 'equals', value: 'x' },
      ],
    },
    { field: 'environment', op: 'notIn', value: ['c'] },
    { field: 'environment', op: 'notEquals', value: 'd' },
    { field: 'environment', op: 'startsWith', value: 'pr-' },
    { field: 'environment', op: 'exists' },
  ];
  t.same(
    equalityValues(filter, 'environment'),
    ['staging', 'a', 'b', 'c', 'd'],
    'prefixes and existence name no environment',
  );
  t.same(equalityValues(filter, 'name'), ['x']);
  t.same(
    equalityValues([{ field: 'environment', op: 'equals' }], 'environment'),
    [],
    'a predicate without a value names nothing',
  );
  t.same(equalityValues([], 'environment'), []);
});
