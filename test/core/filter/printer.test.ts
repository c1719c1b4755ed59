import t from 'tap';
import { printFilter } from '../../../src/core/filter/printer.js';
import { refuses } from './refusal.js';

t.test('values are bare when they read back as one word, else double-quoted', async (t) => {
  t.equal(
    printFilter([
      { field: 'model', op: 'equals', value: 'gpt-4o-mini' },
      {
        or: [
          { field: 'name', op: 'contains', value: 'a "b" \\ c' },
          { field: 'name', op: 'exists' },
        ],
      },
      { field: 'cost', op: 'in', value: [1, 2.5, -1e-7] },
      { field: 'name', op: 'notEquals', value: '' },
    ]),
    'model = gpt-4o-mini and (name contains "a \\"b\\" \\\\ c" or name exists) and cost in (1, 2.5, -1e-7) and name != ""',
  );
  t.equal(printFilter([]), '');
});

t.test('between has no string form', async (t) => {
  refuses(t, () => printFilter([{ field: 'cost', op: 'between', value: [1, 2] }]), /"between" has no string form/);
});
