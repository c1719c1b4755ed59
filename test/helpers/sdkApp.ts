/**
 * A small support agent instrumented with an LLM-tracing SDK as its users write one, run as its own
 * process by test/ingest/sdks.test.ts (the SDKs register process-wide OpenTelemetry globals, so each
 * gets a process of its own): `node sdkApp.js <phoenix|traceloop|opentelemetry> <setup.mjs> [call.mjs]`. The setup module is
 * the guide's snippet for that SDK (docs/guide/sending-traces.md), imported first as an application
 * would import its tracing set-up. The `openai` client reads OPENAI_BASE_URL (a fake model server)
 * and OPENAI_API_KEY. The last line printed is JSON: the trace id and the answer.
 */
import { pathToFileURL } from 'node:url';
import OpenAI from 'openai';

/** What the agent is asked and knows, in the test's terms: it asserts against these. */
export const SDK_APP = {
  question: 'Where is my order A-17?',
  orderId: 'A-17',
  order: { orderId: 'A-17', status: 'shipped' },
  documents: [{ id: 'doc-1', content: 'Orders ship within two days.', score: 0.9 }],
  model: 'gpt-4o-mini',
  sessionId: { phoenix: 'phoenix-conversation-7', traceloop: 'traceloop-conversation-7' },
  /** The OpenTelemetry app's root span. */
  requestSpan: 'support-request',
  userId: 'ada',
  metadata: { customer: 'acme' },
  tags: ['beta'],
} as const;

export interface SdkAppResult {
  traceId: string;
  answer: string;
}

async function ask(client: OpenAI, context: string): Promise<string> {
  const completion = await client.chat.completions.create({
    model: SDK_APP.model,
    messages: [
      { role: 'system', content: `Answer from these facts: ${context}` },
      { role: 'user', content: SDK_APP.question },
    ],
  });
  return completion.choices[0]?.message.content ?? '';
}

/** OpenInference spans through `@arizeai/phoenix-otel`: its helpers and context attributes. */
async function phoenix(setup: { provider: { shutdown(): Promise<void> } }): Promise<SdkAppResult> {
  const oi = await import('@arizeai/phoenix-otel');
  const client = new OpenAI({ maxRetries: 0 });
  const search = oi.traceRetriever(async (_query: string) => SDK_APP.documents.map((d) => ({ ...d })), {
    name: 'search-docs',
    processOutput: (documents) => oi.getRetrieverAttributes({ documents }),
  });
  const lookupOrder = oi.traceTool(async (_orderId: string) => ({ ...SDK_APP.order }), { name: 'lookup-order' });
  let traceId = '';
  const agent = oi.traceAgent(
    async (question: string) => {
      traceId = oi.trace.getActiveSpan()?.spanContext().traceId ?? '';
      const documents = await search(question);
      const order = await lookupOrder(SDK_APP.orderId);
      return ask(client, JSON.stringify({ documents, order }));
    },
    { name: 'support-agent' },
  );
  let context = oi.setSession(oi.context.active(), { sessionId: SDK_APP.sessionId.phoenix });
  context = oi.setUser(context, { userId: SDK_APP.userId });
  context = oi.setMetadata(context, { ...SDK_APP.metadata });
  context = oi.setTags(context, [...SDK_APP.tags]);
  const answer = await oi.context.with(context, () => agent(SDK_APP.question));
  // As the guide says: shut the provider down before the process exits, so the last batch is sent.
  await setup.provider.shutdown();
  return { traceId, answer };
}

/** OpenLLMetry spans through `@traceloop/node-server-sdk`: a workflow with a tool, an agent and a task. */
async function traceloop(): Promise<SdkAppResult> {
  const sdk = await import('@traceloop/node-server-sdk');
  const { trace } = await import('@opentelemetry/api');
  const client = new OpenAI({ maxRetries: 0 });
  let traceId = '';
  const answer: string = await sdk.withWorkflow(
    {
      name: 'support',
      associationProperties: {
        [sdk.AssociationProperty.SESSION_ID]: SDK_APP.sessionId.traceloop,
        [sdk.AssociationProperty.USER_ID]: SDK_APP.userId,
        ...SDK_APP.metadata,
      },
    },
    async () => {
      traceId = trace.getActiveSpan()?.spanContext().traceId ?? '';
      const order = await sdk.withTool({ name: 'lookup-order' }, async () => ({ ...SDK_APP.order }));
      return sdk.withAgent({ name: 'writer' }, () =>
        sdk.withTask({ name: 'compose' }, () => ask(client, JSON.stringify({ order }))),
      );
    },
  );
  await sdk.forceFlush();
  return { traceId, answer };
}

/**
 * OpenInference's OpenAI instrumentation under the OpenTelemetry Node SDK, and the guide's AI SDK
 * call (`callFile`, imported in the request's span), both in the span of one request.
 */
async function openTelemetry(setup: { sdk: { shutdown(): Promise<void> } }, callFile: string): Promise<SdkAppResult> {
  const { trace } = await import('@opentelemetry/api');
  const client = new OpenAI({ maxRetries: 0 });
  let traceId = '';
  const answer = await trace.getTracer('support-bot').startActiveSpan(SDK_APP.requestSpan, async (span) => {
    traceId = span.spanContext().traceId;
    const text = await ask(client, JSON.stringify(SDK_APP.order));
    await import(pathToFileURL(callFile).href);
    span.end();
    return text;
  });
  await setup.sdk.shutdown();
  return { traceId, answer };
}

// Run as a program only: the test imports this module for SDK_APP.
const [, program, which, setupFile, callFile] = process.argv;
if (program !== undefined && import.meta.url === pathToFileURL(program).href && setupFile !== undefined) {
  const setup = await import(pathToFileURL(setupFile).href);
  const result =
    which === 'phoenix'
      ? await phoenix(setup)
      : which === 'traceloop'
        ? await traceloop()
        : await openTelemetry(setup, callFile ?? '');
  console.log(JSON.stringify(result));
  // The SDKs keep timers and sockets; the spans are sent.
  process.exit(0);
}
