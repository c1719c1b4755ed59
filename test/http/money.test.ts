/**
 * Integration: money reads as written. Costs an SDK sends with float noise, and sums of them over a
 * trace and a session, answer as decimals of at most ten places (never 0.30000000000000004).
 */
import t from 'tap';
import { hex, type SpanSpec } from '../helpers/otlp.js';
import { call, rootCredentials, serverFor } from '../helpers/server.js';
import { exportSpans } from '../helpers/exportSpans.js';

t.test('span, trace and session costs are answered without float noise', async (t) => {
  const server = await serverFor(t);
  const root = rootCredentials(server);
  const traceId = hex(16);
  const rootSpan = hex(8);
  const session = `money-${traceId.slice(0, 8)}`;
  const spans: SpanSpec[] = [
    { traceId, spanId: rootSpan, name: 'agent', attributes: { 'session.id': session, 'tracelake.cost': 0.1 } },
    { traceId, parentSpanId: rootSpan, name: 'a', attributes: { 'tracelake.cost': 0.2 } },
    { traceId, parentSpanId: rootSpan, name: 'b', attributes: { 'tracelake.cost': 0.032780000000000004 } },
  ];
  const sent = await exportSpans(server, root, spans);
  t.equal(sent.status, 200, sent.text);

  const trace = await call(server, 'GET', `/v1/traces/${traceId}`, { auth: root });
  t.equal(trace.text.includes('0000000000'), false, 'no float noise anywhere in the answer');
  t.equal(trace.body.data.cost, 0.33278, '0.1 + 0.2 + 0.03278, as a decimal');
  t.same(trace.body.data.spans.map((s: { name: string; cost: number }) => [s.name, s.cost]).sort(), [
    ['a', 0.2],
    ['agent', 0.1],
    ['b', 0.03278],
  ]);
  const listed = await call(server, 'GET', '/v1/traces', { auth: root });
  t.equal(listed.body.data[0].cost, 0.33278);
  const csv = await call(server, 'GET', '/v1/traces?format=csv', { auth: root });
  t.match(csv.text, /,0\.33278,/, 'the CSV export too');
  const sessions = await call(server, 'GET', '/v1/sessions', { auth: root });
  t.equal(sessions.body.data.find((s: { id: string }) => s.id === session)?.cost, 0.33278, 'and the session');
});
