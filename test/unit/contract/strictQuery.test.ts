/**
 * src/contract/strictQuery.ts: strict query strings, checked against the JSON schema typia emits for
 * the query type, with messages in words. Directly, with hand-written schemas and validators; and
 * through real typia validators of src/contract/traces.ts.
 */
import t from 'tap';
import typia, { type tags } from 'typia';
import type { IValidation } from 'typia';
import { validatePageQuery, validateSessionListQuery, validateTraceQuery } from '../../../src/contract/traces.js';
import { describe, strictQuery, type ParamSchema, type SchemaCollection } from '../../../src/contract/strictQuery.js';

const q = (s: string) => new URLSearchParams(s);
/** The errors as `{field: words}`, or 'ok'. */
function outcome<T>(r: IValidation<T>): Record<string, string> | 'ok' {
  if (r.success) return 'ok';
  return Object.fromEntries(r.errors.map((e) => [e.path, e.expected]));
}

/** A collection as typia writes it: the root a $ref into components. */
function collection(
  properties: Record<string, ParamSchema>,
  extra: Record<string, ParamSchema> = {},
): SchemaCollection {
  return {
    schemas: [{ $ref: '#/components/schemas/Q' }],
    components: { schemas: { Q: { type: 'object', properties }, ...extra } },
  };
}

t.test('describe: a schema in words', async (t) => {
  const none: SchemaCollection = { schemas: [], components: {} };
  const cases: Array<[ParamSchema, string]> = [
    [{ type: 'integer', minimum: 1, maximum: 1000 }, 'must be an integer from 1 to 1000'],
    [{ type: 'integer', minimum: 0 }, 'must be an integer, at least 0'],
    [{ type: 'number', maximum: 5 }, 'must be a number, at most 5'],
    [{ type: 'number', exclusiveMinimum: 0 }, 'must be a number, more than 0'],
    [{ type: 'number', exclusiveMaximum: 1 }, 'must be a number, less than 1'],
    [{ type: 'number', exclusiveMinimum: 0, exclusiveMaximum: 1 }, 'must be a number, more than 0 and less than 1'],
    [{ type: 'integer', minimum: 0, exclusiveMaximum: 10 }, 'must be an integer, at least 0 and less than 10'],
    [{ type: 'integer', exclusiveMinimum: 0, maximum: 9 }, 'must be an integer, more than 0 and at most 9'],
    [{ type: 'integer' }, 'must be an integer'],
    [{ type: 'number' }, 'must be a number'],
    [{ type: 'boolean' }, 'must be true or false'],
    [{ type: 'array', items: { type: 'string', format: 'uuid' } }, 'each value must be a UUID'],
    [{ type: 'array' }, 'each value has an invalid value'],
    [{ type: 'string', format: 'date-time' }, 'must be an ISO 8601 date-time, e.g. 2026-01-31T12:00:00Z'],
    [{ type: 'string', format: 'uuid' }, 'must be a UUID'],
    [{ type: 'string', format: 'email' }, 'must be a email'],
    [{ type: 'string', pattern: '^[0-9a-f]{32}$' }, 'must match ^[0-9a-f]{32}$'],
    [{ type: 'string', minLength: 1, maxLength: 256 }, 'must be 1 to 256 characters'],
    [{ type: 'string', maxLength: 8 }, 'must be at most 8 characters'],
    [{ type: 'string', minLength: 1 }, 'must be text'],
    [{ type: 'string' }, 'must be text'],
    [{ const: 'graph' }, 'must be graph'],
    [{ const: 3 }, 'must be 3'],
    [{ enum: ['a', 1, true] }, 'must be one of: a, 1, true'],
    [{ oneOf: [{ const: 'json' }, { const: 'csv' }] }, 'must be one of: json, csv'],
    [{ anyOf: [{ const: 'x' }, { type: 'number', minimum: 0 }] }, 'must be x, or a number, at least 0'],
    [
      { oneOf: [{ type: 'boolean' }, { type: 'string', maxLength: 2 }] },
      'must be true or false, or at most 2 characters',
    ],
    [{ type: 'object' }, 'has an invalid value'],
    [{}, 'has an invalid value'],
  ];
  for (const [schema, words] of cases) t.equal(describe(none, schema), words, JSON.stringify(schema));
});

