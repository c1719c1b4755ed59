import t from 'tap';
import {
  canonicalDataType,
  canonicalSource,
  DATA_TYPES,
  MAX_BATCH,
  resourceKind,
  SOURCES,
} from '../../../src/core/scores/model.js';

t.test('data types and sources are canonicalised whatever their case', async (t) => {
  t.same(DATA_TYPES, ['NUMERIC', 'BOOLEAN', 'CATEGORICAL']);
  t.same(SOURCES, ['api', 'annotation', 'eval', 'sdk'], 'the score sources the spec names');
  t.equal(canonicalDataType('numeric'), 'NUMERIC');
  t.equal(canonicalDataType('Categorical'), 'CATEGORICAL');
  t.equal(canonicalDataType('BOOLEAN'), 'BOOLEAN');
  t.equal(canonicalDataType('text'), undefined);
  t.equal(canonicalSource('API'), 'api');
  t.equal(canonicalSource('Eval'), 'eval');
  t.equal(canonicalSource('human'), undefined);
  t.equal(MAX_BATCH, 1000);
});

t.test('a resource id is a trace id (32 hex) or a span id (16 hex)', async (t) => {
  t.equal(resourceKind('0123456789abcdef0123456789ABCDEF'), 'trace');
  t.equal(resourceKind('0123456789abcdef'), 'span');
  t.equal(resourceKind('0123456789abcdeg'), undefined);
  t.equal(resourceKind('0123456789abcdef0'), undefined);
  t.equal(resourceKind(''), undefined);
});
