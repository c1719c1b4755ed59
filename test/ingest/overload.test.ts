/**
 * Integration: an export that would take the ingest backlog (request bytes accepted and not yet in
 * committed segments) past its bound is answered 503 overloaded with Retry-After before any work,
 * and stores nothing; exports within the bound go on being accepted.
 */
import t from 'tap';
import { exportRequest, hex } from '../helpers/otlp.js';
import { call, rootCredentials, serverFor } from '../helpers/server.js';

t.test('back-pressure', async (t) => {
  const server = await serverFor(t, { args: ['--ingest-backlog', '16KiB'] });
  const root = rootCredentials(server);
  const send = async (spans: number, wait = '') => {
    const traceId = hex(16);
    const body = JSON.stringify(exportRequest(Array.from({ length: spans }, () => ({ traceId, attributes: { 'input.value': 'x'.repeat(200) } }))));
    const r = await call(server, 'POST', '/v1/traces', { rawBody: body, headers: { authorization: root.key, 'x-service-app-id': root.appId, 'content-type': 'application/json', 'x-tracelake-wait': wait } });
    return { ...r, traceId, bytes: body.length };
  };
  const small = await send(2, 'visible');
  t.equal(small.status, 200, `an export of ${small.bytes} bytes fits`);
  const large = await send(200);
  t.ok(large.bytes > 16 * 1024, `one of ${large.bytes} bytes does not`);
  t.equal(large.status, 503);
  t.equal(large.body.error.code, 'overloaded');
  t.equal(large.headers.get('retry-after'), '1');
  t.equal(large.body.error.retry_after_seconds, 1);
  t.equal((await call(server, 'GET', `/v1/traces/${large.traceId}`, { auth: root })).status, 404, 'a refused body stored nothing');
  const after = await send(2, 'visible');
  t.equal(after.status, 200, 'the next export within the bound is accepted');
  for (const a of [small, after]) t.equal((await call(server, 'GET', `/v1/traces/${a.traceId}/spans`, { auth: root })).body.data.length, 2, 'and stored');
});
