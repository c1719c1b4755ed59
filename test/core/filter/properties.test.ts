/** Properties of the filter language over generated filters and arbitrary text (fast-check). */
import { deepStrictEqual, equal, ok } from 'node:assert/strict';
import fc from 'fast-check';
import t from 'tap';
import { ApiError } from '../../../src/core/errors.js';
import { PROMPT_VERSION_SQL } from '../../../src/core/filter/schema.js';
import {
  compileFilter,
  filterSchema,
  parseFilter,
  printFilter,
  type Clause,
  type Filter,
  type Predicate,
  type Resource,
  type Scalar,
  type SchemaField,
  type Value,
} from '../../../src/core/filter/index.js';

const SCHEMA = filterSchema();
const RESOURCES = ['traces', 'spans', 'scores'] as const;

const HOSTILE = [
  "'; DROP TABLE spans; --",
  '"; DROP TABLE spans; --',
  "' OR '1'='1",
  'x) OR (1=1',
  '\\',
  "\\'",
  '\\"',
  '"',
  "'",
  'and',
  'or',
  'AND',
  'not in',
  'does not exist',
  '(',
  ')',
  ',',
  '$1',
  '$."k"',
  '%',
  '_',
  '',
  ' ',
  'SELECT * FROM spans',
  'tab\there',
  'line\nbreak',
  '[1]',
  '{"a":1}',
];

const text = fc.oneof(
  fc.string({ maxLength: 30 }),
  fc.string({ unit: 'binary', maxLength: 30 }),
  fc.constantFrom(...HOSTILE),
);
const number = fc.oneof(
  fc.double({ noNaN: true, noDefaultInfinity: true }).map((n) => (n === 0 ? 0 : n)),
  fc.integer({ min: -1000, max: 1000 }),
);
const integer = fc.oneof(
  fc.integer(),
  fc.maxSafeInteger().map((n) => (n === 0 ? 0 : n)),
);
const datetime = fc
  .tuple(
    fc.date({ min: new Date('1678-01-01T00:00:00Z'), max: new Date('2261-12-31T00:00:00Z'), noInvalidDate: true }),
    fc.option(fc.integer({ min: 0, max: 999_999 })),
  )
  .map(([d, extra]) =>
    extra === null ? d.toISOString() : d.toISOString().replace('Z', `${String(extra).padStart(6, '0')}Z`),
  );

function scalarOf(f: SchemaField): fc.Arbitrary<Scalar> {
  switch (f.type) {
    case 'number':
      return number;
    case 'integer':
      return integer;
    case 'enum':
      return fc.constantFrom(...(f.values as string[]));
    case 'datetime':
      return datetime;
    default:
      return text;
  }
}

const metadataKey = fc.stringMatching(/^[a-zA-Z_][a-zA-Z0-9_]{0,63}$/);

function predicateOf(resource: Resource): fc.Arbitrary<Predicate> {
  return fc.constantFrom(...SCHEMA.resources[resource].fields).chain((f) =>
    fc
      .tuple(
        f.type === 'metadata' ? metadataKey.map((k) => `metadata.${k}`) : fc.constant(f.name),
        fc.constantFrom(...f.operators.filter((op) => op !== 'between')),
      )
      .chain(([field, op]) => {
        const value: fc.Arbitrary<Value | undefined> =
          op === 'exists' || op === 'doesNotExist'
            ? fc.constant(undefined)
            : op === 'in' || op === 'notIn'
              ? fc.array(scalarOf(f), { minLength: 1, maxLength: 4 })
              : scalarOf(f);
        return value.map((v): Predicate => (v === undefined ? { field, op } : { field, op, value: v }));
      }),
  );
}

function filterOf(resource: Resource): fc.Arbitrary<Filter> {
  const p = predicateOf(resource);
  const clause: fc.Arbitrary<Clause> = fc.oneof(
    p,
    fc.array(p, { minLength: 1, maxLength: 3 }).map((or) => ({ or })),
  );
  return fc.array(clause, { maxLength: 6 });
}

const resourceAndFilter = fc.constantFrom(...RESOURCES).chain((r) => filterOf(r).map((f) => [r, f] as const));

/** The same filter with every value replaced by a fixed one of its type. */
function neutral(f: Filter, resource: Resource): Filter {
  const fields = SCHEMA.resources[resource].fields;
  const fixed = (p: Predicate): Scalar => {
    const def = fields.find((d) => d.name === p.field) ?? fields.find((d) => d.type === 'metadata');
    switch (def?.type) {
      case 'number':
      case 'integer':
        return 1;
      case 'enum':
        return (def.values as string[])[0] as string;
      case 'datetime':
        return '2026-01-01T00:00:00Z';
      default:
        return 'v';
    }
  };
  const swap = (p: Predicate): Predicate =>
    p.value === undefined ? p : { ...p, value: Array.isArray(p.value) ? p.value.map(() => fixed(p)) : fixed(p) };
  return f.map((c) => ('or' in c ? { or: c.or.map(swap) } : swap(c)));
}

