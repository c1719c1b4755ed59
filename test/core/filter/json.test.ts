import t from 'tap';
import { checkFilter, validateJsonFilters } from '../../../src/core/filter/json.js';
import { refuses } from './refusal.js';

t.test('JSON filters become the AST', async (t) => {
  t.same(
    validateJsonFilters(
      [
        { field: 'status', operator: 'in', value: ['error', 'ok'] },
        {
          or: [
            { field: 'metadata.tier', operator: 'exists' },
            { field: 'tokens', operator: 'between', value: ['10', 20] },
          ],
        },
      ],
      'traces',
    ),
    [
      { field: 'status', op: 'in', value: ['ERROR', 'OK'] },
      {
        or: [
          { field: 'metadata.tier', op: 'exists' },
          { field: 'tokens', op: 'between', value: [10, 20] },
        ],
      },
    ],
  );
  t.same(
    validateJsonFilters([{ field: 'cost', operator: 'equals', value: -0 }], 'spans'),
    [{ field: 'cost', op: 'equals', value: 0 }],
    'no negative zero',
  );
  t.same(
    validateJsonFilters([{ field: 'name', operator: 'exists', value: undefined }], 'spans'),
    [{ field: 'name', op: 'exists' }],
    'an undefined value is no value',
  );
});

t.test('numbers from JavaScript callers must be finite', async (t) => {
  refuses(
    t,
    () => validateJsonFilters([{ field: 'cost', operator: 'gt', value: Number.NaN }], 'spans'),
    /^filters\[0\]\.value: cost: a number value must be finite$/,
  );
  refuses(
    t,
    () => validateJsonFilters([{ field: 'cost', operator: 'in', value: [1, Infinity] }], 'spans'),
    /^filters\[0\]\.value\[1\]: cost: a number value must be finite/,
  );
  refuses(t, () => validateJsonFilters([{ field: 'name', operator: 'equals', value: -Infinity }], 'spans'), /finite/);
});

t.test('messages spell operators the JSON way', async (t) => {
  refuses(
    t,
    () => validateJsonFilters([{ field: 'cost', operator: 'startsWith', value: 'x' }], 'spans'),
    /operator "startsWith" is not allowed for cost \(number\); allowed: "equals", "notEquals", "gt"/,
  );
  refuses(
    t,
    () => validateJsonFilters([{ field: 'name', operator: 'doesNotExist', value: 1 }], 'scores'),
    /"doesNotExist" takes no value/,
  );
});

t.test('checkFilter walks an AST with the op key', async (t) => {
  t.same(checkFilter([{ field: 'name', op: 'equals', value: 'x', position: 4 }], 'scores'), [
    { field: 'name', op: 'equals', value: 'x' },
  ]);
  refuses(
    t,
    () => checkFilter([{ field: 'name', operator: 'equals', value: 'x' }], 'scores'),
    /^filter\[0\]: unexpected property "operator"$/,
  );
  refuses(
    t,
    () => checkFilter([{ field: 'name', op: 'near', value: 'x' }], 'scores'),
    /^filter\[0\]\.op: unknown operator "near"/,
  );
  refuses(
    t,
    () => checkFilter([{ or: [{ field: 'label', op: 'gt', value: 'x' }] }], 'scores'),
    /^filter\[0\]\.or\[0\]\.op: operator "gt"/,
  );
  refuses(
    t,
    () => validateJsonFilters([{ field: 'name', operator: 'equals', value: 'x', position: 4 }], 'scores'),
    /unexpected property "position"/,
  );
});
