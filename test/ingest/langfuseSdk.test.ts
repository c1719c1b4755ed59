/**
 * Integration: the Langfuse SDK as its users set it up (`LangfuseSpanProcessor` with the public key,
 * secret key and base URL; `@langfuse/tracing` to record), pointed at Tracelake with the app id as
 * the public key and a Tracelake key as the secret. It exports to `/api/public/otel/v1/traces` with
 * Basic auth; what it recorded is read back over Tracelake's own API.
 */
import { context } from '@opentelemetry/api';
import { AsyncLocalStorageContextManager } from '@opentelemetry/context-async-hooks';
import { BasicTracerProvider } from '@opentelemetry/sdk-trace-base';
import { LangfuseSpanProcessor } from '@langfuse/otel';
import { propagateAttributes, setLangfuseTracerProvider, startActiveObservation } from '@langfuse/tracing';
import t from 'tap';
import { call, createKey, rootCredentials, serverFor, type Credentials, type TestServer } from '../helpers/server.js';

/** Records one conversation through the SDK and exports it; the ids of what it recorded. */
async function recordConversation(server: TestServer, sdk: Credentials) {
  const processor = new LangfuseSpanProcessor({
    publicKey: sdk.appId,
    secretKey: sdk.key,
    baseUrl: server.url,
    // The test reads right after the flush: answered once the spans can be read.
    additionalHeaders: { 'X-Tracelake-Wait': 'visible' },
  });
  const provider = new BasicTracerProvider({ spanProcessors: [processor] });
  setLangfuseTracerProvider(provider);
  const ids = { traceId: '', rootId: '', generationId: '', toolId: '' };
  await startActiveObservation('handle-question', async (root) => {
    ids.traceId = root.traceId;
    ids.rootId = root.id;
    root.update({ input: 'How do I reset my password?', output: 'Use the reset link.' });
    await propagateAttributes(
      {
        sessionId: 'sess-langfuse',
        userId: 'user-42',
        tags: ['support', 'langfuse'],
        metadata: { customer: 'acme' },
        traceName: 'support-flow',
      },
      async () => {
        const generation = root.startObservation(
          'answer',
          {
            model: 'gpt-4o-mini',
            input: [{ role: 'user', content: 'How do I reset my password?' }],
            output: { role: 'assistant', content: 'Use the reset link.' },
            usageDetails: { input: 1200, output: 300, total: 1500 },
            costDetails: { input: 0.0125, output: 0.005 },
            prompt: { name: 'support-answer', version: 3, isFallback: false },
            metadata: { step: 'answer' },
            level: 'WARNING',
          },
          { asType: 'generation' },
        );
        ids.generationId = generation.id;
        generation.end();
        const tool = root.startObservation(
          'lookup-account',
          { input: { account: 'a-1' }, level: 'ERROR', statusMessage: 'account locked' },
          { asType: 'tool' },
        );
        ids.toolId = tool.id;
        tool.end();
      },
    );
  });
  await processor.forceFlush();
  await provider.shutdown();
  return ids;
}

