/**
 * Integration: the same export sent many times at once to a fresh server is stored exactly once, and
 * every request is answered 200. (The store thread once made two span writers when its first two
 * writes arrived together, and their usage rows collided at commit; that interleaving is too rare to
 * provoke here, so this checks the outcome, not the race.)
 */
import t from 'tap';
import { exportRequest, hex } from '../helpers/otlp.js';
import { call, rootCredentials, serverFor } from '../helpers/server.js';

t.test('concurrent replays on a fresh store', async (t) => {
  const server = await serverFor(t);
  const root = rootCredentials(server);
  const traceId = hex(16);
  const body = JSON.stringify(exportRequest([{ traceId }, { traceId }, { traceId }]));
  const answers = await Promise.all(
    Array.from({ length: 12 }, () =>
      call(server, 'POST', '/v1/traces', {
        rawBody: body,
        headers: { authorization: root.key, 'x-service-app-id': root.appId, 'content-type': 'application/json' },
      }),
    ),
  );
  t.same(
    answers.map((a) => a.status),
    Array(12).fill(200),
    'every request answered 200',
  );
  const spans = await call(server, 'GET', `/v1/traces/${traceId}/spans`, { auth: root });
  t.equal(spans.body.data.length, 3, 'stored once');
  const summary = await call(server, 'GET', `/v1/traces?filter=${encodeURIComponent('span_count = 3')}`, {
    auth: root,
  });
  t.same(
    summary.body.data.map((x: { id: string }) => x.id),
    [traceId],
    'the summary parts counted it once',
  );
});
