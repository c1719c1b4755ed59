import t from 'tap';
import { flattenAttributes, type JsonMap } from '../../../src/core/otlp/attributes.js';
import { spanFields, type CostFn, type TokenUsage } from '../../../src/core/otlp/fields.js';
import { attrs, type Plain } from './wire-builders.js';

const flat = (o: Record<string, Plain>): JsonMap => flattenAttributes(attrs(o), { dropped: 0 });
const plain = (v: unknown): unknown => JSON.parse(JSON.stringify(v));

/** A price table stand-in that records what it was asked. */
function prices(answer: number | undefined) {
  const calls: [string, TokenUsage][] = [];
  const costOf: CostFn = (model, usage) => {
    calls.push([model, usage]);
    return answer;
  };
  return { costOf, calls };
}

t.test('OpenTelemetry GenAI semconv (opentelemetry-instrumentation-openai-v2)', async (t) => {
  const { costOf, calls } = prices(0.00042);
  const f = spanFields(
    flat({
      'gen_ai.operation.name': 'chat',
      'gen_ai.system': 'openai',
      'gen_ai.request.model': 'gpt-4o-mini',
      'gen_ai.response.model': 'gpt-4o-mini-2024-07-18',
      'gen_ai.response.id': 'chatcmpl-AZ9',
      'gen_ai.response.finish_reasons': ['stop'],
      'gen_ai.usage.input_tokens': 1200,
      'gen_ai.usage.output_tokens': 87,
      'gen_ai.usage.cache_read_input_tokens': 1024,
      'gen_ai.conversation.id': 'conv-7',
      'server.address': 'api.openai.com',
    }),
    { dropped: 0 },
    costOf,
  );
  t.equal(f.model, 'gpt-4o-mini-2024-07-18');
  t.equal(f.spanKind, 'llm');
  t.equal(f.inputTokens, 1200);
  t.equal(f.outputTokens, 87);
  t.equal(f.cachedInputTokens, 1024);
  t.equal(f.tokens, 1287);
  t.equal(f.cost, 0.00042);
  t.same(calls, [['gpt-4o-mini-2024-07-18', { inputTokens: 1200, outputTokens: 87, cachedInputTokens: 1024 }]]);
  t.equal(f.sessionId, 'conv-7');
  t.equal(f.input, null);
  t.equal(f.output, null);
  t.equal(f.attributes['gen_ai.usage.input_tokens'], 1200, 'consumed attributes stay');
});

t.test('OpenInference LLM span (openinference-instrumentation-openai)', async (t) => {
  const input = '{"messages":[{"role":"user","content":"What is OTLP?"}],"model":"gpt-4o"}';
  const f = spanFields(
    flat({
      'openinference.span.kind': 'LLM',
      'llm.model_name': 'gpt-4o-2024-08-06',
      'llm.provider': 'openai',
      'llm.invocation_parameters': '{"temperature":0.2}',
      'input.value': input,
      'input.mime_type': 'application/json',
      'output.value': '{"choices":[{"message":{"role":"assistant","content":"A protocol."}}]}',
      'output.mime_type': 'application/json',
      'llm.input_messages.0.message.role': 'user',
      'llm.input_messages.0.message.content': 'What is OTLP?',
      'llm.output_messages.0.message.role': 'assistant',
      'llm.output_messages.0.message.content': 'A protocol.',
      'llm.token_count.prompt': 12,
      'llm.token_count.completion': 3,
      'llm.token_count.total': 15,
      'llm.token_count.prompt_details.cache_read': 0,
      'session.id': 'sess-1',
      'user.id': 'user-9',
      metadata: '{"experiment":"A","tenant":"acme"}',
      'tag.tags': ['rag', 'prod'],
    }),
    { dropped: 0 },
  );
  t.equal(f.model, 'gpt-4o-2024-08-06');
  t.equal(f.spanKind, 'llm');
  t.same([f.inputTokens, f.outputTokens, f.cachedInputTokens, f.tokens], [12, 3, 0, 15]);
  t.equal(f.input, input, 'input.value wins over the indexed messages');
  t.equal(f.cost, null, 'no price table given');
  t.same([f.sessionId, f.userId], ['sess-1', 'user-9']);
  t.same(f.tags, ['rag', 'prod']);
  t.same(plain(f.metadata), { experiment: 'A', tenant: 'acme' });
  t.equal(f.attributes['input.value'], undefined, 'the text that became `input` is not stored twice');
  t.equal(f.attributes['output.value'], undefined);
  t.equal(f.attributes['llm.input_messages.0.message.content'], 'What is OTLP?', 'the unused message form stays');
  t.equal(f.attributes.metadata, undefined);
});

