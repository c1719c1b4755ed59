import t from 'tap';
import type { Filter, Op, Predicate, Resource } from '../../../src/core/filter/ast.js';
import { compileFilter } from '../../../src/core/filter/compile.js';
import { refuses } from './refusal.js';

const one = (p: Predicate, resource: Resource = 'spans', first = 1) => compileFilter([p], resource, first);

t.test('the empty filter is TRUE', async (t) => {
  t.same(compileFilter([], 'traces', 5), { sql: 'TRUE', params: [] });
});

t.test('placeholders are numbered from firstParam, in order', async (t) => {
  const f: Filter = [
    { field: 'status', op: 'equals', value: 'ERROR' },
    {
      or: [
        { field: 'cost', op: 'gt', value: 0.5 },
        { field: 'name', op: 'in', value: ['a', 'b'] },
      ],
    },
  ];
  t.same(compileFilter(f, 'spans', 7), {
    sql: '(x.status = $7) AND ((x.cost > $8) OR (x.name IN ($9, $10)))',
    params: ['ERROR', 0.5, 'a', 'b'],
  });
});

t.test('scalar operators', async (t) => {
  const cases: [Op, Predicate['value'], string][] = [
    ['equals', 'a', 'x.model = $1'],
    ['notEquals', 'a', 'x.model <> $1'],
    ['contains', 'a', 'contains(x.model, $1)'],
    ['notContains', 'a', 'NOT contains(x.model, $1)'],
    ['startsWith', 'a', 'starts_with(x.model, $1)'],
    ['endsWith', 'a', 'ends_with(x.model, $1)'],
    ['in', ['a', 'b'], 'x.model IN ($1, $2)'],
    ['notIn', ['a'], 'x.model NOT IN ($1)'],
    ['exists', undefined, 'x.model IS NOT NULL'],
    ['doesNotExist', undefined, 'x.model IS NULL'],
  ];
  for (const [op, value, sql] of cases) {
    t.equal(one({ field: 'model', op, ...(value === undefined ? {} : { value }) }).sql, `(${sql})`, op);
  }
  const numeric: [Op, Predicate['value'], string][] = [
    ['gt', 1, 'x.cost > $1'],
    ['gte', 1, 'x.cost >= $1'],
    ['lt', 1, 'x.cost < $1'],
    ['lte', 1, 'x.cost <= $1'],
    ['between', [1, 2], 'x.cost BETWEEN $1 AND $2'],
  ];
  for (const [op, value, sql] of numeric) t.equal(one({ field: 'cost', op, value }).sql, `(${sql})`, op);
  t.same(
    one({ field: 'duration_ms', op: 'gte', value: '1.5' }),
    { sql: '(((x.end_ns - x.start_ns) / 1e6) >= $1)', params: [1.5] },
    'numbers are typed by the field',
  );
});

t.test('values are checked and canonical before binding', async (t) => {
  t.same(one({ field: 'status', op: 'in', value: ['error', 'Ok'] }).params, ['ERROR', 'OK']);
  t.same(one({ field: 'name', op: 'equals', value: 7 }).params, ['7']);
  t.same(one({ field: 'name', op: 'equals', value: 'x', position: 3 }).params, ['x'], 'a parser position is ignored');
  refuses(t, () => one({ field: 'status', op: 'equals', value: 'nope' }), /^filter\[0\]\.value: status must be one of/);
});

t.test('date-times become nanoseconds, or microseconds for TIMESTAMP columns', async (t) => {
  t.same(one({ field: 'start', op: 'gte', value: '2026-01-15T00:00:00.123456789Z' }), {
    sql: '(x.start_ns >= $1)',
    params: [1768435200123456789n],
  });
  t.same(one({ field: 'start', op: 'lt', value: '2026-01-15' }, 'traces'), {
    sql: '(t.start_ns < $1)',
    params: [1768435200000000000n],
  });
  t.same(
    one(
      { field: 'created_at', op: 'between', value: ['2026-01-15T00:00:00.000001999Z', '2026-01-16T01:00:00+01:00'] },
      'scores',
    ),
    {
      sql: '(s.created_at BETWEEN make_timestamp($1::BIGINT) AND make_timestamp($2::BIGINT))',
      params: [1768435200000001n, 1768521600000000n],
    },
  );
});

