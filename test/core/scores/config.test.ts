import t from 'tap';
import { ApiError } from '../../../src/core/errors.js';
import {
  checkConfigDefinition,
  finalizeScore,
  mergeConfigPatch,
  type ConfigDefinition,
  type Finalized,
  type ScoreConfigRule,
} from '../../../src/core/scores/config.js';
import type { PreparedScore } from '../../../src/core/scores/item.js';

function refusal(d: ConfigDefinition): Record<string, string> {
  try {
    checkConfigDefinition(d);
  } catch (e) {
    if (!(e instanceof ApiError)) throw e;
    t.equal(e.code, 'invalid_request_body');
    return e.fields.details as Record<string, string>;
  }
  throw new Error('expected a refusal');
}

t.test('definitions that are accepted', async (t) => {
  t.same(checkConfigDefinition({ data_type: 'numeric' }), {
    dataType: 'NUMERIC',
    minValue: null,
    maxValue: null,
    categories: null,
    description: null,
  });
  t.same(checkConfigDefinition({ data_type: 'NUMERIC', min_value: 0, max_value: 1, description: 'd' }), {
    dataType: 'NUMERIC',
    minValue: 0,
    maxValue: 1,
    categories: null,
    description: 'd',
  });
  t.same(
    checkConfigDefinition({ data_type: 'NUMERIC', min_value: 2, max_value: 2 }).maxValue,
    2,
    'a range of one value',
  );
  t.same(
    checkConfigDefinition({ data_type: 'NUMERIC', min_value: null, max_value: 5, categories: null }).maxValue,
    5,
    'nulls are absent',
  );
  t.same(checkConfigDefinition({ data_type: 'BOOLEAN' }).dataType, 'BOOLEAN');
  t.same(
    checkConfigDefinition({
      data_type: 'CATEGORICAL',
      categories: [
        { label: 'good', value: 1 },
        { label: 'bad', value: 0 },
      ],
    }).categories,
    [
      { label: 'good', value: 1 },
      { label: 'bad', value: 0 },
    ],
  );
});

t.test('definitions that are refused, every bad field named', async (t) => {
  t.same(refusal({ data_type: 'TEXT' }), { data_type: 'must be one of NUMERIC, BOOLEAN, CATEGORICAL, got "TEXT"' });
  t.same(refusal({ data_type: 'NUMERIC', min_value: 2, max_value: 1 }), {
    max_value: 'must be at least min_value (2)',
  });
  t.same(refusal({ data_type: 'NUMERIC', categories: [{ label: 'a', value: 1 }] }), {
    categories: 'only CATEGORICAL configs have categories',
  });
  t.same(refusal({ data_type: 'BOOLEAN', min_value: 0, max_value: 1 }), {
    min_value: 'only NUMERIC configs have a range',
    max_value: 'only NUMERIC configs have a range',
  });
  t.same(refusal({ data_type: 'CATEGORICAL' }), { categories: 'a CATEGORICAL config needs at least one category' });
  t.same(refusal({ data_type: 'CATEGORICAL', categories: [] }), {
    categories: 'a CATEGORICAL config needs at least one category',
  });
  t.same(
    refusal({
      data_type: 'CATEGORICAL',
      categories: [
        { label: 'a', value: 1 },
        { label: 'a', value: 2 },
      ],
    }),
    { categories: 'duplicate label "a"' },
  );
});

t.test('a patch changes what it names; null clears', async (t) => {
  const stored = { dataType: 'NUMERIC' as const, minValue: 0, maxValue: 10, categories: null, description: 'old' };
  t.same(mergeConfigPatch(stored, {}), {
    data_type: 'NUMERIC',
    min_value: 0,
    max_value: 10,
    categories: null,
    description: 'old',
  });
  t.same(mergeConfigPatch(stored, { max_value: 5, description: null }), {
    data_type: 'NUMERIC',
    min_value: 0,
    max_value: 5,
    categories: null,
    description: null,
  });
  t.same(mergeConfigPatch(stored, { min_value: null, categories: [{ label: 'x', value: 1 }] }), {
    data_type: 'NUMERIC',
    min_value: null,
    max_value: 10,
    categories: [{ label: 'x', value: 1 }],
    description: 'old',
  });
});

