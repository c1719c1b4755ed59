/** src/http/validate.ts: path, query and body validation, in that order, each failure a 400 naming the part. */
import t from 'tap';
import typia, { type tags } from 'typia';
import { route } from '../../../src/http/route.js';
import { validateInput } from '../../../src/http/validate.js';

const h = () => ({ kind: 'json' as const, status: 200, body: null });

t.test('validation in order: path, query, body', async (t) => {
  interface P {
    id: string & tags.Format<'uuid'>;
  }
  interface Q {
    limit: number & tags.Type<'uint32'> & tags.Maximum<500>;
  }
  interface B {
    name: string;
    tags?: string[];
  }
  const r = route({
    method: 'POST',
    path: '/x/:id',
    permission: 'none',
    validate: {
      params: typia.createValidateEquals<P>(),
      query: typia.http.createValidateQuery<Q>(),
      body: typia.createValidateEquals<B>(),
    },
    handler: h,
  });
  const id = '6f1c1c8e-1111-4222-8333-944455556666';
  const ok = validateInput(r, { id }, 'limit=5', {}, Buffer.from('{"name":"n"}'));
  t.same(ok.query, { limit: 5 }, 'query strings become typed values');
  t.same(ok.body, { name: 'n' });
  t.throws(
    () => validateInput(r, { id: 'x' }, 'limit=nope', {}, null),
    { code: 'invalid_path_parameters' },
    'path first',
  );
  t.throws(() => validateInput(r, { id }, 'limit=501', {}, null), {
    code: 'invalid_query_parameters',
    fields: { details: { limit: /Maximum/ } },
  });
  t.throws(() => validateInput(r, { id }, 'limit=1', {}, Buffer.from('{"name":1,"x":2}')), {
    code: 'invalid_request_body',
    fields: { details: { name: 'expected string', x: 'unknown property' } },
  });
  t.throws(() => validateInput(r, { id }, 'limit=1', { 'content-type': 'text/plain' }, Buffer.from('{}')), {
    code: 'unsupported_media_type',
  });
  t.throws(() => validateInput(r, { id }, 'limit=1', {}, Buffer.from('[1,')), {
    code: 'invalid_request_body',
    fields: { details: { body: /not valid JSON/ } },
  });
  const raw = route({ method: 'POST', path: '/raw', permission: 'none', body: 'raw', handler: h });
  t.same(validateInput(raw, {}, '', {}, Buffer.from([1, 2])).body, Buffer.from([1, 2]), 'raw bodies pass untouched');
});

t.test('routes without validators', async (t) => {
  const plain = route({ method: 'GET', path: '/x/:id', permission: 'none', handler: h });
  const headers = { 'x-a': '1' };
  t.strictSame(
    validateInput(plain, { id: 'a' }, '', headers, null),
    { params: { id: 'a' }, query: {}, body: undefined, headers },
    'params pass as matched; no body',
  );
  t.throws(
    () => validateInput(plain, {}, 'limt=5&limt=6&b', {}, null),
    {
      code: 'invalid_query_parameters',
      fields: {
        details: {
          limt: 'unknown parameter (this endpoint takes none)',
          b: 'unknown parameter (this endpoint takes none)',
        },
      },
    },
    'a route without query parameters refuses any, each named once',
  );
  t.equal(
    validateInput(plain, {}, '', {}, Buffer.from('{"a":1}')).body,
    undefined,
    'a body the route does not validate is not parsed',
  );
});
