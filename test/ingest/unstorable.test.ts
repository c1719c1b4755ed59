/**
 * Integration: values the contract lets in but no span can keep never stop ingestion. A span sent
 * with a cost of 1e300 (by the real OTLP exporter) and a coding-agent session dated 9999-12-31 once
 * each failed the commit of their generation again and again — every span acknowledged after them,
 * of every tenant, waited behind them, never readable (found by test/http/validBodies.alone.test.ts).
 * Now the cost is stored as none and the session is refused with its reason, and what comes after
 * is readable as usual.
 */
import { randomUUID } from 'node:crypto';
import t from 'tap';
import { tracerProvider } from '../helpers/otel.js';
import { exportRequest, hex } from '../helpers/otlp.js';
import { call, rootCredentials, serverFor } from '../helpers/server.js';

t.test('a span cost past what a span keeps is stored as none; later spans are readable', async (t) => {
  const server = await serverFor(t);
  const root = rootCredentials(server);
  const { provider, tracer } = tracerProvider(server, root, 'proto', 'billing');
  const span = tracer.startSpan('overpriced', { attributes: { 'tracelake.cost': 1e300 } });
  const traceId = span.spanContext().traceId;
  span.end();
  const priced = tracer.startSpan('priced', { attributes: { 'tracelake.cost': 0.25 } });
  priced.end();
  // The exporter's export waits until its spans are readable: a stuck commit would hang here.
  await provider.forceFlush();
  await provider.shutdown();

  const read = await call(server, 'GET', `/v1/traces/${traceId}`, { auth: root });
  t.equal(read.status, 200, read.text);
  t.equal(read.body.data.spans[0].cost, null, 'no cost kept');
  t.equal(read.body.data.cost, 0, 'the trace sums none');
  const detail = await call(server, 'GET', `/v1/spans/${span.spanContext().spanId}`, { auth: root });
  t.equal(Number(detail.body.data.attributes['tracelake.cost']), 1e300, 'the attribute keeps what was sent');
  const costs = await call(server, 'GET', `/v1/spans?filter=${encodeURIComponent('cost > 0')}`, { auth: root });
  t.same(
    costs.body.data.map((s: { name: string; cost: number }) => [s.name, s.cost]),
    [['priced', 0.25]],
    'the other span kept its cost',
  );

  const next = hex(16);
  const after = await call(server, 'POST', '/v1/traces', {
    headers: { authorization: root.key, 'x-service-app-id': root.appId },
    body: exportRequest([{ traceId: next, name: 'after' }]),
  });
  t.equal(after.status, 200, after.text);
  t.equal((await call(server, 'GET', `/v1/traces/${next}`, { auth: root })).status, 200, 'a later trace is readable');
});

t.test(
  'a coding-agent session with a time no span can hold is refused with its reason; the rest of the batch is stored',
  async (t) => {
    const server = await serverFor(t);
    const root = rootCredentials(server);
    const session = (id: string, endedAt: string) => ({
      id,
      agent: { name: 'claude-code' },
      startedAt: '2026-11-28T09:00:00Z',
      endedAt,
      events: [
        {
          id: 'u1',
          type: 'user_message',
          timestamp: '2026-11-28T09:00:01Z',
          content: [{ type: 'text', text: 'hello' }],
        },
      ],
    });
    const late = randomUUID();
    const fine = randomUUID();
    const synced = await call(server, 'POST', '/v1/agents/sync', {
      auth: root,
      body: {
        schemaVersion: 1,
        sessions: [session(late, '9999-12-31T23:59:59.999Z'), session(fine, '2026-11-28T09:05:00Z')],
      },
    });
    t.equal(synced.status, 200, synced.text);
    t.same(synced.body.data.accepted, [fine]);
    t.same(synced.body.data.rejected, [
      {
        index: 0,
        id: late,
        reason:
          'endedAt: 9999-12-31T23:59:59.999Z is outside the times a span can have (after 1970-01-01T00:00:00.000Z and up to 2262-04-11T23:47:16.854Z)',
      },
    ]);
    const early = await call(server, 'POST', '/v1/agents/sync', {
      auth: root,
      body: {
        schemaVersion: 1,
        sessions: [{ ...session(randomUUID(), '2026-11-28T09:05:00Z'), startedAt: '1969-07-20T20:17:40Z' }],
      },
    });
    t.match(
      early.body.data.rejected,
      [{ index: 0, reason: /^startedAt: 1969-07-20T20:17:40Z is outside/ }],
      'before the epoch too',
    );

    const next = hex(16);
    const after = await call(server, 'POST', '/v1/traces', {
      headers: { authorization: root.key, 'x-service-app-id': root.appId },
      body: exportRequest([{ traceId: next, name: 'after' }]),
    });
    t.equal(after.status, 200, after.text);
    t.equal((await call(server, 'GET', `/v1/traces/${next}`, { auth: root })).status, 200, 'a later trace is readable');
    const sessions = await call(server, 'GET', '/v1/sessions', { auth: root });
    t.equal(sessions.status, 200);
  },
);