t.test('OpenInference RETRIEVER span (openinference-core traceRetriever, context attributes)', async (t) => {
  const f = spanFields(
    flat({
      'openinference.span.kind': 'RETRIEVER',
      'input.value': 'Where is my order?',
      'input.mime_type': 'text/plain',
      'retrieval.documents.0.document.id': 'doc-1',
      'retrieval.documents.0.document.content': 'Orders ship in two days.',
      'retrieval.documents.0.document.score': 0.9,
      'session.id': 'conv-7',
      'user.id': 'ada',
      metadata: '{"customer":"acme"}',
      'tag.tags': '["beta"]',
      'llm.prompt_template.template': 'Answer about {topic}',
      'llm.prompt_template.variables': '{"topic":"orders"}',
      'llm.prompt_template.version': 'v3',
    }),
    { dropped: 0 },
  );
  t.equal(f.spanKind, 'retrieval');
  t.equal(f.model, null);
  t.equal(f.input, 'Where is my order?');
  t.equal(f.output, '[{"id":"doc-1","content":"Orders ship in two days.","score":0.9}]', 'the documents found');
  t.same([f.sessionId, f.userId, f.tags], ['conv-7', 'ada', ['beta']]);
  t.same(plain(f.metadata), { customer: 'acme' });
  t.same(
    Object.keys(f.attributes).filter((k) => k.startsWith('retrieval.')),
    [],
    'the documents are stored once, as the output',
  );
  t.equal(f.promptName, null, 'OpenInference names no prompt');
  t.equal(f.attributes['llm.prompt_template.version'], 'v3', 'the template stays among the attributes');
});

t.test('OpenLLMetry / Traceloop: indexed prompt and completion, workflow spans', async (t) => {
  const llm = spanFields(
    flat({
      'llm.request.type': 'chat',
      'gen_ai.system': 'openai',
      'gen_ai.request.model': 'gpt-4o',
      'gen_ai.response.model': 'gpt-4o-2024-08-06',
      'gen_ai.prompt.0.role': 'system',
      'gen_ai.prompt.0.content': 'You tell jokes.',
      'gen_ai.prompt.1.role': 'user',
      'gen_ai.prompt.1.content': 'One about OTLP.',
      'gen_ai.completion.0.role': 'assistant',
      'gen_ai.completion.0.content': 'Spans walk into a bar...',
      'gen_ai.completion.0.finish_reason': 'stop',
      'gen_ai.usage.prompt_tokens': 25,
      'gen_ai.usage.completion_tokens': 9,
      'llm.usage.total_tokens': 34,
      'traceloop.workflow.name': 'joke_generator',
    }),
    { dropped: 0 },
  );
  t.equal(llm.spanKind, 'llm');
  t.equal(llm.input, '[{"role":"system","content":"You tell jokes."},{"role":"user","content":"One about OTLP."}]');
  t.equal(llm.output, '[{"role":"assistant","content":"Spans walk into a bar...","finish_reason":"stop"}]');
  t.same([llm.inputTokens, llm.outputTokens, llm.tokens], [25, 9, 34]);
  t.same(
    Object.keys(llm.attributes).filter((k) => k.startsWith('gen_ai.prompt') || k.startsWith('gen_ai.completion')),
    [],
  );
  t.equal(llm.attributes['llm.usage.total_tokens'], 34);

  const workflow = spanFields(
    flat({
      'traceloop.span.kind': 'workflow',
      'traceloop.entity.name': 'joke_generator',
      'traceloop.entity.input': '{"args":[],"kwargs":{"topic":"otlp"}}',
      'traceloop.entity.output': '"Spans walk into a bar..."',
    }),
    { dropped: 0 },
  );
  t.equal(workflow.spanKind, 'function');
  t.equal(workflow.model, null);
  t.equal(workflow.input, '{"args":[],"kwargs":{"topic":"otlp"}}');
  t.equal(workflow.output, '"Spans walk into a bar..."');
  t.equal(workflow.tokens, null);
});

