/**
 * src/contract/checked.ts: a JSON body read and parsed as the router reads one, and a validator's
 * result turned into a 400 naming each bad field — through the router's validation and on their own.
 */
import t from 'tap';
import typia, { type tags } from 'typia';
import { checked, checkedBody, jsonBodyText } from '../../../src/contract/checked.js';
import { validatePageQuery } from '../../../src/contract/traces.js';
import { route } from '../../../src/http/route.js';
import { validateInput } from '../../../src/http/validate.js';

const h = () => ({ kind: 'json' as const, status: 200, body: null });

t.test('on their own', async (t) => {
  const anything = typia.createValidate<unknown>();
  t.same(checkedBody(Buffer.from('{"a":1}'), 'application/json', anything), { a: 1 });
  t.throws(() => checkedBody(Buffer.from('[1,'), undefined, anything), {
    code: 'invalid_request_body',
    fields: { details: { body: /not valid JSON/ } },
  });
  t.throws(
    () => jsonBodyText(Buffer.from('{}'), 'text/plain'),
    { code: 'unsupported_media_type' },
    'a media type that is not JSON',
  );
  t.equal(jsonBodyText(null, 'application/json'), undefined, 'no body');
  t.equal(checked('path', { success: true, data: 1, errors: [] } as never), 1);
  t.throws(
    () => checked('path', typia.validate<{ filter: string }>({ filter: 1 })),
    { code: 'invalid_path_parameters' },
    'only a query or a body has a filter',
  );
});

t.test('JSON bodies', async (t) => {
  const r = route({
    method: 'POST',
    path: '/b',
    permission: 'none',
    validate: { body: typia.createValidate<unknown>() },
    handler: h,
  });
  const body = (text: string | Buffer, headers: Record<string, string> = {}) =>
    validateInput(r, {}, '', headers, typeof text === 'string' ? Buffer.from(text) : text).body;
  t.same(body('{"a":[1]}', { 'content-type': 'application/json; charset=utf-8' }), { a: [1] });
  t.same(body('"x"', { 'content-type': 'application/vnd.api+JSON' }), 'x', 'any JSON media type');
  t.equal(validateInput(r, {}, '', {}, null).body, undefined, 'no body');
  t.equal(body(''), undefined, 'an empty body');
  t.same(body('\uFEFF{"a":1}'), { a: 1 }, 'a byte-order mark is dropped');
  t.throws(() => body(Buffer.from([0x7b, 0x22, 0xff, 0x22, 0x7d])), {
    code: 'invalid_request_body',
    fields: { details: { body: 'not valid UTF-8' } },
  });
  t.throws(
    () => body(Buffer.from('{"a":"\xed\xa0\x80"}', 'latin1')),
    { code: 'invalid_request_body', fields: { details: { body: 'not valid UTF-8' } } },
    'an encoded surrogate',
  );
  const lone = /lone surrogate/;
  t.throws(
    () => body('"\\ud800"'),
    { code: 'invalid_request_body', fields: { details: { body: lone } } },
    'the whole body',
  );
  t.throws(
    () => body('{"a":{"b":["ok","\\udc00"]}}'),
    { code: 'invalid_request_body', fields: { details: { 'a.b[1]': lone } } },
    'a string, named by its path',
  );
  t.throws(
    () => body('[{"\\ud800x":1}]'),
    { code: 'invalid_request_body', fields: { details: { '[0].\ud800x': lone } } },
    'a key',
  );
  t.throws(
    () => body('{"\\ud83d":1}'),
    { code: 'invalid_request_body', fields: { details: { '\ud83d': lone } } },
    'a key at the top',
  );
  t.same(
    body('{"a":"\\ud83d\\ude00","b":[null,true,2,{}]}'),
    { a: '😀', b: [null, true, 2, {}] },
    'a surrogate pair is text',
  );
  t.throws(
    () => body('['.repeat(10_000) + ']'.repeat(10_000)),
    { code: 'invalid_request_body', fields: { details: { body: 'nested more than 128 levels deep' } } },
    'nesting past 128 levels is refused before the walks that recurse',
  );
  t.same(body('['.repeat(128) + ']'.repeat(128)), JSON.parse('['.repeat(128) + ']'.repeat(128)), '128 levels pass');
});

