/** src/http/router.ts: matching a method and path against the route table. */
import t from 'tap';
import { route } from '../../../src/http/route.js';
import { Router } from '../../../src/http/router.js';

const h = () => ({ kind: 'json' as const, status: 200, body: null });

t.test('router', async (t) => {
  const r = new Router([
    route({ method: 'GET', path: '/v1/scores/:scoreId', permission: 'none', handler: h }),
    route({ method: 'GET', path: '/v1/scores/names', permission: 'none', handler: h }),
    route({ method: 'DELETE', path: '/v1/scores/:scoreId', permission: 'none', handler: h }),
    route({ method: 'GET', path: '/v1/traces/:traceId/spans/:spanId', permission: 'none', handler: h }),
  ]);
  const names = r.match('GET', '/v1/scores/names');
  t.equal(names.kind === 'found' && names.route.path, '/v1/scores/names', 'static beats param');
  const one = r.match('GET', '/v1/scores/abc%20def');
  t.same(one.kind === 'found' && { ...one.params }, { scoreId: 'abc def' }, 'params are decoded');
  const two = r.match('GET', '/v1/traces/t1/spans/s1');
  t.same(two.kind === 'found' && { ...two.params }, { traceId: 't1', spanId: 's1' });
  t.same(r.match('POST', '/v1/scores/x'), { kind: 'method_not_allowed', allow: ['GET', 'DELETE'] });
  const head = r.match('HEAD', '/v1/scores/names');
  t.equal(head.kind === 'found' && head.route.method, 'GET', 'HEAD is answered by the GET route');
  t.same(r.match('GET', '/v1/scores'), { kind: 'not_found' });
  t.same(r.match('GET', '/v1/scores/'), { kind: 'not_found' }, 'an empty param does not match');
  t.same(
    r.match('GET', '/v1/scores/%E0%A4%A'),
    { kind: 'bad_encoding', param: 'scoreId' },
    'bad percent-encoding in a parameter is named (a 400, not a 404)',
  );
  t.throws(
    () =>
      new Router([
        route({ method: 'GET', path: '/a/:x', permission: 'none', handler: h }),
        route({ method: 'GET', path: '/a/:y', permission: 'none', handler: h }),
      ]),
    /duplicate route/,
  );
});

t.test('bad percent-encoding', async (t) => {
  const r = new Router([
    route({ method: 'GET', path: '/v1/traces/:traceId/spans/:spanId', permission: 'none', handler: h }),
    route({ method: 'GET', path: '/v1/traces/:traceId/:part/:spanId', permission: 'none', handler: h }),
    route({ method: 'PUT', path: '/v1/things/:id', permission: 'none', handler: h }),
  ]);
  t.same(
    r.match('GET', '/v1/traces/%zz/spans/%zz'),
    { kind: 'bad_encoding', param: 'traceId' },
    'the first bad parameter of a path is named',
  );
  t.same(
    r.match('GET', '/v1/traces/t1/spans/%zz'),
    { kind: 'bad_encoding', param: 'spanId' },
    'the most specific route names it',
  );
  t.same(r.match('GET', '/v1/traces/t1/%zz/s1'), { kind: 'bad_encoding', param: 'part' });
  t.same(
    r.match('GET', '/v1/things/%zz'),
    { kind: 'not_found' },
    'only a route of the method can make it a 400; a route of another method does not match it',
  );
  t.same(r.match('PUT', '/v1/things/%zz'), { kind: 'bad_encoding', param: 'id' });
  t.same(r.match('GET', '/v1/traces/t1/spans'), { kind: 'not_found' }, 'another number of segments');
  t.same(r.match('GET', '/v2/traces/t1/spans/s1'), { kind: 'not_found' }, 'a static segment that differs');
});

t.test('a match prefers the route with more static segments, whatever the table order', async (t) => {
  const r = new Router([
    route({ method: 'GET', path: '/a/:x/:y', permission: 'none', handler: h }),
    route({ method: 'GET', path: '/a/b/:y', permission: 'none', handler: h }),
  ]);
  const m = r.match('GET', '/a/b/c');
  t.equal(m.kind === 'found' && m.route.path, '/a/b/:y');
  const other = r.match('GET', '/a/z/c');
  t.same(other.kind === 'found' && { ...other.params }, { x: 'z', y: 'c' });
  t.throws(
    () =>
      new Router([
        route({ method: 'GET', path: '/a', permission: 'none', handler: h }),
        route({ method: 'GET', path: '/a', permission: 'none', handler: h }),
      ]),
    { message: 'duplicate route GET /a' },
  );
  t.doesNotThrow(
    () =>
      new Router([
        route({ method: 'GET', path: '/a/:x', permission: 'none', handler: h }),
        route({ method: 'POST', path: '/a/:y', permission: 'none', handler: h }),
      ]),
    'the same path under two methods',
  );
});
