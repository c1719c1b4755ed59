/**
 * Integration: spans made by real instrumentation packages from the registry, not hand-written
 * attributes. The OpenInference OpenAI instrumentation wraps the `openai` SDK and the Vercel AI SDK
 * records its own telemetry; both call a local fake model server, export with the real OTLP/HTTP
 * exporters (protobuf and JSON), and the spans are read back through the API: model, tokens, cost
 * (priced from `GET /v1/pricing`), input, output and metadata.
 */
import { AsyncLocalStorage } from 'node:async_hooks';
import { createOpenAI } from '@ai-sdk/openai';
import { OpenAIInstrumentation } from '@arizeai/openinference-instrumentation-openai';
import { context, ROOT_CONTEXT, type Context, type ContextManager } from '@opentelemetry/api';
import { resourceFromAttributes } from '@opentelemetry/resources';
import {
  BasicTracerProvider,
  SimpleSpanProcessor,
  type ReadableSpan,
  type SpanProcessor,
} from '@opentelemetry/sdk-trace-base';
import { embed, generateText } from 'ai';
import OpenAI from 'openai';
import t, { type Test } from 'tap';
import type { ModelPrice, PriceTable } from '../../src/core/cost/pricing.js';
import { FAKE_ANSWERS, fakeModelFor, type FakeModel } from '../helpers/fakeModel.js';
import { exporterFor, instrumentedServer, type InstrumentedServer, type Protocol } from '../helpers/otel.js';
import { call, type Credentials, type TestServer } from '../helpers/server.js';

/**
 * The AI SDK nests its spans through the active context, which needs a context manager; an
 * application gets one from the Node SDK. This is the same AsyncLocalStorage design, kept here so
 * the test depends on no further package.
 */
class AsyncContextManager implements ContextManager {
  private readonly storage = new AsyncLocalStorage<Context>();
  active(): Context {
    return this.storage.getStore() ?? ROOT_CONTEXT;
  }
  with<A extends unknown[], F extends (...args: A) => ReturnType<F>>(
    ctx: Context,
    fn: F,
    thisArg?: ThisParameterType<F>,
    ...args: A
  ): ReturnType<F> {
    return this.storage.run(ctx, () => fn.apply(thisArg, args));
  }
  bind<T>(ctx: Context, target: T): T {
    if (typeof target !== 'function') return target;
    const run = (self: unknown, args: unknown[]): unknown =>
      this.with(ctx, () => (target as (...a: unknown[]) => unknown).apply(self, args));
    return function (this: unknown, ...args: unknown[]) {
      return run(this, args);
    } as T;
  }
  enable(): this {
    return this;
  }
  disable(): this {
    this.storage.disable();
    return this;
  }
}

t.ok(context.setGlobalContextManager(new AsyncContextManager()), 'context manager registered');
t.teardown(() => context.disable());

/** Keeps every span the instrumentation ended, so the test knows the ids it must find on the server. */
class Recorder implements SpanProcessor {
  readonly spans: ReadableSpan[] = [];
  onStart(): void {}
  onEnd(span: ReadableSpan): void {
    this.spans.push(span);
  }
  async forceFlush(): Promise<void> {}
  async shutdown(): Promise<void> {}
  named(name: string): ReadableSpan[] {
    return this.spans.filter((s) => s.name === name);
  }
}

/** A tracer provider as an instrumented application configures it, plus a recorder. */
function telemetry(server: TestServer, sdk: Credentials, protocol: Protocol, serviceName: string) {
  const recorder = new Recorder();
  const provider = new BasicTracerProvider({
    resource: resourceFromAttributes({ 'service.name': serviceName }),
    spanProcessors: [new SimpleSpanProcessor(exporterFor(server, sdk, protocol)), recorder],
  });
  return { provider, recorder, tracer: provider.getTracer('app', '1.0.0') };
}

/** A USD amount as the server rounds it (to 1e-10). */
const usd = (n: number): number => Math.round(n * 1e10) / 1e10;

/** The price-table row the server would pick for `model`: exact id first, then the first pattern. */
function priceOf(table: PriceTable, model: string): ModelPrice | undefined {
  return (
    table.models.find((m) => m.id.toLowerCase() === model.toLowerCase()) ??
    table.models.find((m) => new RegExp(m.match, 'i').test(model))
  );
}

interface Env extends InstrumentedServer {
  fake: FakeModel;
}