function values(f: Filter): Scalar[] {
  return f
    .flatMap((c) => ('or' in c ? c.or : [c]))
    .flatMap((p) => (p.value === undefined ? [] : Array.isArray(p.value) ? p.value : [p.value]));
}

t.test('printing any filter and parsing it back gives the same filter', async (t) => {
  fc.assert(
    fc.property(resourceAndFilter, ([resource, filter]) => {
      const printed = printFilter(filter);
      deepStrictEqual(parseFilter(printed, resource), filter, printed);
    }),
    { numRuns: 500 },
  );
  t.pass('round-trips');
});

t.test('values reach the SQL only as parameters', async (t) => {
  fc.assert(
    fc.property(resourceAndFilter, ([resource, filter]) => {
      const compiled = compileFilter(filter, resource, 1);
      const plain = compileFilter(neutral(filter, resource), resource, 1);
      equal(compiled.sql, plain.sql, 'the SQL does not depend on the values');
      equal(compiled.params.length, plain.params.length);
      // The schema's own SQL may hold literals (the JSON paths of prompt_version); values never.
      ok(!/['"]/.test(compiled.sql.replaceAll(PROMPT_VERSION_SQL, '')), 'no literal in the SQL');
      for (const v of values(filter)) {
        if (typeof v === 'string' && !/^\d{4}-/.test(v))
          ok(compiled.params.includes(v), `${JSON.stringify(v)} is a parameter`);
      }
    }),
    { numRuns: 300 },
  );
  t.pass('bound');
});

t.test('hostile values round-trip and bind literally', async (t) => {
  const fields = fc.constantFrom<[Resource, string]>(
    ['spans', 'name'],
    ['spans', 'model'],
    ['traces', 'model'],
    ['traces', 'tags'],
    ['spans', 'metadata.k'],
    ['scores', 'label'],
    ['traces', 'environment'],
  );
  fc.assert(
    fc.property(
      fields,
      fc.oneof(
        fc.constantFrom(...HOSTILE),
        fc.array(fc.constantFrom(...HOSTILE), { minLength: 1, maxLength: 4 }).map((a) => a.join('')),
      ),
      ([resource, field], value) => {
        const filterWith = (v: string): Filter => [
          { field, op: 'equals', value: v },
          {
            or: [
              { field, op: 'contains', value: v },
              { field, op: 'equals', value: 'x' },
            ],
          },
        ];
        const filter = filterWith(value);
        deepStrictEqual(parseFilter(printFilter(filter), resource), filter);
        const { sql, params } = compileFilter(filter, resource, 10);
        equal(sql, compileFilter(filterWith('plain'), resource, 10).sql);
        ok(!/DROP|'/.test(sql), sql);
        // Each predicate binds the value once; a metadata predicate also binds its path, which a hostile
        // value may happen to spell (`$."k"`): the three predicates bind it three more times.
        const paths = field.startsWith('metadata.') && value === `$."${field.slice(9)}"` ? 3 : 0;
        ok(params.filter((p) => p === value).length === 2 + paths);
      },
    ),
  );
  t.pass('literal');
});

function neverCrashes(input: string): void {
  for (const resource of RESOURCES) {
    let filter: Filter;
    try {
      filter = parseFilter(input, resource);
    } catch (e) {
      ok(e instanceof ApiError, `${JSON.stringify(input)} threw ${String(e)}`);
      equal(e.code, 'invalid_filter');
      const m = /^at position (\d+): ./.exec(e.message);
      ok(m && Number(m[1]) <= input.length, e.message);
      continue;
    }
    deepStrictEqual(parseFilter(printFilter(filter), resource), filter);
    compileFilter(filter, resource, 1);
  }
}

t.test('arbitrary text never crashes the parser', async (t) => {
  fc.assert(fc.property(fc.string({ unit: 'binary', maxLength: 80 }), neverCrashes), { numRuns: 500 });
  fc.assert(fc.property(fc.string({ maxLength: 80 }), neverCrashes), { numRuns: 500 });
  const words = [
    'status',
    'cost',
    'tags',
    'name',
    'model',
    'metadata.k',
    'metadata.',
    'start',
    'created_at',
    'score',
    'ERROR',
    'ok',
    'prod',
    '1.5',
    '-2',
    '1e3',
    '2026-01-01',
    '"a b"',
    "'x\\'y'",
    '"\\',
    '=',
    '!=',
    '!',
    '>',
    '>=',
    '<',
    '<=',
    '<>',
    'and',
    'AND',
    'or',
    'Or',
    'not',
    'in',
    'contains',
    'starts',
    'ends',
    'with',
    'does',
    'exist',
    'exists',
    'between',
    '(',
    ')',
    ',',
    '[',
    '{',
    '&',
    ';',
    '--',
  ];
  const soup = fc.array(fc.constantFrom(...words), { maxLength: 14 });
  fc.assert(
    fc.property(soup, (a) => neverCrashes(a.join(' '))),
    { numRuns: 3000 },
  );
  fc.assert(
    fc.property(soup, (a) => neverCrashes(a.join(''))),
    { numRuns: 1000 },
  );
  t.pass('only invalid_filter');
});
