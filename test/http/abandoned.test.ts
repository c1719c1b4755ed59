/**
 * Integration: a request whose client goes away while its store task still waits for the store
 * thread leaves the queue at once, unrun (pool/taskPool.ts), so a burst of abandoned reads does not
 * hold the queue — and with it every later request — until it has all run. The store thread's
 * request slots are held by fault-injection tasks that sleep there, so the queue fills deterministically.
 */
import t from 'tap';
import { STORE_REQUEST_TASKS_AT_ONCE } from '../../src/store/storeClient.js';
import { storeQueueUntil, storeSleep } from '../helpers/held.js';
import { opsMetric } from '../helpers/opsMetrics.js';
import { serverFor } from '../helpers/server.js';

const HOLD_MS = 8000;
const EXTRA = 20;

t.test('abandoned requests leave the store queue unrun', async (t) => {
  const server = await serverFor(t, { args: ['--metrics-listen', 'api'], env: { TRACELAKE_FAULT_INJECTION: 'on' } });
  const holders = Array.from({ length: STORE_REQUEST_TASKS_AT_ONCE }, () => storeSleep(server, HOLD_MS));
  await storeQueueUntil(server, (q) => q.active === STORE_REQUEST_TASKS_AT_ONCE);

  const clients = Array.from({ length: EXTRA }, () => new AbortController());
  const extras = clients.map((c) => storeSleep(server, 0, { signal: c.signal }).catch((e: unknown) => e));
  t.same(
    await storeQueueUntil(server, (q) => q.queued === EXTRA),
    { queued: EXTRA, active: STORE_REQUEST_TASKS_AT_ONCE },
    'the extra requests wait for the store',
  );

  for (const c of clients) c.abort();
  const drained = await storeQueueUntil(server, (q) => q.queued === 0);
  t.equal(drained.active, STORE_REQUEST_TASKS_AT_ONCE, 'their tasks left the queue while every slot was still held');
  for (const e of await Promise.all(extras)) t.equal((e as Error).name, 'AbortError');

  for (const h of await Promise.all(holders)) t.equal(h.status, 200);
  const after = await (await storeSleep(server, 0)).json();
  t.same(
    after,
    { sleeps: STORE_REQUEST_TASKS_AT_ONCE + 1 },
    'the abandoned tasks never ran: only the holders and this one did',
  );
  t.equal(await opsMetric(server, 'tracelake_queue_abandoned_total{pool="store"}', 0), EXTRA);
});