/**
 * One server for the file, with its keys and the price table it serves: each test reads back only
 * the traces it made (by their ids), and a server's start costs ~2 s of CPU.
 */
let shared: Promise<Omit<Env, 'fake'>> | undefined;
/** The file's root test: the shared server is stopped when it ends. */
const file = t;

/** The file's server and a fresh fake model for one test. */
async function setup(t: Test): Promise<Env> {
  shared ??= instrumentedServer(file);
  return { ...(await shared), fake: await fakeModelFor(t) };
}

type ApiSpan = Record<string, any>;

async function readTrace(t: Test, env: Env, traceId: string): Promise<{ trace: ApiSpan; spans: ApiSpan[] }> {
  const res = await call(env.server, 'GET', `/v1/traces/${traceId}`, { auth: env.reader });
  t.equal(res.status, 200, res.status === 200 ? `GET /v1/traces/${traceId}` : res.text);
  return { trace: res.body.data, spans: res.body.data.spans };
}

async function readSpan(t: Test, env: Env, traceId: string, spanId: string): Promise<ApiSpan> {
  const res = await call(env.server, 'GET', `/v1/traces/${traceId}/spans/${spanId}`, { auth: env.reader });
  t.equal(res.status, 200, res.status === 200 ? `GET /v1/traces/${traceId}/spans/${spanId}` : res.text);
  return res.body.data;
}

interface Call {
  model: string;
  kind: 'llm' | 'embedding';
  /** The price-table row the model must resolve to. */
  priceId: string;
  input: number;
  output: number | null;
}

const chatCall = (input: number, output: number): Call => ({
  model: FAKE_ANSWERS.model,
  kind: 'llm',
  priceId: 'gpt-4o-mini',
  input,
  output,
});

/** The model call's span: a GENERATION with the fake's model and usage, priced from the table. */
function assertGeneration(t: Test, env: Env, span: ApiSpan | undefined, want: Call): void {
  t.ok(span, 'the model call is stored');
  if (!span) return;
  t.equal(span.type, 'GENERATION');
  t.equal(span.span_kind, want.kind);
  t.equal(span.model, want.model, 'the model the server answered with');
  t.equal(span.input_tokens, want.input);
  t.equal(span.output_tokens, want.output);
  t.equal(span.tokens, want.input + (want.output ?? 0));
  const price = priceOf(env.pricing, want.model);
  t.equal(price?.id, want.priceId, `${want.model} is priced as ${want.priceId}`);
  const expected = usd((want.input * price!.input + (want.output ?? 0) * price!.output) / 1e6);
  t.ok(expected > 0);
  t.equal(
    usd(span.cost),
    expected,
    `cost = ${want.input} × $${price!.input}/1M + ${want.output ?? 0} × $${price!.output}/1M`,
  );
}

t.test('OpenInference OpenAI instrumentation: chat.completions, OTLP/HTTP protobuf', async (t) => {
  const env = await setup(t);
  const { provider, recorder } = telemetry(env.server, env.sdk, 'proto', 'openinference-chat');
  const instrumentation = new OpenAIInstrumentation({ tracerProvider: provider });
  // ESM imports are not hooked, so the module is patched by hand (the package's documented way).
  instrumentation.manuallyInstrument(OpenAI);
  t.teardown(() => instrumentation.disable());

  const client = new OpenAI({ baseURL: env.fake.baseURL, apiKey: 'sk-fake', maxRetries: 0 });
  const question = 'What is the capital of France?';
  const answer = await client.chat.completions.create({
    model: 'gpt-4o-mini',
    messages: [
      { role: 'system', content: 'Answer in one sentence.' },
      { role: 'user', content: question },
    ],
  });
  await provider.forceFlush();
  await provider.shutdown();

  t.equal(answer.choices[0]?.message.content, FAKE_ANSWERS.chat.content, 'the client got the fake answer');
  t.same(
    env.fake.requests.map((r) => [r.method, r.path, (r.body as { model?: string }).model, r.authorization]),
    [['POST', '/v1/chat/completions', 'gpt-4o-mini', 'Bearer sk-fake']],
    'one call reached the fake',
  );
  const [emitted] = recorder.named('OpenAI Chat Completions');
  t.equal(recorder.spans.length, 1, 'the instrumentation made one span');
  t.ok(emitted, 'it is the OpenInference chat span');
  const { traceId, spanId } = emitted!.spanContext();

  const { trace, spans } = await readTrace(t, env, traceId);
  t.equal(spans.length, 1);
  const span = spans.find((s) => s.id === spanId);
  assertGeneration(
    t,
    env,
    span,
    chatCall(FAKE_ANSWERS.chat.usage.prompt_tokens, FAKE_ANSWERS.chat.usage.completion_tokens),
  );
  t.equal(span?.name, 'OpenAI Chat Completions');
  t.equal(span?.service_name, 'openinference-chat');
  t.equal(span?.status, 'OK');
  t.equal(trace.tokens, FAKE_ANSWERS.chat.usage.total_tokens);
  t.equal(usd(trace.cost), usd(span?.cost));

  const full = await readSpan(t, env, traceId, spanId);
  const input = JSON.parse(full.input);
  t.equal(input.model, 'gpt-4o-mini', 'input is the request OpenInference recorded (input.value)');
  t.same(input.messages.at(-1), { role: 'user', content: question });
  const output = JSON.parse(full.output);
  t.equal(output.choices[0].message.content, FAKE_ANSWERS.chat.content, 'output is the answer (output.value)');
  t.ok(span?.output_preview.includes(FAKE_ANSWERS.chat.content), 'the preview shows the answer');
  t.equal(full.attributes?.['input.value'], undefined, 'the input is not stored twice');
  t.equal(
    full.attributes?.['llm.output_messages.0.message.content'],
    FAKE_ANSWERS.chat.content,
    'the message form stays an attribute',
  );
});

