/**
 * Integration: the real OpenTelemetry JS SDK exports to the server with the OTLP/HTTP protobuf and
 * JSON exporters, and every read endpoint serves the spans back with the right fields.
 */
import { context, trace, SpanStatusCode } from '@opentelemetry/api';
import t from 'tap';
import { tracerProvider, type Protocol } from '../helpers/otel.js';
import { call, createKey, rootCredentials, serverFor, type Credentials, type TestServer } from '../helpers/server.js';

async function emitConversation(server: TestServer, sdk: Credentials, protocol: Protocol, sessionId: string) {
  const { provider, tracer } = tracerProvider(server, sdk, protocol, `support-bot-${protocol}`);
  let traceId = '';
  let rootId = '';
  let llmId = '';
  const root = tracer.startSpan('handle-question', {
    attributes: {
      'session.id': sessionId,
      'user.id': 'user-42',
      'tracelake.run.id': `run-${protocol}`,
      'tracelake.metadata.customer': 'acme',
      'tracelake.metadata.tier': 'gold',
      'tracelake.tags': ['support', protocol],
      'input.value': 'How do I reset my password?',
      'output.value': 'Use the reset link.',
      'graph.node.id': 'router',
      'graph.node.name': 'Router',
    },
  });
  traceId = root.spanContext().traceId;
  rootId = root.spanContext().spanId;
  const ctx = trace.setSpan(context.active(), root);
  const llm = tracer.startSpan(
    'chat gpt-4o-mini',
    {
      attributes: {
        'gen_ai.operation.name': 'chat',
        'gen_ai.system': 'openai',
        'gen_ai.request.model': 'gpt-4o-mini',
        'gen_ai.usage.input_tokens': 1200,
        'gen_ai.usage.output_tokens': 300,
        'gen_ai.prompt.0.role': 'user',
        'gen_ai.prompt.0.content': 'How do I reset my password?',
        'gen_ai.completion.0.role': 'assistant',
        'gen_ai.completion.0.content': 'Use the reset link.',
        'tracelake.metadata.step': 'answer',
        'tracelake.prompt.name': 'support-answer',
        'graph.node.id': 'answer',
        'graph.node.parent_id': 'router',
      },
    },
    ctx,
  );
  llmId = llm.spanContext().spanId;
  llm.addEvent('first-token', { 'latency.ms': 120 });
  llm.setStatus({ code: SpanStatusCode.OK });
  llm.end();
  const tool = tracer.startSpan(
    'lookup-account',
    { attributes: { 'openinference.span.kind': 'TOOL', 'tool.name': 'lookup' } },
    ctx,
  );
  tool.setStatus({ code: SpanStatusCode.ERROR, message: 'account locked' });
  tool.end();
  root.end();
  await provider.forceFlush();
  await provider.shutdown();
  return { traceId, rootId, llmId, toolId: tool.spanContext().spanId };
}

