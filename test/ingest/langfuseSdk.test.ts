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
import { LangfuseClient } from '@langfuse/client';
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

  // The client users call next, with the same three settings.
  const langfuse = new LangfuseClient({ publicKey: sdk.appId, secretKey: sdk.key, baseUrl: server.url });
  await t.test('scores: langfuse.score.create and POST /api/public/scores land in the score store', async (t) => {
    const config = await call(server, 'POST', '/v1/score-configs', {
      auth: root,
      body: {
        name: 'tone',
        data_type: 'CATEGORICAL',
        categories: [
          { label: 'friendly', value: 1 },
          { label: 'curt', value: 0 },
        ],
      },
    });
    t.equal(config.status, 201, config.text);
    langfuse.score.create({ traceId: ids.traceId, name: 'helpfulness', value: 0.9, comment: 'clear steps' });
    langfuse.score.create({ traceId: ids.traceId, name: 'tone', value: 'friendly', dataType: 'CATEGORICAL' });
    langfuse.score.create({
      traceId: ids.traceId,
      observationId: ids.generationId,
      name: 'grounded',
      value: 1,
      dataType: 'BOOLEAN',
    });
    await langfuse.score.flush();
    const created = await langfuse.api.legacy.scoreV1.create({
      sessionId: 'sess-langfuse',
      name: 'resolved',
      value: 1,
    });
    t.match(created.id, /^[0-9a-f-]{36}$/, 'POST /api/public/scores answers the score id');

    const scores = await call(server, 'GET', '/v1/scores?limit=10', { auth: reader });
    t.equal(scores.status, 200, scores.text);
    const byName = new Map(scores.body.data.map((s: { name: string }) => [s.name, s]));
    t.match(byName.get('helpfulness'), {
      resource_id: ids.traceId,
      score: 0.9,
      data_type: 'NUMERIC',
      reason: 'clear steps',
      source: 'sdk',
    });
    t.match(byName.get('tone'), { resource_id: ids.traceId, data_type: 'CATEGORICAL', label: 'friendly', score: 1 });
    t.match(byName.get('grounded'), { resource_id: ids.generationId, data_type: 'BOOLEAN', score: 1 });
    t.match(byName.get('resolved'), { id: created.id, session_id: 'sess-langfuse', score: 1 });
    t.equal(scores.body.data.length, 4);

    // Each event is answered on its own, in Langfuse's 207: other event types are refused, not dropped.
    const batch = await langfuse.api.ingestion.batch({
      batch: [
        {
          id: 'e1',
          type: 'score-create',
          timestamp: new Date().toISOString(),
          body: { traceId: ids.traceId, name: 'helpfulness', value: 0.5 },
        },
        { id: 'e2', type: 'trace-create', timestamp: new Date().toISOString(), body: { name: 'legacy' } },
        { id: 'e3', type: 'score-create', timestamp: new Date().toISOString(), body: { name: 'orphan', value: 1 } },
        {
          id: 'e4',
          type: 'score-create',
          timestamp: new Date().toISOString(),
          body: { traceId: ids.traceId, name: 'tone', value: 'rude' },
        },
      ],
    });
    t.same(batch.successes, [{ id: 'e1', status: 201 }]);
    t.same(
      batch.errors.map((e) => [e.id, e.status]),
      [
        ['e2', 501],
        ['e3', 400],
        ['e4', 400],
      ],
    );
    t.match(batch.errors[0]!.message, /trace-create events are not taken.*otel\/v1\/traces/);
    t.match(batch.errors[1]!.message, /traceId, observationId or sessionId is required/);
    t.match(batch.errors[2]!.message, /label: must be one of "friendly", "curt"/);
  });

  await t.test('prompts: langfuse.prompt.get by label and by version, compiled', async (t) => {
    for (const [prompt, labels] of [
      ['Hello {{name}}, version one.', ['production']],
      ['Hello {{name}}, welcome to {{product}}!', ['staging']],
    ] as const) {
      const made = await call(server, 'POST', '/v1/prompts', {
        auth: root,
        body: { name: 'support/greeting', prompt, labels, config: { model: 'gpt-4o' } },
      });
      t.equal(made.status, 201, made.text);
    }
    const chat = await call(server, 'POST', '/v1/prompts', {
      auth: root,
      body: {
        name: 'support/agent',
        type: 'chat',
        prompt: [
          { role: 'system', content: 'You support {{product}}.' },
          { role: 'user', content: '{{question}}' },
        ],
        labels: ['production'],
      },
    });
    t.equal(chat.status, 201, chat.text);

    const production = await langfuse.prompt.get('support/greeting', { cacheTtlSeconds: 0 });
    t.equal(production.version, 1, 'no label or version: production');
    t.equal(production.compile({ name: 'Ada' }), 'Hello Ada, version one.');
    const staging = await langfuse.prompt.get('support/greeting', { label: 'staging', cacheTtlSeconds: 0 });
    t.equal(staging.version, 2);
    t.same(staging.config, { model: 'gpt-4o' });
    t.ok(staging.labels.includes('staging') && staging.labels.includes('latest'), 'its labels');
    t.equal(staging.compile({ name: 'Ada', product: 'Tracelake' }), 'Hello Ada, welcome to Tracelake!');
    const byVersion = await langfuse.prompt.get('support/greeting', { version: 1, cacheTtlSeconds: 0 });
    t.equal(byVersion.prompt, 'Hello {{name}}, version one.');
    const agent = await langfuse.prompt.get('support/agent', { type: 'chat', cacheTtlSeconds: 0 });
    t.same(agent.compile({ product: 'Tracelake', question: 'Where is my order?' }), [
      { role: 'system', content: 'You support Tracelake.' },
      { role: 'user', content: 'Where is my order?' },
    ]);
    await t.rejects(langfuse.prompt.get('support/missing', { cacheTtlSeconds: 0 }), 'a missing prompt is an error');
  });

  await t.test('every other call under /api/public/ answers 501, naming what is served', async (t) => {
    for (const [method, path] of [
      ['GET', '/api/public/traces'],
      ['GET', '/api/public/scores'],
      ['POST', '/api/public/datasets'],
    ] as const) {
      const answer = await call(server, method, path, { auth: reader });
      t.equal(answer.status, 501, `${method} ${path}`);
      t.equal(answer.body.error.code, 'not_implemented');
      t.match(answer.body.error.message, /GET \/api\/public\/v2\/prompts\/\{name\}/);
    }
  });
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