t.test('OpenLLMetry association properties: session, user, the rest as metadata', async (t) => {
  const f = spanFields(
    flat({
      'traceloop.span.kind': 'tool',
      'traceloop.entity.name': 'lookup-order',
      'traceloop.association.properties.session_id': 'conv-7',
      'traceloop.association.properties.user_id': 'ada',
      'traceloop.association.properties.customer_id': 'acme',
    }),
    { dropped: 0 },
  );
  t.same([f.spanKind, f.sessionId, f.userId], ['tool', 'conv-7', 'ada']);
  t.same(plain(f.metadata), { session_id: 'conv-7', user_id: 'ada', customer_id: 'acme' }, 'kept as sent');
  t.same(Object.keys(f.attributes), ['traceloop.span.kind', 'traceloop.entity.name']);
  const own = spanFields(flat({ 'session.id': 'mine', 'traceloop.association.properties.session_id': 'theirs' }), {
    dropped: 0,
  });
  t.equal(own.sessionId, 'mine', 'session.id first');
});

t.test('Vercel AI SDK: outer call, doGenerate and a tool call', async (t) => {
  const table = prices(0.0003);
  const outer = spanFields(
    flat({
      'operation.name': 'ai.generateText weather-agent',
      'ai.operationId': 'ai.generateText',
      'ai.model.id': 'gpt-4o',
      'ai.model.provider': 'openai.chat',
      'ai.prompt': '{"prompt":"Weather in Oslo?"}',
      'ai.response.text': 'Cold.',
      'ai.usage.promptTokens': 40,
      'ai.usage.completionTokens': 4,
      'ai.telemetry.functionId': 'weather-agent',
      'ai.telemetry.metadata.userTier': 'pro',
    }),
    { dropped: 0 },
    table.costOf,
  );
  // The outer span repeats the usage of the doGenerate spans under it: it is no generation.
  t.same(
    [outer.model, outer.spanKind, outer.input, outer.output],
    [null, 'function', '{"prompt":"Weather in Oslo?"}', 'Cold.'],
  );
  t.same(
    [outer.inputTokens, outer.outputTokens, outer.cachedInputTokens, outer.tokens, outer.cost],
    [null, null, null, null, null],
  );
  t.same(
    [
      outer.attributes['ai.model.id'],
      outer.attributes['ai.usage.promptTokens'],
      outer.attributes['ai.usage.completionTokens'],
    ],
    ['gpt-4o', 40, 4],
    'what the wrapper reported stays in its attributes',
  );
  t.same(plain(outer.metadata), { userTier: 'pro' });
  t.same(table.calls, [], 'the price table is not asked about a wrapper');

  const inner = spanFields(
    flat({
      'operation.name': 'ai.generateText.doGenerate weather-agent',
      'ai.operationId': 'ai.generateText.doGenerate',
      'ai.prompt.format': 'messages',
      'ai.prompt.messages': '[{"role":"user","content":[{"type":"text","text":"Weather in Oslo?"}]}]',
      'gen_ai.system': 'openai.chat',
      'gen_ai.request.model': 'gpt-4o',
      'gen_ai.response.model': 'gpt-4o-2024-08-06',
      'gen_ai.usage.input_tokens': 40,
      'gen_ai.usage.output_tokens': 4,
      'ai.response.finishReason': 'stop',
      'ai.response.toolCalls': '[{"toolCallType":"function","toolName":"weather","args":"{\\"city\\":\\"Oslo\\"}"}]',
    }),
    { dropped: 0 },
    table.costOf,
  );
  t.equal(inner.spanKind, 'llm');
  t.equal(inner.model, 'gpt-4o-2024-08-06');
  t.same(
    [inner.inputTokens, inner.outputTokens, inner.tokens, inner.cost],
    [40, 4, 44, 0.0003],
    'the provider call carries the usage',
  );
  t.same(table.calls, [['gpt-4o-2024-08-06', { inputTokens: 40, outputTokens: 4 }]]);
  t.equal(inner.input, '[{"role":"user","content":[{"type":"text","text":"Weather in Oslo?"}]}]');
  t.match(inner.output, /"toolName":"weather"/, 'a tool-call-only answer still has an output');

  const tool = spanFields(
    flat({
      'ai.operationId': 'ai.toolCall',
      'ai.toolCall.name': 'weather',
      'ai.toolCall.id': 'call_1',
      'ai.toolCall.args': '{"city":"Oslo"}',
      'ai.toolCall.result': '{"tempC":-3}',
    }),
    { dropped: 0 },
  );
  t.same([tool.spanKind, tool.input, tool.output, tool.model], ['tool', '{"city":"Oslo"}', '{"tempC":-3}', null]);

  // AI SDK 5 streamText: the outer span sums all steps (ai.usage.inputTokens...), doStream has one step.
  const stream = spanFields(
    flat({
      'ai.operationId': 'ai.streamText',
      'ai.model.id': 'gpt-4o',
      'ai.usage.inputTokens': 90,
      'ai.usage.outputTokens': 12,
      'ai.usage.cachedInputTokens': 64,
      'tracelake.cost': 0.5,
    }),
    { dropped: 0 },
    table.costOf,
  );
  t.same(
    [stream.model, stream.inputTokens, stream.outputTokens, stream.cachedInputTokens, stream.tokens, stream.cost],
    [null, null, null, null, null, null],
    'not even a sent cost counts on a wrapper',
  );
  t.equal(stream.attributes['tracelake.cost'], 0.5);
  t.equal(table.calls.length, 1, 'still only the doGenerate call was priced');
});

