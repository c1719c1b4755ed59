/** Integration: a full worker queue answers 503 overloaded with Retry-After, and refused bodies store nothing. */
import t from 'tap';
import { exportRequest, hex } from '../helpers/otlp.js';
import { call, rootCredentials, serverFor } from '../helpers/server.js';

t.test('back-pressure', async (t) => {
  const server = await serverFor(t, { args: ['--workers', '1', '--max-queue', '1'] });
  const root = rootCredentials(server);
  const posts = Array.from({ length: 24 }, async () => {
    const traceId = hex(16);
    const body = JSON.stringify(exportRequest(Array.from({ length: 200 }, () => ({ traceId, attributes: { 'input.value': 'x'.repeat(200) } }))));
    const r = await call(server, 'POST', '/v1/traces', { rawBody: body, headers: { authorization: root.key, 'x-service-app-id': root.appId, 'content-type': 'application/json' } });
    return { ...r, traceId };
  });
  const answers = await Promise.all(posts);
  const refused = answers.filter((a) => a.status === 503);
  const accepted = answers.filter((a) => a.status === 200);
  t.ok(refused.length > 0, `some requests were refused (${refused.length})`);
  t.ok(accepted.length > 0, `some were accepted (${accepted.length})`);
  t.same(answers.filter((a) => a.status !== 200 && a.status !== 503).map((a) => `${a.status} ${a.text}`), [], 'every answer is 200 or 503');
  for (const r of refused) {
    t.equal(r.body.error.code, 'overloaded');
    t.equal(r.headers.get('retry-after'), '1');
    t.equal(r.body.error.retry_after_seconds, 1);
  }
  for (const r of refused.slice(0, 3)) t.equal((await call(server, 'GET', `/v1/traces/${r.traceId}`, { auth: root })).status, 404, 'a refused body stored nothing');
  for (const a of accepted.slice(0, 3)) t.equal((await call(server, 'GET', `/v1/traces/${a.traceId}/spans`, { auth: root })).body.data.length, 200);
  t.equal((await call(server, 'GET', '/health')).status, 200, 'and the server keeps serving');
});