t.test('error messages', async (t) => {
  const r = route({
    method: 'GET',
    path: '/p',
    permission: 'none',
    validate: { query: validatePageQuery, body: typia.createValidateEquals<{ n: number }>() },
    handler: h,
  });
  t.throws(
    () => validateInput(r, {}, 'limit=0', {}, null),
    { code: 'invalid_query_parameters', fields: { details: { limit: 'must be an integer from 1 to 1000' } } },
    'worded messages (contract/strictQuery.ts) are kept',
  );
  t.throws(
    () => validateInput(r, {}, 'limit=', {}, null),
    { code: 'invalid_query_parameters', fields: { details: { limit: 'is empty: must be an integer from 1 to 1000' } } },
    '"is empty:" is in words too',
  );
  t.throws(() => validateInput(r, {}, 'limit=1&limit=2', {}, null), {
    code: 'invalid_query_parameters',
    fields: { details: { limit: 'given more than once' } },
  });
  t.throws(() => validateInput(r, {}, 'x=1', {}, null), {
    code: 'invalid_query_parameters',
    fields: { details: { x: /^unknown parameter \(known: limit, offset\)$/ } },
  });
  t.throws(
    () => validateInput(r, {}, '', {}, Buffer.from('3')),
    { code: 'invalid_request_body', fields: { details: { body: /^expected / } } },
    'the whole input is named after the part',
  );
  const words = route({
    method: 'GET',
    path: '/w',
    permission: 'none',
    validate: {
      query: () => ({
        success: false,
        data: undefined,
        errors: [
          { path: '$input.a', expected: 'is empty: must be text', value: '' },
          { path: '$input.a', expected: 'must be later', value: '' },
          { path: '$input.b', expected: 'each value must be a UUID', value: '' },
          { path: '$input.c', expected: 'mustache', value: '' },
        ],
      }),
    },
    handler: h,
  });
  t.throws(
    () => validateInput(words, {}, '', {}, null),
    {
      code: 'invalid_query_parameters',
      fields: { details: { a: 'is empty: must be text', b: 'each value must be a UUID', c: 'expected mustache' } },
    },
    'the first error of a field wins',
  );
});

t.test('a filter that fails its shape check is invalid_filter, like one that fails its meaning', async (t) => {
  interface Q {
    filter?: string & tags.MaxLength<5>;
    limit?: number;
  }
  interface B {
    filters?: { field: string }[];
    limit?: number;
  }
  const r = route({
    method: 'POST',
    path: '/s',
    permission: 'none',
    validate: { query: typia.http.createValidateQuery<Q>(), body: typia.createValidateEquals<B>() },
    handler: h,
  });
  const body = (v: unknown) => Buffer.from(JSON.stringify(v));
  t.throws(() => validateInput(r, {}, '', {}, body({ filters: [{ field: 1 }] })), {
    code: 'invalid_filter',
    status: 400,
    fields: { details: { 'filters[0].field': 'expected string' } },
  });
  t.throws(() => validateInput(r, {}, '', {}, body({ filters: {} })), { code: 'invalid_filter' }, 'filters itself');
  t.throws(
    () => validateInput(r, {}, '', {}, body({ filters: [{ field: 1 }], limit: 'x' })),
    { code: 'invalid_request_body' },
    'with other fields wrong too, the body is',
  );
  t.throws(
    () => validateInput(r, {}, '', {}, body({ filtersx: 1 })),
    { code: 'invalid_request_body' },
    'a name that only starts like it is not the filter',
  );
  t.throws(
    () => validateInput(r, {}, 'filter=abcdef', {}, null),
    { code: 'invalid_filter', fields: { details: { filter: /MaxLength/ } } },
    'a filter string over its cap',
  );
  t.throws(() => validateInput(r, {}, 'limit=x', {}, null), { code: 'invalid_query_parameters' });
});