t.test('OpenInference OpenAI instrumentation: responses.create, OTLP/HTTP JSON', async (t) => {
  const env = await setup(t);
  const { provider, recorder } = telemetry(env.server, env.sdk, 'json', 'openinference-responses');
  const instrumentation = new OpenAIInstrumentation({ tracerProvider: provider });
  instrumentation.manuallyInstrument(OpenAI);
  t.teardown(() => instrumentation.disable());

  const client = new OpenAI({ baseURL: env.fake.baseURL, apiKey: 'sk-fake', maxRetries: 0 });
  const prompt = 'Say hello in French.';
  const answer = await client.responses.create({ model: 'gpt-4o-mini', input: prompt });
  await provider.forceFlush();
  await provider.shutdown();

  t.equal(answer.output_text, FAKE_ANSWERS.responses.content);
  t.same(
    env.fake.requests.map((r) => r.path),
    ['/v1/responses'],
  );
  const [emitted] = recorder.named('OpenAI Responses');
  t.ok(emitted, 'the OpenInference responses span');
  const { traceId, spanId } = emitted!.spanContext();
  const { trace, spans } = await readTrace(t, env, traceId);
  const span = spans.find((s) => s.id === spanId);
  assertGeneration(
    t,
    env,
    span,
    chatCall(FAKE_ANSWERS.responses.usage.input_tokens, FAKE_ANSWERS.responses.usage.output_tokens),
  );
  t.equal(trace.tokens, FAKE_ANSWERS.responses.usage.total_tokens);
  const full = await readSpan(t, env, traceId, spanId);
  t.equal(JSON.parse(full.input).input, prompt);
  t.equal(JSON.parse(full.output).output_text, FAKE_ANSWERS.responses.content);
});

t.test('OpenInference OpenAI instrumentation: embeddings.create, OTLP/HTTP protobuf', async (t) => {
  const env = await setup(t);
  const { provider, recorder } = telemetry(env.server, env.sdk, 'proto', 'openinference-embed');
  const instrumentation = new OpenAIInstrumentation({ tracerProvider: provider });
  instrumentation.manuallyInstrument(OpenAI);
  t.teardown(() => instrumentation.disable());

  const client = new OpenAI({ baseURL: env.fake.baseURL, apiKey: 'sk-fake', maxRetries: 0 });
  const text = 'sunny day at the beach';
  const result = await client.embeddings.create({ model: FAKE_ANSWERS.embeddings.model, input: text });
  await provider.forceFlush();
  await provider.shutdown();

  t.same([...result.data[0]!.embedding], FAKE_ANSWERS.embeddings.vector, 'the client decoded the fake vector');
  t.same(
    env.fake.requests.map((r) => r.path),
    ['/v1/embeddings'],
  );
  const [emitted] = recorder.named('OpenAI Embeddings');
  t.ok(emitted, 'the OpenInference embedding span');
  const { traceId, spanId } = emitted!.spanContext();
  const { spans } = await readTrace(t, env, traceId);
  const span = spans.find((s) => s.id === spanId);
  // The model is in embedding.model_name, not llm.model_name.
  t.match(span, { type: 'GENERATION', span_kind: 'embedding', model: FAKE_ANSWERS.embeddings.model });
  // OpenInference records no usage for embeddings, so there is nothing to count or price.
  t.match(span, { input_tokens: null, output_tokens: null, tokens: null, cost: null });
  t.equal(span?.input_preview, text);
  const full = await readSpan(t, env, traceId, spanId);
  t.equal(full.input, text);
});