t.test('embeddings: OpenInference EMBEDDING span and AI SDK embed', async (t) => {
  const table = prices(0.00000018);
  const oi = spanFields(
    flat({
      'openinference.span.kind': 'EMBEDDING',
      'embedding.model_name': 'text-embedding-3-small',
      'input.value': 'sunny day at the beach',
      'input.mime_type': 'text/plain',
      'llm.system': 'openai',
      'embedding.embeddings.0.embedding.text': 'sunny day at the beach',
      'embedding.embeddings.0.embedding.vector': [0.25, -0.5, 0.125, 1],
    }),
    { dropped: 0 },
    table.costOf,
  );
  t.same(
    [oi.model, oi.spanKind, oi.input, oi.output, oi.tokens, oi.cost],
    ['text-embedding-3-small', 'embedding', 'sunny day at the beach', null, null, null],
  );
  t.same(table.calls, [], 'OpenInference records no embedding usage: nothing to price');
  t.same(oi.attributes['embedding.embeddings.0.embedding.vector'], [0.25, -0.5, 0.125, 1]);

  const doEmbed = spanFields(
    flat({
      'ai.operationId': 'ai.embed.doEmbed',
      'ai.model.provider': 'openai.embedding',
      'ai.model.id': 'text-embedding-3-small',
      'ai.values': ['"sunny day at the beach"'],
      'ai.embeddings': ['[0.25,-0.5,0.125,1]'],
      'ai.usage.tokens': 9,
    }),
    { dropped: 0 },
    table.costOf,
  );
  t.same(
    [
      doEmbed.model,
      doEmbed.spanKind,
      doEmbed.input,
      doEmbed.inputTokens,
      doEmbed.outputTokens,
      doEmbed.tokens,
      doEmbed.cost,
    ],
    ['text-embedding-3-small', 'embedding', '["\\"sunny day at the beach\\""]', 9, null, 9, 0.00000018],
  );
  t.same(table.calls, [['text-embedding-3-small', { inputTokens: 9 }]]);

  const outer = spanFields(
    flat({
      'ai.operationId': 'ai.embed',
      'ai.model.id': 'text-embedding-3-small',
      'ai.value': '"sunny day at the beach"',
      'ai.usage.tokens': 9,
    }),
    { dropped: 0 },
    table.costOf,
  );
  t.same(
    [outer.model, outer.spanKind, outer.input, outer.tokens, outer.cost],
    [null, 'function', '"sunny day at the beach"', null, null],
    'ai.embed wraps doEmbed',
  );
  t.equal(table.calls.length, 1);
});