t.test('describe: references are resolved, at any level', async (t) => {
  const c: SchemaCollection = {
    schemas: [],
    components: {
      schemas: {
        Kind: { oneOf: [{ $ref: '#/components/schemas/A' }, { const: 'b' }] },
        A: { const: 'a' },
        Id: { type: 'string', format: 'uuid' },
      },
    },
  };
  t.equal(describe(c, { $ref: '#/components/schemas/Kind' }), 'must be one of: a, b');
  t.equal(describe(c, { type: 'array', items: { $ref: '#/components/schemas/Id' } }), 'each value must be a UUID');
  t.equal(describe(c, { $ref: '#/components/schemas/Missing' }), 'has an invalid value', 'an unknown reference');
  t.equal(
    describe({ schemas: [], components: {} }, { $ref: '#/components/schemas/Id' }),
    'has an invalid value',
    'a collection without components',
  );
});

t.test('the strict checks, before the validator runs', async (t) => {
  const calls: URLSearchParams[] = [];
  const validate = (input: URLSearchParams): IValidation<unknown> => {
    calls.push(input);
    return { success: true, data: Object.fromEntries(input) };
  };
  const check = strictQuery(
    validate,
    collection(
      {
        limit: { type: 'integer', minimum: 1, maximum: 1000 },
        ratio: { type: 'number' },
        ids: { type: 'array', items: { $ref: '#/components/schemas/Id' } },
        counts: { type: 'array', items: { type: 'integer' } },
        tags: { type: 'array' },
        kind: { $ref: '#/components/schemas/Kind' },
        name: { type: 'string' },
      },
      { Id: { type: 'string', format: 'uuid' }, Kind: { oneOf: [{ const: 'a' }, { const: 'b' }] } },
    ),
  );
  t.same(outcome(check(q(''))), 'ok');
  t.same(
    outcome(check(q('limit=10&ratio=-0.5&ids=x&ids=y&counts=1&counts=-2&tags=t&tags=t&kind=a&name=0x10'))),
    'ok',
    'lists may repeat; text is not checked as a number',
  );
  t.equal(calls.length, 2);
  t.same(outcome(check(q('limt=5&limit=1'))), {
    '$input.limt': 'unknown parameter (known: counts, ids, kind, limit, name, ratio, tags)',
  });
  t.same(outcome(check(q('limit=1&limit=2'))), { '$input.limit': 'given more than once' });
  t.same(
    outcome(check(q('kind=a&kind=a'))),
    { '$input.kind': 'given more than once' },
    'a referenced schema that is not a list',
  );
  t.same(outcome(check(q('name='))), { '$input.name': 'is empty: must be text' });
  t.same(outcome(check(q('ids='))), { '$input.ids': 'is empty: each value must be a UUID' });
  for (const bad of ['0x10', '1e3', ' 7', '7 ', '+7', '07', '1.0', '-']) {
    t.same(
      outcome(check(q(`limit=${encodeURIComponent(bad)}`))),
      { '$input.limit': 'must be an integer from 1 to 1000' },
      `limit=${bad}`,
    );
  }
  for (const good of ['0', '-3', '1000000'])
    t.same(outcome(check(q(`limit=${good}`))), 'ok', `limit=${good} is left to the validator`);
  for (const bad of ['1.', '.5', '1e3', 'NaN', 'Infinity', '01.5'])
    t.same(outcome(check(q(`ratio=${bad}`))), { '$input.ratio': 'must be a number' }, `ratio=${bad}`);
  for (const good of ['0.25', '-12.5', '3']) t.same(outcome(check(q(`ratio=${good}`))), 'ok', `ratio=${good}`);
  t.same(
    outcome(check(q('counts=1&counts=x'))),
    { '$input.counts': 'each value must be an integer' },
    'each value of a list of numbers',
  );
  const all = check(q('x=1&limit=&limit=2'));
  t.same(outcome(all), {
    '$input.x': 'unknown parameter (known: counts, ids, kind, limit, name, ratio, tags)',
    '$input.limit': 'given more than once',
  });
  t.equal(all.success ? 0 : all.errors.length, 3, 'every error is reported, in order');
  t.equal(calls.length, 2 + 3 + 3, 'the validator saw only the queries that passed the strict checks');
});

t.test('a query type without parameters', async (t) => {
  const validate = (): IValidation<object> => ({ success: true, data: {} });
  t.same(outcome(strictQuery(validate, collection({}))(q('a=1'))), { '$input.a': 'unknown parameter (known: none)' });
  t.same(
    outcome(strictQuery(validate, { schemas: [], components: {} })(q('a=1'))),
    { '$input.a': 'unknown parameter (known: none)' },
    'no root schema',
  );
  t.same(
    outcome(strictQuery(validate, { schemas: [{ type: 'object' }], components: {} })(q(''))),
    'ok',
    'a root without properties',
  );
});