t.test('Vercel AI SDK telemetry: embed, OTLP/HTTP JSON', async (t) => {
  const env = await setup(t);
  const { provider, recorder, tracer } = telemetry(env.server, env.sdk, 'json', 'ai-sdk-embed');
  const openai = createOpenAI({ baseURL: env.fake.baseURL, apiKey: 'sk-fake' });
  const value = 'sunny day at the beach';
  const result = await embed({
    model: openai.textEmbeddingModel(FAKE_ANSWERS.embeddings.model),
    value,
    maxRetries: 0,
    experimental_telemetry: { isEnabled: true, tracer, metadata: { customer: 'acme' } },
  });
  await provider.forceFlush();
  await provider.shutdown();

  t.same(result.embedding, FAKE_ANSWERS.embeddings.vector);
  t.same(
    env.fake.requests.map((r) => r.path),
    ['/v1/embeddings'],
  );
  const [outerEmitted] = recorder.named('ai.embed');
  const [innerEmitted] = recorder.named('ai.embed.doEmbed');
  t.ok(outerEmitted && innerEmitted, 'an outer and a provider-call span');
  const traceId = outerEmitted!.spanContext().traceId;
  const { trace, spans } = await readTrace(t, env, traceId);
  const outer = spans.find((s) => s.id === outerEmitted!.spanContext().spanId);
  const inner = spans.find((s) => s.id === innerEmitted!.spanContext().spanId);
  const tokens = FAKE_ANSWERS.embeddings.tokensPerInput;
  assertGeneration(t, env, inner, {
    model: FAKE_ANSWERS.embeddings.model,
    kind: 'embedding',
    priceId: 'text-embedding-3-small',
    input: tokens,
    output: null,
  });
  t.equal(inner?.parent_id, outer?.id);
  t.match(outer, { type: 'SPAN', model: null, tokens: null, cost: null }, 'ai.embed only wraps doEmbed');
  t.equal(trace.tokens, tokens, 'counted once');
  t.equal(usd(trace.cost), usd(inner?.cost));
  t.same(trace.metadata, { customer: 'acme' });
  const full = await readSpan(t, env, traceId, innerEmitted!.spanContext().spanId);
  t.same(
    JSON.parse(full.input).map((v: string) => JSON.parse(v)),
    [value],
    'input from ai.values',
  );
  t.equal(trace.input_preview, JSON.stringify(value), 'the outer span input from ai.value');
});

/** Which AI SDK model and exporter each test uses, and what the fake answers to it. */
const aiSdkCases = [
  {
    title: 'Responses API (openai(id)), OTLP/HTTP JSON',
    protocol: 'json' as const,
    model: (p: ReturnType<typeof createOpenAI>) => p('gpt-4o-mini'),
    path: '/v1/responses',
    content: FAKE_ANSWERS.responses.content,
    usage: { input: FAKE_ANSWERS.responses.usage.input_tokens, output: FAKE_ANSWERS.responses.usage.output_tokens },
  },
  {
    title: 'chat completions (openai.chat(id)), OTLP/HTTP protobuf',
    protocol: 'proto' as const,
    model: (p: ReturnType<typeof createOpenAI>) => p.chat('gpt-4o-mini'),
    path: '/v1/chat/completions',
    content: FAKE_ANSWERS.chat.content,
    usage: { input: FAKE_ANSWERS.chat.usage.prompt_tokens, output: FAKE_ANSWERS.chat.usage.completion_tokens },
  },
];