t.test('Langfuse SDK attributes (drop-in use)', async (t) => {
  const f = spanFields(
    flat({
      'langfuse.observation.type': 'generation',
      'langfuse.trace.name': 'support-chat',
      'langfuse.trace.tags': ['support', 'eu'],
      'langfuse.trace.metadata.foo': 'bar',
      'langfuse.observation.metadata.step': 'rerank',
      'langfuse.prompt.name': 'support-system',
      'langfuse.observation.input': '{"question":"refund?"}',
      'langfuse.observation.output': '{"answer":"yes"}',
      'session.id': 'lf-session',
      'user.id': 'lf-user',
    }),
    { dropped: 0 },
  );
  t.same(plain(f.metadata), { foo: 'bar', step: 'rerank' });
  t.same(f.tags, ['support', 'eu']);
  t.equal(f.promptName, 'support-system');
  t.same([f.input, f.output], ['{"question":"refund?"}', '{"answer":"yes"}']);
  t.same([f.sessionId, f.userId], ['lf-session', 'lf-user']);
  t.same(Object.keys(f.attributes).sort(), [
    'langfuse.observation.type',
    'langfuse.prompt.name',
    'langfuse.trace.name',
    'langfuse.trace.tags',
    'session.id',
    'user.id',
  ]);
});

t.test('our own attributes: run id, prompt name, graph', async (t) => {
  const f = spanFields(
    flat({
      'tracelake.run.id': 'run-3',
      'tracelake.prompt.name': 'triage',
      'langfuse.prompt.name': 'ignored',
      'tracelake.session.id': 'own-session',
      'enduser.id': 'end-user',
      'graph.node.id': 'triage',
      'graph.node.parent_id': 'router',
    }),
    { dropped: 0 },
  );
  t.same([f.runId, f.promptName, f.sessionId, f.userId], ['run-3', 'triage', 'own-session', 'end-user']);
  t.same(plain(f.graph), { id: 'triage', parent_id: 'router' });
  t.equal(f.attributes['graph.node.id'], undefined);
  t.equal(f.spanKind, 'function');
  t.same(f.tags, []);
});

