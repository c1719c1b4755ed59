/** src/http/route.ts: routes are data. */
import t from 'tap';
import typia from 'typia';
import { route, type Context } from '../../../src/http/route.js';

t.test('route() keeps the route as given', async (t) => {
  const handler = () => ({ kind: 'json' as const, status: 200, body: null });
  const r = { method: 'GET' as const, path: '/v1/x/:id', permission: 'none' as const, handler };
  t.equal(route(r), r, 'the same object: only its type parameters are erased');
  t.strictSame(Object.keys(route(r)).sort(), ['handler', 'method', 'path', 'permission']);
});

t.test("a declaration's handler takes the types its validators check, written nowhere else", async (t) => {
  interface Q {
    limit?: number;
  }
  interface B {
    name: string;
  }
  const validateQuery = typia.http.createValidateQuery<Q>();
  const validateBody = typia.createValidateEquals<B>();
  const seen: unknown[] = [];
  const r = route({
    method: 'POST',
    path: '/v1/x/:id/y/:name',
    permission: 'none',
    validate: { query: validateQuery, body: validateBody },
    handler: ({ params, query, body }) => {
      // Each line fails to compile if its type is not inferred as declared here.
      const id: string = params.id;
      const name: string = params.name;
      const limit: number | undefined = query.limit;
      const bodyName: string = body.name;
      // @ts-expect-error a path has no parameter it does not name
      seen.push(params.other);
      seen.push(id, name, limit, bodyName);
      return { kind: 'json' as const, status: 200, body: null };
    },
  });
  const raw = route({
    method: 'POST',
    path: '/v1/raw',
    permission: 'none',
    body: 'raw',
    handler: ({ body }) => ({ kind: 'json' as const, status: 200, body: body.byteLength }),
  });
  const ctx = {} as Context;
  await r.handler({ params: { id: 'i', name: 'n' }, query: { limit: 2 }, body: { name: 'b' }, headers: {} }, ctx);
  t.same(seen, [undefined, 'i', 'n', 2, 'b'], 'the handler reads its typed input');
  t.same(
    await raw.handler({ params: {}, query: {}, body: Buffer.from('abc'), headers: {} }, ctx),
    { kind: 'json', status: 200, body: 3 },
    'a raw body is the bytes',
  );
});