t.test('span-level fields of traces match when any span of the trace matches', async (t) => {
  const exists = (inner: string) =>
    `(EXISTS (SELECT 1 FROM spans x WHERE x.tenant_id = t.tenant_id AND x.app_id = t.app_id AND x.trace_id = t.id AND (${inner})))`;
  t.same(one({ field: 'model', op: 'notEquals', value: 'gpt-4o' }, 'traces'), {
    sql: exists('x.model <> $1'),
    params: ['gpt-4o'],
  });
  t.same(one({ field: 'span_kind', op: 'equals', value: 'llm' }, 'traces').sql, exists('x.span_kind = $1'));
  t.same(
    one({ field: 'any_span.metadata.tier', op: 'equals', value: 'gold' }, 'traces'),
    { sql: exists('json_extract_string(x.metadata, $1) = $2'), params: ['$."tier"', 'gold'] },
    'the "any span" metadata form',
  );
  t.same(
    one({ field: 'status', op: 'equals', value: 'OK' }, 'traces').sql,
    '(t.status = $1)',
    'trace-level fields test the summary',
  );
});

t.test("a trace's metadata.<key> tests the trace's own metadata (its root span's), negations included", async (t) => {
  t.same(one({ field: 'metadata.tier', op: 'equals', value: 'gold' }, 'traces'), {
    sql: '(json_extract_string(t.metadata, $1) = $2)',
    params: ['$."tier"', 'gold'],
  });
  t.same(
    one({ field: 'metadata.tier', op: 'doesNotExist' }, 'traces').sql,
    '(NOT coalesce(json_exists(t.metadata, $1), false))',
  );
  t.same(
    one({ field: 'metadata.tier', op: 'notContains', value: 'g' }, 'traces').sql,
    '(NOT contains(json_extract_string(t.metadata, $1), $2))',
  );
});

t.test('tags: has, has any, has none', async (t) => {
  const list = 'coalesce(t.tags, []::VARCHAR[])';
  const cases: [Op, Predicate['value'], string][] = [
    ['equals', 'a', `list_contains(${list}, $1)`],
    ['contains', 'a', `list_contains(${list}, $1)`],
    ['notEquals', 'a', `NOT list_contains(${list}, $1)`],
    ['notContains', 'a', `NOT list_contains(${list}, $1)`],
    ['in', ['a', 'b'], `list_has_any(${list}, [$1, $2])`],
    ['notIn', ['a'], `NOT list_has_any(${list}, [$1])`],
    ['exists', undefined, `len(${list}) > 0`],
    ['doesNotExist', undefined, `len(${list}) = 0`],
  ];
  for (const [op, value, sql] of cases) {
    t.equal(one({ field: 'tags', op, ...(value === undefined ? {} : { value }) }, 'traces').sql, `(${sql})`, op);
  }
});

t.test('metadata keys are bound as JSON paths', async (t) => {
  t.same(one({ field: 'metadata.user_tier', op: 'exists' }), {
    sql: '(coalesce(json_exists(x.metadata, $1), false))',
    params: ['$."user_tier"'],
  });
  t.same(one({ field: 'metadata.user_tier', op: 'doesNotExist' }), {
    sql: '(NOT coalesce(json_exists(x.metadata, $1), false))',
    params: ['$."user_tier"'],
  });
  t.same(one({ field: 'metadata._k', op: 'startsWith', value: "'; DROP TABLE spans; --" }, 'spans', 3), {
    sql: '(starts_with(json_extract_string(x.metadata, $3), $4))',
    params: ['$."_k"', "'; DROP TABLE spans; --"],
  });
});

t.test('scores', async (t) => {
  t.same(
    compileFilter(
      [
        { field: 'score', op: 'gte', value: 0.5 },
        { field: 'label', op: 'doesNotExist' },
      ],
      'scores',
      1,
    ),
    {
      sql: '(s.score >= $1) AND (s.label IS NULL)',
      params: [0.5],
    },
  );
});