t.test('cost precedence: client cost, then the price table, else null', async (t) => {
  const usage = {
    'gen_ai.request.model': 'gpt-4o',
    'gen_ai.usage.input_tokens': 100,
    'gen_ai.usage.output_tokens': 20,
  };
  const table = prices(0.75);
  t.equal(
    spanFields(flat({ ...usage, 'tracelake.cost': 0.01, 'gen_ai.usage.cost': 0.02 }), { dropped: 0 }, table.costOf)
      .cost,
    0.01,
  );
  t.equal(spanFields(flat({ ...usage, 'gen_ai.usage.cost': 0.02 }), { dropped: 0 }, table.costOf).cost, 0.02);
  t.equal(
    spanFields(flat({ ...usage, 'tracelake.cost': 0 }), { dropped: 0 }, table.costOf).cost,
    0,
    'a sent zero is a cost',
  );
  t.equal(table.calls.length, 0, 'the price table is not asked when the client sent a cost');
  t.equal(spanFields(flat(usage), { dropped: 0 }, table.costOf).cost, 0.75);
  t.same(table.calls, [['gpt-4o', { inputTokens: 100, outputTokens: 20 }]]);

  const cachedOnly = prices(0.1);
  t.equal(
    spanFields(
      flat({ 'llm.model_name': 'gpt-4o', 'llm.token_count.prompt_details.cache_read': 50 }),
      { dropped: 0 },
      cachedOnly.costOf,
    ).cost,
    0.1,
  );
  t.same(cachedOnly.calls, [['gpt-4o', { cachedInputTokens: 50 }]]);

  const outputOnly = prices(0.2);
  const f = spanFields(
    flat({ 'ai.model.id': 'gpt-4o', 'ai.usage.completionTokens': 7 }),
    { dropped: 0 },
    outputOnly.costOf,
  );
  t.same([f.cost, f.tokens, f.inputTokens], [0.2, 7, null]);
  t.same(outputOnly.calls, [['gpt-4o', { outputTokens: 7 }]]);

  const unasked = prices(1);
  t.equal(spanFields(flat({ 'gen_ai.usage.input_tokens': 10 }), { dropped: 0 }, unasked.costOf).cost, null, 'no model');
  t.equal(
    spanFields(flat({ 'gen_ai.request.model': 'gpt-4o' }), { dropped: 0 }, unasked.costOf).cost,
    null,
    'no counts',
  );
  t.equal(unasked.calls.length, 0);
  t.equal(spanFields(flat(usage), { dropped: 0 }).cost, null, 'no price table');
  for (const answer of [undefined, NaN, -1, Infinity]) {
    t.equal(
      spanFields(flat(usage), { dropped: 0 }, prices(answer).costOf).cost,
      null,
      `price table answered ${answer}`,
    );
  }
});

t.test('tokens: the sum of what is known, null when neither is', async (t) => {
  t.same(spanFields(flat({ 'gen_ai.usage.input_tokens': 9 }), { dropped: 0 }).tokens, 9);
  t.same(
    spanFields(flat({ 'llm.usage.total_tokens': 34 }), { dropped: 0 }).tokens,
    null,
    'a total alone is no input/output count',
  );
});

t.test('drops from parsed metadata and tags reach the counter', async (t) => {
  const counter = { dropped: 0 };
  const deep = '[' + '['.repeat(80) + ']'.repeat(80) + ']';
  spanFields(flat({ metadata: `{"a":${deep}}`, 'tracelake.tags': deep }), counter);
  t.equal(counter.dropped, 2);
});

t.test('many consumed message keys all leave attributes; the others stay', async (t) => {
  const o: Record<string, Plain> = {};
  for (let i = 0; i < 12; i++)
    Object.assign(o, { [`gen_ai.prompt.${i}.role`]: 'user', [`gen_ai.prompt.${i}.content`]: `turn ${i}` });
  Object.assign(o, {
    'gen_ai.completion.0.content': 'done',
    'gen_ai.prompt.x.role': 'not indexed',
    'gen_ai.system': 'openai',
    'tracelake.metadata.k': 'v',
  });
  const f = spanFields(flat(o), { dropped: 0 });
  t.equal((JSON.parse(f.input!) as unknown[]).length, 12);
  t.equal(f.output, '[{"content":"done"}]');
  t.same(Object.keys(f.attributes), ['gen_ai.prompt.x.role', 'gen_ai.system'], '25 keys consumed, no more');
  t.same(plain(f.metadata), { k: 'v' });
});

t.test('input and output from single keys: only those two keys leave attributes', async (t) => {
  const f = spanFields(
    flat({
      'tool.name': 'lookup',
      'input.value': '{"q":1}',
      'output.value': 'ok',
      'input.mime_type': 'application/json',
    }),
    { dropped: 0 },
  );
  t.same([f.input, f.output], ['{"q":1}', 'ok']);
  t.same(Object.keys(f.attributes), ['tool.name', 'input.mime_type']);
});