t.test('the Langfuse SDK, pointed at Tracelake, lands as traces read back over the API', async (t) => {
  // Langfuse's docs register an async context manager (the OTel Node SDK's): propagateAttributes needs one.
  const contextManager = new AsyncLocalStorageContextManager().enable();
  context.setGlobalContextManager(contextManager);
  t.teardown(() => {
    context.disable();
    setLangfuseTracerProvider(null);
  });
  const server = await serverFor(t);
  const root = rootCredentials(server);
  const sdk = await createKey(server, root, { name: 'langfuse-sdk', role: 'SDK' });
  const reader = await createKey(server, root, { name: 'reader', role: 'Read-Only' });
  const ids = await recordConversation(server, sdk);

  const trace = await call(server, 'GET', `/v1/traces/${ids.traceId}`, { auth: reader });
  t.equal(trace.status, 200, trace.text);
  const d = trace.body.data;
  t.equal(d.name, 'handle-question', 'the root observation names the trace');
  t.equal(d.span_count, 3);
  t.equal(d.session_id, 'sess-langfuse');
  t.equal(d.user_id, 'user-42');
  t.same(d.tags, ['langfuse', 'support']);
  t.same(d.metadata, { customer: 'acme' }, 'trace metadata');
  t.equal(d.tokens, 1500);
  t.equal(d.cost, 0.0175, "the SDK's cost details, totalled");
  t.equal(d.status, 'ERROR', 'an ERROR level makes the trace an error');
  t.equal(d.input_preview, 'How do I reset my password?');

  const byId = new Map(d.spans.map((s: { id: string }) => [s.id, s]));
  const rootSpan = byId.get(ids.rootId) as Record<string, unknown>;
  t.equal(rootSpan.parent_id, null);
  t.equal(rootSpan.type, 'SPAN');
  t.equal(rootSpan.span_kind, 'function');
  const generation = byId.get(ids.generationId) as Record<string, unknown>;
  t.equal(generation.parent_id, ids.rootId, 'the generation is the root observation’s child');
  t.equal(generation.type, 'GENERATION');
  t.equal(generation.span_kind, 'llm');
  t.equal(generation.model, 'gpt-4o-mini');
  t.equal(generation.input_tokens, 1200);
  t.equal(generation.output_tokens, 300);
  t.equal(generation.cost, 0.0175);
  t.equal(generation.prompt_name, 'support-answer');
  t.equal(generation.session_id, 'sess-langfuse');
  t.equal(generation.status, 'UNSET', 'a WARNING level is no error');
  t.same(generation.metadata, { customer: 'acme', step: 'answer' }, 'observation metadata over trace metadata');
  const tool = byId.get(ids.toolId) as Record<string, unknown>;
  t.equal(tool.parent_id, ids.rootId);
  t.equal(tool.span_kind, 'tool');
  t.equal(tool.status, 'ERROR');
  t.equal(tool.status_message, 'account locked');

  const one = await call(server, 'GET', `/v1/traces/${ids.traceId}/spans/${ids.generationId}`, { auth: reader });
  t.equal(one.status, 200, one.text);
  const span = one.body.data;
  t.same(JSON.parse(span.input), [{ role: 'user', content: 'How do I reset my password?' }]);
  t.same(JSON.parse(span.output), { role: 'assistant', content: 'Use the reset link.' });
  t.equal(span.attributes['langfuse.observation.level'], 'WARNING', 'the level is kept');
  t.equal(span.attributes['langfuse.observation.prompt.version'], 3, 'the prompt version is kept');
  t.equal(span.attributes['langfuse.trace.name'], 'support-flow', 'the trace name is kept');
  t.equal(span.scope.name, 'langfuse-sdk');

  const sessions = await call(server, 'GET', '/v1/sessions/sess-langfuse/traces', { auth: reader });
  t.same(
    sessions.body.data.map((x: { id: string }) => x.id),
    [ids.traceId],
  );
});

t.test('Basic credentials are checked as any others', async (t) => {
  const server = await serverFor(t);
  const root = rootCredentials(server);
  const basic = (user: string, password: string) => `Basic ${Buffer.from(`${user}:${password}`).toString('base64')}`;
  const post = (authorization: string, extra: Record<string, string> = {}) =>
    call(server, 'POST', '/api/public/otel/v1/traces', {
      rawBody: '{"resourceSpans":[]}',
      headers: { 'content-type': 'application/json', authorization, ...extra },
    });
  t.equal((await post(basic(root.appId, root.key))).status, 200, 'app id and key as user and password');
  const wrongKey = await post(basic(root.appId, 'sk_nope'));
  t.equal(wrongKey.status, 401);
  t.equal(wrongKey.body.error.code, 'unauthorized');
  const notUuid = await post(basic('pk-lf-123', root.key));
  t.equal(notUuid.status, 401);
  t.match(notUuid.body.error.message, /Basic user/);
  const otherApp = await post(basic(root.appId, root.key), {
    'x-service-app-id': '00000000-0000-4000-8000-000000000000',
  });
  t.equal(otherApp.status, 401);
  t.match(otherApp.body.error.message, /different apps/);
});