for (const c of aiSdkCases) {
  t.test(`Vercel AI SDK telemetry: generateText, ${c.title}`, async (t) => {
    const env = await setup(t);
    const { provider, recorder, tracer } = telemetry(env.server, env.sdk, c.protocol, 'ai-sdk-app');
    const openai = createOpenAI({ baseURL: env.fake.baseURL, apiKey: 'sk-fake' });
    const prompt = 'Say hello in French.';
    const result = await generateText({
      model: c.model(openai),
      prompt,
      maxRetries: 0,
      experimental_telemetry: {
        isEnabled: true,
        tracer,
        metadata: { customer: 'acme', sessionId: `chat-${c.protocol}`, userId: 'ada' },
      },
    });
    await provider.forceFlush();
    await provider.shutdown();

    t.equal(result.text, c.content, 'the SDK got the fake answer');
    t.same(
      env.fake.requests.map((r) => [r.path, (r.body as { model?: string }).model]),
      [[c.path, 'gpt-4o-mini']],
      'one call reached the fake',
    );
    t.match(JSON.stringify(env.fake.requests[0]!.body), prompt);
    const [outerEmitted] = recorder.named('ai.generateText');
    const [innerEmitted] = recorder.named('ai.generateText.doGenerate');
    t.ok(outerEmitted && innerEmitted, 'the AI SDK made an outer and a provider-call span');
    t.equal(recorder.spans.length, 2);
    const outerId = outerEmitted!.spanContext().spanId;
    const innerId = innerEmitted!.spanContext().spanId;
    const traceId = outerEmitted!.spanContext().traceId;
    t.equal(innerEmitted!.spanContext().traceId, traceId, 'one trace');
    t.same(
      [outerEmitted!.attributes['ai.usage.promptTokens'], innerEmitted!.attributes['gen_ai.usage.input_tokens']],
      [c.usage.input, c.usage.input],
      'both spans carry the same usage as sent',
    );

    const { trace, spans } = await readTrace(t, env, traceId);
    t.equal(spans.length, 2);
    const outer = spans.find((s) => s.id === outerId);
    const inner = spans.find((s) => s.id === innerId);
    t.equal(inner?.parent_id, outerId, 'doGenerate is the child of generateText');
    t.equal(outer?.parent_id, null);
    assertGeneration(t, env, inner, chatCall(c.usage.input, c.usage.output));
    const sent = { customer: 'acme', sessionId: `chat-${c.protocol}`, userId: 'ada' };
    t.same(inner?.metadata, sent, 'ai.telemetry.metadata.* is metadata');
    t.match(
      inner,
      { session_id: `chat-${c.protocol}`, user_id: 'ada' },
      "the metadata's sessionId and userId name the span's session and user",
    );

    t.match(
      outer,
      {
        type: 'SPAN',
        span_kind: 'function',
        model: null,
        input_tokens: null,
        output_tokens: null,
        tokens: null,
        cost: null,
      },
      'the wrapper is no generation',
    );
    t.same(outer?.metadata, sent);
    t.same(trace.metadata, sent, 'trace metadata is the root span metadata');
    t.match(
      trace,
      { session_id: `chat-${c.protocol}`, user_id: 'ada' },
      'and the trace is in that session, for that user',
    );
    const session = await call(env.server, 'GET', `/v1/sessions/chat-${c.protocol}/traces`, { auth: env.reader });
    t.same(
      session.body.data?.map((x: { id: string }) => x.id),
      [traceId],
      'listed among the session traces',
    );
    t.equal(trace.name, 'ai.generateText');
    t.equal(trace.span_count, 2);
    t.equal(trace.tokens, c.usage.input + c.usage.output, 'the trace counts the call once, not twice');
    t.equal(usd(trace.cost), usd(inner?.cost), 'and pays for it once');
    t.equal(trace.input_preview, JSON.stringify({ prompt }), 'the trace input is the outer ai.prompt');
    t.equal(trace.output_preview, c.content);

    const full = await readSpan(t, env, traceId, innerId);
    t.same(
      JSON.parse(full.input),
      [{ role: 'user', content: [{ type: 'text', text: prompt }] }],
      'input from ai.prompt.messages',
    );
    t.equal(full.output, c.content, 'output from ai.response.text');
    const wrapper = await readSpan(t, env, traceId, outerId);
    t.equal(wrapper.output, c.content);
    t.same(
      [
        wrapper.attributes['ai.model.id'],
        wrapper.attributes['ai.usage.promptTokens'],
        wrapper.attributes['ai.usage.completionTokens'],
      ],
      ['gpt-4o-mini', c.usage.input, c.usage.output],
      'the wrapper keeps its usage in attributes',
    );
  });
}