t.test('a cost the SDK sent is rounded like ours: ten places, no float noise', async (t) => {
  const { costOf, calls } = prices(1);
  const f = spanFields(
    flat({ 'gen_ai.request.model': 'gpt-4o', 'gen_ai.usage.input_tokens': 10, 'tracelake.cost': 0.032780000000000004 }),
    { dropped: 0 },
    costOf,
  );
  t.equal(String(f.cost), '0.03278');
  t.equal(calls.length, 0, 'a given cost is not priced again');
});

t.test('a given cost past what a span keeps is no cost given: the price table decides', async (t) => {
  const { costOf } = prices(0.00042);
  const usage = { 'gen_ai.request.model': 'gpt-4o-mini', 'gen_ai.usage.input_tokens': 10 };
  t.equal(
    spanFields(flat({ ...usage, 'tracelake.cost': 1e300 }), { dropped: 0 }, costOf).cost,
    0.00042,
    'priced instead',
  );
  t.equal(
    spanFields(flat({ 'tracelake.cost': '1e30' }), { dropped: 0 }, costOf).cost,
    null,
    'nothing to price: no cost',
  );
  t.equal(spanFields(flat({ 'tracelake.cost': 1e9 }), { dropped: 0 }, costOf).cost, 1e9, 'a billion is kept');
  const f = spanFields(flat({ 'gen_ai.usage.cost': 1e300 }), { dropped: 0 }, costOf);
  t.equal(Number(f.attributes['gen_ai.usage.cost']), 1e300, 'the attribute keeps what was sent');
});

t.test('a Langfuse SDK generation (@langfuse/tracing): model, usage and cost details, IO, session, user', async (t) => {
  const { costOf, calls } = prices(0.9);
  const f = spanFields(
    flat({
      'langfuse.observation.type': 'generation',
      'langfuse.observation.model.name': 'gpt-4o-mini',
      'langfuse.observation.usage_details': '{"prompt_tokens":40,"completion_tokens":8,"input_cached_tokens":16}',
      'langfuse.observation.input': '[{"role":"user","content":"hi"}]',
      'langfuse.observation.output': '"hello"',
      'langfuse.observation.prompt.name': 'greeting',
      'langfuse.observation.prompt.version': 2,
      'langfuse.session.id': 'sess-1',
      'langfuse.user.id': 'user-1',
      'langfuse.trace.tags': ['a', 'b'],
      'langfuse.trace.metadata.customer': 'acme',
      'langfuse.observation.metadata.step': 'greet',
    }),
    { dropped: 0 },
    costOf,
  );
  t.equal(f.spanKind, 'llm');
  t.equal(f.model, 'gpt-4o-mini');
  t.same([f.inputTokens, f.outputTokens, f.cachedInputTokens, f.tokens], [40, 8, 16, 48]);
  t.equal(f.cost, 0.9, 'no cost details: the price table prices the usage');
  t.same(calls, [['gpt-4o-mini', { inputTokens: 40, outputTokens: 8, cachedInputTokens: 16 }]]);
  t.same([f.input, f.output], ['[{"role":"user","content":"hi"}]', '"hello"']);
  t.same([f.sessionId, f.userId, f.promptName], ['sess-1', 'user-1', 'greeting']);
  t.same(f.tags, ['a', 'b']);
  t.same(plain(f.metadata), { customer: 'acme', step: 'greet' });
  t.equal(
    f.attributes['langfuse.observation.usage_details'],
    '{"prompt_tokens":40,"completion_tokens":8,"input_cached_tokens":16}',
  );
  t.notOk('langfuse.observation.usage_details.prompt_tokens' in f.attributes, 'the details read stay one attribute');
});

t.test("a Langfuse span's trace input and output stand for its own when it has none", async (t) => {
  const f = spanFields(
    flat({
      'langfuse.trace.input': 'question',
      'langfuse.trace.output': 'answer',
      'langfuse.observation.type': 'span',
    }),
    { dropped: 0 },
  );
  t.same([f.input, f.output, f.spanKind], ['question', 'answer', 'function']);
});