for (const protocol of ['proto', 'json'] as const) {
  t.test(`OTLP/HTTP ${protocol} exporter → every read endpoint`, async (t) => {
    const server = await serverFor(t);
    const root = rootCredentials(server);
    const sdk = await createKey(server, root, { name: 'sdk', role: 'SDK' });
    const reader = await createKey(server, root, { name: 'reader', role: 'Read-Only' });
    const sessionId = `sess-${protocol}`;
    const ids = await emitConversation(server, sdk, protocol, sessionId);

    // Read-your-writes: the exporter's flush returned, so the spans are readable now.
    const tr = await call(server, 'GET', `/v1/traces/${ids.traceId}`, { auth: reader });
    t.equal(tr.status, 200, tr.text);
    const d = tr.body.data;
    t.equal(d.id, ids.traceId);
    t.equal(d.name, 'handle-question', 'the root span names the trace');
    t.equal(d.status, 'ERROR', 'an error anywhere makes the trace ERROR');
    t.equal(d.span_count, 3, 'three spans (the event is not a span)');
    t.equal(d.tokens, 1500);
    t.ok(d.cost > 0, 'cost computed from the price table');
    // gpt-4o-mini: $0.15 / $0.60 per 1M tokens → 1200 × 0.15e-6 + 300 × 0.6e-6
    t.equal(Math.round(d.cost * 1e8) / 1e8, Math.round((1200 * 0.15e-6 + 300 * 0.6e-6) * 1e8) / 1e8);
    t.same(d.metadata, { customer: 'acme', tier: 'gold' }, 'trace metadata is the root span metadata');
    t.same(d.tags, [protocol, 'support'].sort());
    t.equal(d.session_id, sessionId);
    t.equal(d.user_id, 'user-42');
    t.equal(d.input_preview, 'How do I reset my password?');
    t.ok(Date.parse(d.end) >= Date.parse(d.start));
    t.equal(d.spans.length, 4, 'spans include the EVENT row');
    t.notOk('graph' in d, 'no graph unless asked');
    const llm = d.spans.find((s: { id: string }) => s.id === ids.llmId);
    t.equal(llm.type, 'GENERATION');
    t.equal(llm.span_kind, 'llm');
    t.equal(llm.model, 'gpt-4o-mini');
    t.equal(llm.input_tokens, 1200);
    t.equal(llm.output_tokens, 300);
    t.equal(llm.prompt_name, 'support-answer');
    t.equal(llm.service_name, `support-bot-${protocol}`);
    t.equal(llm.status, 'OK');
    t.equal(llm.parent_id, ids.rootId);
    t.same(llm.metadata, { step: 'answer' });
    t.notOk(JSON.stringify(llm.metadata).includes('graph'), 'reserved namespaces are not metadata');
    const tool = d.spans.find((s: { id: string }) => s.id === ids.toolId);
    t.equal(tool.span_kind, 'tool');
    t.equal(tool.status, 'ERROR');
    t.equal(tool.status_message, 'account locked');
    const event = d.spans.find((s: { type: string }) => s.type === 'EVENT');
    t.equal(event.name, 'first-token');
    t.equal(event.parent_id, ids.llmId);
    t.same(event.metadata, { 'latency.ms': 120 });

    const withGraph = await call(server, 'GET', `/v1/traces/${ids.traceId}?fields=graph`, { auth: reader });
    t.same(withGraph.body.data.graph.edges, [{ source: 'router', target: 'answer' }]);
    const graph = await call(server, 'GET', `/v1/traces/${ids.traceId}/graph`, { auth: reader });
    t.same(graph.body.data.nodes.map((n: { id: string; name: string }) => [n.id, n.name]).sort(), [
      ['answer', 'chat gpt-4o-mini'],
      ['router', 'Router'],
    ]);

    const spans = await call(server, 'GET', `/v1/traces/${ids.traceId}/spans`, { auth: reader });
    t.equal(spans.status, 200);
    const starts = spans.body.data.map((s: { timestamp: string }) => Date.parse(s.timestamp));
    t.same(
      starts,
      [...starts].sort((a, b) => a - b),
      'ordered by start',
    );
    t.notOk('pagination' in spans.body, 'not paginated');

    const one = await call(server, 'GET', `/v1/traces/${ids.traceId}/spans/${ids.llmId}`, { auth: reader });
    t.equal(one.status, 200);
    t.same(JSON.parse(one.body.data.input), [{ role: 'user', content: 'How do I reset my password?' }]);
    t.same(JSON.parse(one.body.data.output), [{ role: 'assistant', content: 'Use the reset link.' }]);
    t.same(one.body.data.metadata, { step: 'answer' });
    const direct = await call(server, 'GET', `/v1/spans/${ids.llmId}`, { auth: reader });
    t.same(direct.body.data, one.body.data, '/v1/spans/{id} is the same span');

    const sessions = await call(server, 'GET', '/v1/sessions', { auth: reader });
    t.equal(sessions.status, 200);
    t.same(sessions.body.pagination, { total: 1, limit: 50, offset: 0 });
    const s = sessions.body.data[0];
    t.equal(s.id, sessionId);
    t.equal(s.trace_count, 1);
    t.equal(s.span_count, 3);
    t.equal(s.tokens, 1500);
    t.equal(s.user_id, 'user-42');
    const sessionTraces = await call(server, 'GET', `/v1/sessions/${sessionId}/traces`, { auth: reader });
    t.same(
      sessionTraces.body.data.map((x: { id: string }) => x.id),
      [ids.traceId],
    );
    const run = await call(server, 'GET', `/v1/runs/run-${protocol}/traces`, { auth: reader });
    t.same(
      run.body.data.map((x: { id: string }) => x.id),
      [ids.traceId],
    );

    // Write-only keys cannot read back (spec rule 3).
    t.equal((await call(server, 'GET', `/v1/traces/${ids.traceId}`, { auth: sdk })).status, 403);
  });
}