const item = (over: Partial<PreparedScore>): PreparedScore => ({
  index: 0,
  name: 'q',
  score: null,
  dataType: null,
  label: null,
  reason: null,
  source: 'api',
  userId: null,
  resourceId: 'abcdef0123456789',
  resourceKind: 'span',
  sessionId: null,
  ...over,
});
const numeric: ScoreConfigRule = {
  id: 'c1',
  name: 'q',
  dataType: 'NUMERIC',
  minValue: 0,
  maxValue: 1,
  categories: null,
};
const openNumeric: ScoreConfigRule = {
  id: 'c2',
  name: 'q',
  dataType: 'NUMERIC',
  minValue: null,
  maxValue: null,
  categories: null,
};
const boolean: ScoreConfigRule = {
  id: 'c3',
  name: 'q',
  dataType: 'BOOLEAN',
  minValue: null,
  maxValue: null,
  categories: null,
};
const categorical: ScoreConfigRule = {
  id: 'c4',
  name: 'q',
  dataType: 'CATEGORICAL',
  minValue: null,
  maxValue: null,
  categories: [
    { label: 'good', value: 1 },
    { label: 'bad', value: -1 },
  ],
};

function failure(f: Finalized): { field?: string; message: string } {
  if (f.ok) throw new Error('expected a failure');
  t.equal(f.error.code, 'invalid_request_body');
  return { field: f.error.field, message: f.error.message };
}

t.test('NUMERIC: a score is required, within the config range', async (t) => {
  t.same(
    finalizeScore(item({ score: 3.5, label: 'l' }), null),
    { ok: true, value: { dataType: 'NUMERIC', score: 3.5, label: 'l', configId: null } },
    'NUMERIC by default',
  );
  t.same(failure(finalizeScore(item({}), null)), { field: 'score', message: 'score: is required' });
  t.same(
    finalizeScore(item({ score: 0 }), numeric),
    { ok: true, value: { dataType: 'NUMERIC', score: 0, label: null, configId: 'c1' } },
    'bounds are inclusive',
  );
  t.ok(finalizeScore(item({ score: 1 }), numeric).ok);
  t.same(failure(finalizeScore(item({ score: -0.1 }), numeric)), {
    field: 'score',
    message: 'score: must be at least 0 (score config "q")',
  });
  t.same(failure(finalizeScore(item({ score: 1.1 }), numeric)), {
    field: 'score',
    message: 'score: must be at most 1 (score config "q")',
  });
  t.ok(finalizeScore(item({ score: 1e9 }), openNumeric).ok, 'a config without a range');
});

t.test('the data type comes from the item, else the config; a mismatch is refused', async (t) => {
  t.same(failure(finalizeScore(item({ score: 1, dataType: 'BOOLEAN' }), numeric)), {
    field: 'data_type',
    message: 'data_type: the score config "q" is NUMERIC, not BOOLEAN',
  });
  const fromConfig = finalizeScore(item({ score: 1 }), boolean);
  t.ok(fromConfig.ok && fromConfig.value.dataType === 'BOOLEAN');
  t.ok(finalizeScore(item({ score: 1, dataType: 'NUMERIC' }), numeric).ok, 'a matching type');
});

t.test('BOOLEAN: 0 or 1', async (t) => {
  t.same(finalizeScore(item({ score: 0, dataType: 'BOOLEAN' }), null), {
    ok: true,
    value: { dataType: 'BOOLEAN', score: 0, label: null, configId: null },
  });
  t.same(failure(finalizeScore(item({ score: 0.5, dataType: 'BOOLEAN' }), null)), {
    field: 'score',
    message: 'score: a BOOLEAN score is 0 or 1, got 0.5',
  });
  t.same(failure(finalizeScore(item({ dataType: 'BOOLEAN' }), boolean)), {
    field: 'score',
    message: 'score: is required',
  });
});

t.test('CATEGORICAL: a label, one of the categories, whose value is the score', async (t) => {
  t.same(failure(finalizeScore(item({ score: 1, dataType: 'CATEGORICAL' }), null)), {
    field: 'label',
    message: 'label: is required for a CATEGORICAL score',
  });
  t.same(
    finalizeScore(item({ score: 2, label: 'any', dataType: 'CATEGORICAL' }), null),
    { ok: true, value: { dataType: 'CATEGORICAL', score: 2, label: 'any', configId: null } },
    'free labels without a config',
  );
  t.same(failure(finalizeScore(item({ label: 'any', dataType: 'CATEGORICAL' }), null)), {
    field: 'score',
    message: 'score: is required (no score config gives the category a value)',
  });
  t.same(
    finalizeScore(item({ label: 'bad' }), categorical),
    { ok: true, value: { dataType: 'CATEGORICAL', score: -1, label: 'bad', configId: 'c4' } },
    'the value from the config',
  );
  t.ok(finalizeScore(item({ label: 'good', score: 1 }), categorical).ok, 'a matching value');
  t.same(failure(finalizeScore(item({ label: 'good', score: 2 }), categorical)), {
    field: 'score',
    message: 'score: the category "good" has the value 1, got 2',
  });
  t.same(failure(finalizeScore(item({ label: 'meh' }), categorical)), {
    field: 'label',
    message: 'label: must be one of "good", "bad" (score config "q")',
  });
});
