import t from 'tap';
import { OPS, RESOURCES } from '../../../src/core/filter/ast.js';
import { filterSchema, lookupField, operatorsFor, resolveField } from '../../../src/core/filter/schema.js';
import { refuses } from './refusal.js';

t.test('the schema lists the fields of every resource', async (t) => {
  const s = filterSchema();
  const names = (r: keyof typeof s.resources) => s.resources[r].fields.map((f) => f.name);
  t.same(names('traces'), [
    'name',
    'status',
    'latency_ms',
    'cost',
    'tokens',
    'span_count',
    'tags',
    'session_id',
    'user_id',
    'environment',
    'start',
    'model',
    'span_kind',
    'prompt_name',
    'prompt_version',
    'service_name',
    'metadata.<key>',
    'any_span.metadata.<key>',
  ]);
  t.same(names('spans'), [
    'name',
    'type',
    'span_kind',
    'status',
    'model',
    'prompt_name',
    'prompt_version',
    'service_name',
    'session_id',
    'user_id',
    'trace_id',
    'environment',
    'duration_ms',
    'cost',
    'tokens',
    'input_tokens',
    'output_tokens',
    'start',
    'metadata.<key>',
  ]);
  t.same(names('scores'), ['name', 'score', 'source', 'user_id', 'resource_id', 'label', 'created_at']);
  const traces = s.resources.traces.fields;
  t.same(
    traces.filter((f) => f.level === 'span').map((f) => f.name),
    ['model', 'span_kind', 'prompt_name', 'prompt_version', 'service_name', 'any_span.metadata.<key>'],
  );
  t.same(
    traces.find((f) => f.name === 'status'),
    {
      name: 'status',
      type: 'enum',
      operators: ['equals', 'notEquals', 'in', 'notIn'],
      values: ['UNSET', 'OK', 'ERROR'],
      level: 'trace',
      description: 'ERROR if any span errored, else OK if any is OK, else UNSET',
    },
  );
  t.same(s.resources.spans.fields.find((f) => f.name === 'metadata.<key>')?.operators, [
    'equals',
    'contains',
    'notContains',
    'startsWith',
    'endsWith',
    'exists',
    'doesNotExist',
  ]);
  t.notOk('level' in (s.resources.scores.fields[0] as object), 'levels belong to traces');
  t.same(Object.keys(s.resources).sort(), [...RESOURCES].sort(), 'every resource');
  for (const r of RESOURCES)
    for (const f of s.resources[r].fields) t.ok(f.operators.length > 0 && f.description.length > 0, f.name);
});

t.test('operators and limits', async (t) => {
  const s = filterSchema();
  t.same(Object.keys(s.operators), [...OPS]);
  t.same(s.operators.notContains, { string: 'not contains', json: 'notContains' });
  t.same(s.operators.between, { string: null, json: 'between' });
  t.same(s.limits, {
    max_predicates: 20,
    max_filters: 20,
    field_length: { min: 1, max: 128 },
    max_string_value: 500,
    max_array_items: 50,
  });
  t.same(JSON.parse(JSON.stringify(s)), s, 'JSON-able');
  t.same(operatorsFor('datetime'), ['gt', 'gte', 'lt', 'lte', 'between']);
});

t.test('field lookup', async (t) => {
  t.equal(resolveField('spans', 'cost').def.sql, 'x.cost');
  t.same(resolveField('traces', 'metadata.a1').key, 'a1');
  t.equal(resolveField('traces', 'metadata.a1').def.sql, 't.metadata', "a trace's metadata is its own (the summary's)");
  t.same(
    [resolveField('traces', 'any_span.metadata.a1').key, resolveField('traces', 'any_span.metadata.a1').def.level],
    ['a1', 'span'],
  );
  t.match(lookupField('spans', 'metadata.9'), { error: /invalid metadata key "9"/ });
  t.match(lookupField('scores', 'metadata.a'), { error: /unknown field "metadata.a" for scores/ });
  refuses(t, () => resolveField('spans', 'nope'), /^unknown field "nope" for spans/);
});
