/** src/http/route.ts: routes are data. */
import t from 'tap';
import { route } from '../../../src/http/route.js';

t.test('route() keeps the route as given', async (t) => {
  const handler = () => ({ kind: 'json' as const, status: 200, body: null });
  const r = { method: 'GET' as const, path: '/v1/x/:id', permission: 'none' as const, handler };
  t.equal(route(r), r, 'the same object: only its type parameters are erased');
  t.strictSame(Object.keys(route(r)).sort(), ['handler', 'method', 'path', 'permission']);
});
