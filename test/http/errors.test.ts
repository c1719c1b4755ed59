/** Integration: the spec's error shape for 400/401/403/404/405/413/415/500, and serving on after a 500. */
import t, { type Test } from 'tap';
import { call, createKey, rootCredentials, serverFor } from '../helpers/server.js';
import { until } from '../helpers/until.js';

function isErrorShape(t: Test, body: unknown, code: string): void {
  t.type(body, 'object');
  const error = (body as { error: { code: unknown; message: unknown } }).error;
  t.equal(error.code, code, `code ${code}`);
  t.type(error.message, 'string');
  t.ok((error.message as string).length > 0, 'message is not empty');
  t.same(Object.keys(body as object), ['error'], 'nothing but error at the top level');
}

t.test('error shapes', async (t) => {
  const server = await serverFor(t, { env: { TRACELAKE_FAULT_INJECTION: 'on' }, args: ['--max-body', '2KiB'] });
  const root = rootCredentials(server);

  t.test('400 validation errors carry details per field', async (t) => {
    const r = await call(server, 'POST', '/v1/api-keys', {
      auth: root,
      body: { name: '', role: 'SDK', extra: true, expires_at: 'tomorrow' },
    });
    t.equal(r.status, 400);
    isErrorShape(t, r.body, 'invalid_request_body');
    t.equal(r.body.error.message, 'Invalid request body');
    t.same(Object.keys(r.body.error.details).sort(), ['expires_at', 'extra', 'name']);
    t.equal(r.body.error.details.extra, 'unknown property');
    t.match(r.body.error.details.name, /MinLength/);

    const notJson = await call(server, 'POST', '/v1/api-keys', {
      auth: root,
      rawBody: '{"name":',
      headers: { 'content-type': 'application/json' },
    });
    t.equal(notJson.status, 400);
    isErrorShape(t, notJson.body, 'invalid_request_body');
    t.match(notJson.body.error.details.body, /not valid JSON/);

    const empty = await call(server, 'POST', '/v1/api-keys', {
      auth: root,
      headers: { 'content-type': 'application/json' },
    });
    t.equal(empty.status, 400, 'a missing body is a validation error');
    t.ok(empty.body.error.details.body);

    const path = await call(server, 'DELETE', '/v1/api-keys/not-a-uuid', { auth: root });
    t.equal(path.status, 400);
    isErrorShape(t, path.body, 'invalid_path_parameters');
    t.equal(path.body.error.message, 'Invalid path parameters');
    t.ok(path.body.error.details.id);

    const query = await call(server, 'GET', '/v1/_faults/slow?ms=fast');
    t.equal(query.status, 400);
    isErrorShape(t, query.body, 'invalid_query_parameters');
    t.ok(query.body.error.details.ms);
  });

  t.test('401, 403, 404, 405, 413, 415', async (t) => {
    const unauth = await call(server, 'GET', '/v1/api-keys');
    t.equal(unauth.status, 401);
    isErrorShape(t, unauth.body, 'unauthorized');

    const sdk = await createKey(server, root, { name: 'sdk', role: 'SDK' });
    const forbidden = await call(server, 'POST', '/v1/api-keys', { auth: sdk, body: { name: 'x', role: 'SDK' } });
    t.equal(forbidden.status, 403);
    t.equal(forbidden.body.error.code, 'forbidden');
    t.equal(forbidden.body.error.required_permission, 'full_access');

    const missing = await call(server, 'GET', '/v1/does-not-exist');
    t.equal(missing.status, 404);
    isErrorShape(t, missing.body, 'not_found');
    t.equal((await call(server, 'GET', '/v2')).status, 404, 'a path outside the API is not a route');

    // The spec's last unbuilt endpoint (workers' turns) is served now: a bad path parameter is a 400, not 501.
    const served = await call(server, 'POST', '/v1/workers/environments/env-1/turns', { auth: root, body: {} });
    t.equal(served.status, 400);
    isErrorShape(t, served.body, 'invalid_path_parameters');
    t.equal(
      (await call(server, 'GET', '/v1/experiments/a/b/c', { auth: root })).status,
      404,
      'a path of no endpoint stays 404',
    );

    const wrongMethod = await call(server, 'PUT', '/v1/api-keys', { auth: root });
    t.equal(wrongMethod.status, 405);
    isErrorShape(t, wrongMethod.body, 'method_not_allowed');
    t.match(wrongMethod.headers.get('allow'), /GET/);

    const big = await call(server, 'POST', '/v1/api-keys', {
      auth: root,
      body: { name: 'x'.repeat(4096), role: 'SDK' },
    });
    t.equal(big.status, 413);
    isErrorShape(t, { error: { code: big.body.error.code, message: big.body.error.message } }, 'payload_too_large');
    t.equal(big.body.error.limit, 2048);

    const form = await call(server, 'POST', '/v1/api-keys', {
      auth: root,
      rawBody: 'name=x',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
    });
    t.equal(form.status, 415);
    isErrorShape(t, form.body, 'unsupported_media_type');

    const keys = await call(server, 'GET', '/v1/api-keys', { auth: root });
    t.equal(keys.body.data.length, 2, 'no refused request created a key (bootstrap + sdk only)');
  });

  t.test('500 in the spec shape, logged, and the process keeps serving', async (t) => {
    for (const path of ['/v1/_faults/throw', '/v1/_faults/reject']) {
      const r = await call(server, 'GET', path);
      t.equal(r.status, 500, path);
      isErrorShape(t, r.body, 'internal_error');
      t.notOk(r.text.includes('injected'), 'internal details are not leaked');
      t.match(r.headers.get('x-request-id'), /^[0-9a-f]{16}$/);
    }
    const health = await call(server, 'GET', '/health');
    t.equal(health.status, 200, 'still serving');
    // Logs arrive through a pipe: wait for both, then count them.
    await until(() => server.logs.filter((l) => l.msg === 'request failed').length >= 2);
    const logged = server.logs.filter((l) => l.msg === 'request failed');
    t.equal(logged.length, 2, 'each failure is logged');
    t.match((logged[0]!.err as { message: string }).message, /injected/);
  });
});
