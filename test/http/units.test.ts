/** Unit tests of the pure parts of the HTTP layer: router, surface rules, credentials, validation. */
import t from 'tap';
import typia, { type tags } from 'typia';
import { ApiError } from '../../src/core/errors.js';
import { authorize, readCredentials } from '../../src/http/auth.js';
import { route } from '../../src/http/route.js';
import { Router } from '../../src/http/router.js';
import { refusalFor } from '../../src/http/surface.js';
import { validateInput } from '../../src/http/validate.js';

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
  t.same(r.match('GET', '/v1/scores'), { kind: 'not_found' });
  t.same(r.match('GET', '/v1/scores/'), { kind: 'not_found' }, 'an empty param does not match');
  t.same(r.match('GET', '/v1/scores/%E0%A4%A'), { kind: 'bad_encoding', param: 'scoreId' }, 'bad percent-encoding in a parameter is named (a 400, not a 404)');
  t.throws(() => new Router([
    route({ method: 'GET', path: '/a/:x', permission: 'none', handler: h }),
    route({ method: 'GET', path: '/a/:y', permission: 'none', handler: h }),
  ]), /duplicate route/);
});

t.test('surface rules', async (t) => {
  t.equal(refusalFor('cloud', '/v1/traces/search'), null);
  t.equal(refusalFor('cloud', '/v1/dev/whoami'), 'not_available_on_cloud');
  t.equal(refusalFor('local', '/v1/dev/whoami'), null);
  for (const p of ['/v1/traces/search', '/v1/spans/search', '/v1/scores/search', '/v1/scores/aggregations', '/v1/metrics', '/v1/health/files', '/v1/api-keys', '/v1/apps/x', '/v1/environments']) {
    t.equal(refusalFor('local', p), 'not_available_locally', p);
  }
  for (const p of ['/health', '/v1/traces', '/v1/traces/abc/spans', '/v1/spans', '/v1/sessions', '/v1/scores', '/v1/scores/batch', '/v1/scores/names', '/v1/capabilities', '/v1/pricing', '/v1/filter-schema', '/v1/runs/r1/traces']) {
    t.equal(refusalFor('local', p), null, p);
  }
  t.equal(refusalFor('local', '/favicon.ico'), null, 'non-API paths fall through to 404');
});

t.test('credentials', async (t) => {
  const app = '6f1c1c8e-1111-4222-8333-944455556666';
  t.same(readCredentials({ authorization: 'Bearer sk_service_a', 'x-service-app-id': app }, false), { key: 'sk_service_a', appId: app });
  t.same(readCredentials({ authorization: 'sk_service_a', 'x-partner-app-id': app.toUpperCase() }, false), { key: 'sk_service_a', appId: app });
  t.same(readCredentials({ authorization: 'sk_service_a', 'x-service-app-id': app }, true), { key: 'sk_service_a', appId: app }, 'raw key on OTLP');
  t.throws(() => readCredentials({ authorization: 'Bearer sk_service_a', 'x-service-app-id': app }, true), /without the "Bearer " prefix/, 'OTLP refuses Bearer');
  t.throws(() => readCredentials({ authorization: '  ', 'x-service-app-id': app }, false), /Missing Authorization/);
  try {
    readCredentials({ authorization: 'x' }, false);
    t.fail('should throw');
  } catch (e) {
    t.ok(e instanceof ApiError && e.status === 401);
  }
});

t.test('authorize', async (t) => {
  const p = { kind: 'key' as const, tenantId: 't', appId: 'a', environmentId: null, keyId: 'k', role: 'sdk' as const, permissions: ['trace.write' as const], plan: null };
  t.doesNotThrow(() => authorize(p, 'trace.write'));
  t.throws(() => authorize(p, 'score.delete'), { code: 'forbidden', fields: { required_permission: 'score.delete' } });
  t.throws(() => authorize(p, 'admin'), { code: 'forbidden', fields: { required_permission: 'full_access' } });
});

t.test('validation in order: path, query, body', async (t) => {
  interface P { id: string & tags.Format<'uuid'> }
  interface Q { limit: number & tags.Type<'uint32'> & tags.Maximum<500> }
  interface B { name: string; tags?: string[] }
  const r = route<P, Q, B>({
    method: 'POST',
    path: '/x/:id',
    permission: 'none',
    validate: { params: typia.createValidateEquals<P>(), query: typia.http.createValidateQuery<Q>(), body: typia.createValidateEquals<B>() },
    handler: h,
  });
  const id = '6f1c1c8e-1111-4222-8333-944455556666';
  const ok = validateInput(r, { id }, 'limit=5', {}, Buffer.from('{"name":"n"}'));
  t.same(ok.query, { limit: 5 }, 'query strings become typed values');
  t.same(ok.body, { name: 'n' });
  t.throws(() => validateInput(r, { id: 'x' }, 'limit=nope', {}, null), { code: 'invalid_path_parameters' }, 'path first');
  t.throws(() => validateInput(r, { id }, 'limit=501', {}, null), { code: 'invalid_query_parameters', fields: { details: { limit: /Maximum/ } } });
  t.throws(() => validateInput(r, { id }, 'limit=1', {}, Buffer.from('{"name":1,"x":2}')), { code: 'invalid_request_body', fields: { details: { name: 'expected string', x: 'unknown property' } } });
  t.throws(() => validateInput(r, { id }, 'limit=1', { 'content-type': 'text/plain' }, Buffer.from('{}')), { code: 'unsupported_media_type' });
  t.throws(() => validateInput(r, { id }, 'limit=1', {}, Buffer.from('[1,')), { code: 'invalid_request_body', fields: { details: { body: /not valid JSON/ } } });
  const raw = route({ method: 'POST', path: '/raw', permission: 'none', body: 'raw', handler: h });
  t.same(validateInput(raw, {}, '', {}, Buffer.from([1, 2])).body, Buffer.from([1, 2]), 'raw bodies pass untouched');
});
