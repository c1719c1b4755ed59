/**
 * Integration: an overloaded store serves the server's own work first and refuses, unrun, the
 * requests that waited past `--max-queue-wait-ms` (pool/taskPool.ts; docs/decisions.md, "Under
 * overload"). The requests' slots of the store thread are held by fault-injection tasks that sleep
 * there, so the store is overloaded deterministically.
 */
import t from 'tap';
import { STORE_REQUEST_TASKS_AT_ONCE } from '../../src/store/storeClient.js';
import { exportSpans } from '../helpers/exportSpans.js';
import { storeQueueUntil, storeSleep } from '../helpers/held.js';
import { opsMetric } from '../helpers/opsMetrics.js';
import { hex } from '../helpers/otlp.js';
import { call, rootCredentials, serverFor } from '../helpers/server.js';

const HOLD_MS = 10_000;
const WAIT_MS = 300;
const LATE = 5;

t.test("requests that waited too long are refused unrun; the server's own work goes on", async (t) => {
  const server = await serverFor(t, {
    args: ['--metrics-listen', 'api', '--max-queue-wait-ms', String(WAIT_MS)],
    env: { TRACELAKE_FAULT_INJECTION: 'on' },
  });
  const auth = rootCredentials(server);
  let released = 0;
  const holders = Array.from({ length: STORE_REQUEST_TASKS_AT_ONCE }, () =>
    storeSleep(server, HOLD_MS).finally(() => released++),
  );
  await storeQueueUntil(server, (q) => q.active === STORE_REQUEST_TASKS_AT_ONCE);

  const late = await Promise.all(Array.from({ length: LATE }, () => storeSleep(server, 0)));
  for (const answer of late) {
    t.equal(answer.status, 503);
    t.equal(answer.headers.get('retry-after'), '1');
    const { error } = (await answer.json()) as { error: { code: string; message: string } };
    t.equal(error.code, 'overloaded');
    t.match(error.message, /waited 0\.3 s/, 'saying how long it waited');
  }
  t.equal(released, 0, 'refused while every request slot was still held, not answered when one came free');

  const traceId = hex(16);
  const exported = await exportSpans(server, auth, [{ traceId, name: 'while-overloaded' }]);
  t.equal(exported.status, 200, "a span export is committed and answered: the commit is the server's own work");
  const probe = await call(server, 'GET', '/v1/health/ingestion');
  t.equal(probe.status, 200, 'the ingestion probe is answered, not refused behind the reads it reports on');
  t.equal(released, 0, 'both while the request slots were still held');

  t.equal(await opsMetric(server, 'tracelake_queue_shed_total{pool="store"}', 0), LATE);
  for (const held of await Promise.all(holders)) t.equal(held.status, 200, 'the tasks that had started finished');
  t.same(
    await (await storeSleep(server, 0)).json(),
    { sleeps: STORE_REQUEST_TASKS_AT_ONCE + 1 },
    'the refused tasks never ran: only the holders and this one did',
  );
  const read = await call(server, 'GET', `/v1/traces/${traceId}`, { auth });
  t.equal(read.status, 200, 'the span exported under overload is there');
});