t.test("the validator's errors, in words", async (t) => {
  const errors: IValidation.IError[] = [
    { path: '$input.limit', expected: 'number & Maximum<1000>', value: 5000 },
    { path: '$input.ids[1]', expected: 'string & Format<"uuid">', value: 'x' },
    { path: '$input', expected: 'Q', value: null },
  ];
  const validate = (): IValidation<unknown> => ({ success: false, errors, data: undefined });
  const check = strictQuery(
    validate,
    collection({
      limit: { type: 'integer', minimum: 1, maximum: 1000 },
      ids: { type: 'array', items: { type: 'string', format: 'uuid' } },
    }),
  );
  const r = check(q('limit=5000&ids=x'));
  t.notOk(r.success);
  t.strictSame(
    r.success ? [] : r.errors,
    [
      { path: '$input.limit', expected: 'must be an integer from 1 to 1000', value: 5000 },
      { path: '$input.ids[1]', expected: 'each value must be a UUID', value: 'x' },
      { path: '$input', expected: 'Q', value: null },
    ],
    'a list element is described by its list; an error naming no parameter stays as it is',
  );
});

t.test('through real typia validators (contract/traces.ts)', async (t) => {
  const page = validatePageQuery(q('limit=20&offset=40'));
  t.ok(page.success);
  t.same(page.success && page.data, { limit: 20, offset: 40 }, 'typed values');
  t.same(outcome(validatePageQuery(q(''))), 'ok');
  t.same(outcome(validatePageQuery(q('limit=0'))), { '$input.limit': 'must be an integer from 1 to 1000' });
  t.same(outcome(validatePageQuery(q('limit=1001'))), { '$input.limit': 'must be an integer from 1 to 1000' });
  t.same(outcome(validatePageQuery(q('offset=-1'))), { '$input.offset': 'must be an integer from 0 to 4294967295' });
  t.same(
    outcome(validatePageQuery(q('offset=4294967296'))),
    { '$input.offset': 'must be an integer from 0 to 4294967295' },
    'the bound the reference states',
  );
  t.same(
    outcome(validatePageQuery(q('limit=1e3'))),
    { '$input.limit': 'must be an integer from 1 to 1000' },
    'refused before typia, which would read 1000',
  );
  t.same(outcome(validatePageQuery(q('limit=10&limit=20'))), { '$input.limit': 'given more than once' });
  t.same(outcome(validatePageQuery(q('limit='))), { '$input.limit': 'is empty: must be an integer from 1 to 1000' });
  t.same(outcome(validatePageQuery(q('page=2'))), { '$input.page': 'unknown parameter (known: limit, offset)' });

  t.same(outcome(validateTraceQuery(q('fields=graph'))), 'ok');
  t.same(outcome(validateTraceQuery(q('fields=spans'))), { '$input.fields': 'must be graph' });

  t.same(
    outcome(validateSessionListQuery(q('start_date=2026-01-31T12:00:00Z&user_id=u&limit=5'))),
    'ok',
    'an extended type: its own and inherited parameters',
  );
  t.same(outcome(validateSessionListQuery(q('start_date=yesterday'))), {
    '$input.start_date': 'must be an ISO 8601 date-time, e.g. 2026-01-31T12:00:00Z',
  });
  t.same(outcome(validateSessionListQuery(q(`user_id=${'u'.repeat(257)}`))), {
    '$input.user_id': 'must be 1 to 256 characters',
  });
});

t.test('through a typia validator of lists and unions', async (t) => {
  interface Q {
    ids?: (string & tags.Format<'uuid'>)[];
    sort?: 'asc' | 'desc';
    min?: number & tags.ExclusiveMinimum<0>;
    flag?: boolean;
  }
  const check = strictQuery(typia.http.createValidateQuery<Q>(), typia.json.schemas<[Q], '3.1'>());
  const id = '6f1c1c8e-1111-4222-8333-944455556666';
  const ok = check(q(`ids=${id}&ids=${id}&sort=asc&min=0.5&flag=true`));
  t.same(ok.success && ok.data, { ids: [id, id], sort: 'asc', min: 0.5, flag: true });
  t.same(outcome(check(q(`ids=${id}&ids=nope`))), { '$input.ids[1]': 'each value must be a UUID' });
  t.match(outcome(check(q('sort=up'))), { '$input.sort': /^must be one of: (asc, desc|desc, asc)$/ });
  t.same(outcome(check(q('min=0'))), { '$input.min': 'must be a number, more than 0' });
  t.same(outcome(check(q('min=.5'))), { '$input.min': 'must be a number, more than 0' });
  t.same(outcome(check(q('flag=maybe'))), { '$input.flag': 'must be true or false' });
});
