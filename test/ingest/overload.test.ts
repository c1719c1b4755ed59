/**
 * Integration: an export that would take the ingest backlog (request bytes accepted and not yet in
 * committed segments) past its bound is answered 503 overloaded with Retry-After before any work,
 * and stores nothing; exports within the bound go on being accepted. The same when the compute
 * pool's queue is full (`--max-queue`) for JSON bodies, whose keys a worker reads before the answer.
 */
import t from 'tap';
import { exportRequest, hex } from '../helpers/otlp.js';
import { opsMetric } from '../helpers/opsMetrics.js';
import { call, rootCredentials, serverFor, type TestServer } from '../helpers/server.js';
import { exportSpans } from '../helpers/exportSpans.js';

t.test('back-pressure', async (t) => {
  const server = await serverFor(t, { args: ['--ingest-backlog', '16KiB'] });
  const root = rootCredentials(server);
  const send = async (spans: number, wait = '') => {
    const traceId = hex(16);
    const body = JSON.stringify(
      exportRequest(Array.from({ length: spans }, () => ({ traceId, attributes: { 'input.value': 'x'.repeat(200) } }))),
    );
    const r = await call(server, 'POST', '/v1/traces', {
      rawBody: body,
      headers: {
        authorization: root.key,
        'x-service-app-id': root.appId,
        'content-type': 'application/json',
        'x-tracelake-wait': wait,
      },
    });
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
  t.equal(
    (await call(server, 'GET', `/v1/traces/${large.traceId}`, { auth: root })).status,
    404,
    'a refused body stored nothing',
  );
  const after = await send(2, 'visible');
  t.equal(after.status, 200, 'the next export within the bound is accepted');
  for (const a of [small, after])
    t.equal(
      (await call(server, 'GET', `/v1/traces/${a.traceId}/spans`, { auth: root })).body.data.length,
      2,
      'and stored',
    );
});

/** Tasks the compute pool refused with a full queue (no sample before the first). */
const computeRejections = (server: TestServer) =>
  opsMetric(server, 'tracelake_queue_rejections_total{pool="compute"}', 0);

t.test(
  'a full compute queue: JSON exports (whose keys a compute worker reads before the answer) get 503 and store nothing',
  async (t) => {
    // One worker taking 8 tasks at once and a queue of 1: a burst of large JSON bodies overflows it.
    const server = await serverFor(t, { args: ['--workers', '1', '--max-queue', '1', '--metrics-listen', 'api'] });
    const root = rootCredentials(server);
    const burst = () =>
      Promise.all(
        Array.from({ length: 32 }, async () => {
          const traceId = hex(16);
          const body = JSON.stringify(
            exportRequest(
              Array.from({ length: 400 }, () => ({ traceId, attributes: { 'input.value': 'x'.repeat(400) } })),
            ),
          );
          const r = await call(server, 'POST', '/v1/traces', {
            rawBody: body,
            headers: { authorization: root.key, 'x-service-app-id': root.appId, 'content-type': 'application/json' },
          });
          return { ...r, traceId };
        }),
      );
    // How fast the worker drains the queue depends on the machine: bursts go on until one overflows it.
    const answers = [];
    for (let i = 0; i < 5 && (await computeRejections(server)) === 0; i++) answers.push(...(await burst()));
    t.ok((await computeRejections(server)) > 0, 'the compute queue refused tasks');
    t.same(
      answers.filter((a) => a.status !== 200 && a.status !== 503).map((a) => `${a.status} ${a.text}`),
      [],
      'every answer is 200 or 503',
    );
    const refused = answers.filter((a) => a.status === 503);
    const accepted = answers.filter((a) => a.status === 200);
    t.ok(refused.length > 0 && accepted.length > 0, `${accepted.length} accepted, ${refused.length} refused`);
    for (const r of refused)
      t.match(
        [r.body.error.code, r.headers.get('retry-after'), r.body.error.retry_after_seconds],
        ['overloaded', '1', 1],
      );
    // Read-your-writes for everything accepted so far: one more export waits until it is visible.
    const last = await exportSpans(server, root, [{ traceId: hex(16) }]);
    t.equal(last.status, 200);
    for (const a of accepted)
      t.equal(
        (await call(server, 'GET', `/v1/traces/${a.traceId}/spans`, { auth: root })).body.data?.length,
        400,
        'an accepted body is stored whole',
      );
    for (const r of refused)
      t.equal(
        (await call(server, 'GET', `/v1/traces/${r.traceId}`, { auth: root })).status,
        404,
        'a refused body stored nothing',
      );
  },
);
