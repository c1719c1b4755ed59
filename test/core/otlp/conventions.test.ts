import t from 'tap';
import { emptyMap, flattenAttributes, type JsonMap } from '../../../src/core/otlp/attributes.js';
import {
  CACHED_INPUT_TOKEN_KEYS,
  COST_KEYS,
  firstCost,
  firstCount,
  firstText,
  INPUT_SOURCES,
  INPUT_TOKEN_KEYS,
  MODEL_KEYS,
  OUTPUT_SOURCES,
  OUTPUT_TOKEN_KEYS,
  textOf,
  WRAPPER_OPERATION_KEY,
  WRAPPER_OPERATIONS,
  wrapsModelCalls,
} from '../../../src/core/otlp/conventions.js';
import { attrs, type Plain } from './wire-builders.js';

/** Attributes as the mapper sees them: flattened from an OTLP attribute list. */
const flat = (o: Record<string, Plain>): JsonMap => flattenAttributes(attrs(o), { dropped: 0 });

t.test('model: response model beats request model, then OpenInference, then the AI SDK', async (t) => {
  t.equal(
    firstText(flat({ 'gen_ai.request.model': 'gpt-4o', 'gen_ai.response.model': 'gpt-4o-2024-08-06' }), MODEL_KEYS),
    'gpt-4o-2024-08-06',
  );
  t.equal(
    firstText(flat({ 'gen_ai.request.model': 'claude-sonnet-4-5', 'gen_ai.system': 'anthropic' }), MODEL_KEYS),
    'claude-sonnet-4-5',
  );
  t.equal(firstText(flat({ 'llm.model_name': 'gpt-4o-mini', 'llm.provider': 'openai' }), MODEL_KEYS), 'gpt-4o-mini');
  t.equal(firstText(flat({ 'ai.model.id': 'gpt-4o', 'ai.model.provider': 'openai.chat' }), MODEL_KEYS), 'gpt-4o');
  t.equal(
    firstText(
      flat({ 'openinference.span.kind': 'EMBEDDING', 'embedding.model_name': 'text-embedding-3-small' }),
      MODEL_KEYS,
    ),
    'text-embedding-3-small',
    'OpenInference names an embedding model apart',
  );
  t.equal(
    firstText(flat({ 'llm.model_name': 'gpt-4o', 'embedding.model_name': 'text-embedding-3-small' }), MODEL_KEYS),
    'gpt-4o',
  );
  t.equal(
    firstText(flat({ 'embedding.model_name': 'text-embedding-3-small', 'ai.model.id': 'other' }), MODEL_KEYS),
    'text-embedding-3-small',
  );
  t.equal(
    firstText(flat({ 'gen_ai.response.model': '  ', 'gen_ai.request.model': ' gpt-4o ' }), MODEL_KEYS),
    'gpt-4o',
    'blank skipped, text trimmed',
  );
  t.equal(
    firstText(flat({ 'llm.model_name': true, 'ai.model.id': 'gpt-4o' }), MODEL_KEYS),
    'gpt-4o',
    'a boolean is no model',
  );
  t.equal(firstText(flat({ 'gen_ai.system': 'openai' }), MODEL_KEYS), null);
  t.equal(
    firstText(
      flat({
        'llm.request.model_name': 'gpt-4o-mini',
        'llm.model_name': 'gpt-4o-mini',
        'llm.response.model_name': 'gpt-4o-mini-2024-07-18',
      }),
      MODEL_KEYS,
    ),
    'gpt-4o-mini-2024-07-18',
    "OpenInference's response model first",
  );
  t.equal(
    firstText(flat({ 'llm.request.model_name': 'gpt-4o-mini', 'embedding.model_name': 'e5' }), MODEL_KEYS),
    'gpt-4o-mini',
    'then its request model',
  );
});

t.test('firstText accepts finite numbers as text (numeric user ids)', async (t) => {
  t.equal(firstText(flat({ 'user.id': 42 }), ['user.id']), '42');
  const numbers = emptyMap();
  numbers.a = Number.NaN;
  numbers.b = 7;
  t.equal(firstText(numbers, ['a', 'b']), '7', 'a NaN number is skipped');
});

t.test('token counts from each convention, first usable wins', async (t) => {
  const semconv = flat({
    'gen_ai.usage.input_tokens': 1200,
    'gen_ai.usage.output_tokens': 87,
    'gen_ai.usage.cache_read_input_tokens': 1024,
  });
  t.equal(firstCount(semconv, INPUT_TOKEN_KEYS), 1200);
  t.equal(firstCount(semconv, OUTPUT_TOKEN_KEYS), 87);
  t.equal(firstCount(semconv, CACHED_INPUT_TOKEN_KEYS), 1024);
  const openllmetry = flat({
    'gen_ai.usage.prompt_tokens': 12,
    'gen_ai.usage.completion_tokens': 30,
    'llm.usage.total_tokens': 42,
  });
  t.equal(firstCount(openllmetry, INPUT_TOKEN_KEYS), 12);
  t.equal(firstCount(openllmetry, OUTPUT_TOKEN_KEYS), 30);
  t.equal(firstCount(openllmetry, CACHED_INPUT_TOKEN_KEYS), null);
  const openinference = flat({
    'llm.token_count.prompt': 321,
    'llm.token_count.completion': 54,
    'llm.token_count.prompt_details.cache_read': 256,
  });
  t.equal(firstCount(openinference, INPUT_TOKEN_KEYS), 321);
  t.equal(firstCount(openinference, OUTPUT_TOKEN_KEYS), 54);
  t.equal(firstCount(openinference, CACHED_INPUT_TOKEN_KEYS), 256);
  const aiSdk4 = flat({ 'ai.usage.promptTokens': 10, 'ai.usage.completionTokens': 5 });
  t.equal(firstCount(aiSdk4, INPUT_TOKEN_KEYS), 10);
  t.equal(firstCount(aiSdk4, OUTPUT_TOKEN_KEYS), 5);
  const aiSdk5 = flat({ 'ai.usage.inputTokens': 11, 'ai.usage.outputTokens': 6, 'ai.usage.cachedInputTokens': 8 });
  t.equal(firstCount(aiSdk5, INPUT_TOKEN_KEYS), 11);
  t.equal(firstCount(aiSdk5, OUTPUT_TOKEN_KEYS), 6);
  t.equal(firstCount(aiSdk5, CACHED_INPUT_TOKEN_KEYS), 8);
  const aiSdkEmbed = flat({ 'ai.usage.tokens': 9 });
  t.equal(firstCount(aiSdkEmbed, INPUT_TOKEN_KEYS), 9, 'embedding tokens are input tokens');
  t.equal(firstCount(aiSdkEmbed, OUTPUT_TOKEN_KEYS), null);
  t.equal(
    firstCount(flat({ 'ai.usage.tokens': 9, 'ai.usage.inputTokens': 11 }), INPUT_TOKEN_KEYS),
    11,
    'a named input count wins',
  );
});

t.test('firstCount skips what is no count', async (t) => {
  const m = emptyMap();
  Object.assign(m, { neg: -1, frac: 2.5, big: '9007199254740993', word: 'ten', yes: true, text: '17' });
  t.equal(firstCount(m, ['missing', 'neg', 'frac', 'big', 'word', 'yes', 'text']), 17);
  t.equal(firstCount(m, ['neg', 'frac']), null);
  t.equal(firstCount(m, ['zero']), null);
  m.zero = 0;
  t.equal(firstCount(m, ['zero']), 0, 'zero is a count');
});

t.test('firstCost: our own cost, then gen_ai.usage.cost; text accepted', async (t) => {
  t.equal(firstCost(flat({ 'gen_ai.usage.cost': 0.5, 'tracelake.cost': 0.0123 }), COST_KEYS), 0.0123);
  t.equal(firstCost(flat({ 'gen_ai.usage.cost': '0.004' }), COST_KEYS), 0.004);
  t.equal(firstCost(flat({ 'llm.cost.total': 0.0021, 'llm.cost.prompt': 0.002 }), COST_KEYS), 0.0021, 'OpenInference');
  t.equal(firstCost(flat({ 'llm.cost.total': 0.0021, 'gen_ai.usage.cost': 0.003 }), COST_KEYS), 0.003);
  const m = emptyMap();
  Object.assign(m, { blank: ' ', word: 'cheap', neg: -0.1, inf: Infinity, no: false, zero: '0' });
  t.equal(firstCost(m, ['blank', 'word', 'neg', 'inf', 'no', 'zero']), 0);
  t.equal(firstCost(m, ['blank']), null);
});

t.test('input and output text, by convention', async (t) => {
  const oi = flat({
    'input.value': '{"messages":[{"role":"user","content":"What is OTLP?"}]}',
    'input.mime_type': 'application/json',
    'llm.input_messages.0.message.role': 'user',
    'llm.input_messages.0.message.content': 'What is OTLP?',
    'output.value': 'The OpenTelemetry protocol.',
  });
  t.same(textOf(oi, INPUT_SOURCES), {
    text: '{"messages":[{"role":"user","content":"What is OTLP?"}]}',
    keys: ['input.value'],
  });
  t.same(textOf(oi, OUTPUT_SOURCES), { text: 'The OpenTelemetry protocol.', keys: ['output.value'] });

  const oiMessagesOnly = flat({
    'llm.output_messages.0.message.role': 'assistant',
    'llm.output_messages.0.message.content': 'Hi.',
  });
  t.same(textOf(oiMessagesOnly, OUTPUT_SOURCES)?.text, '[{"role":"assistant","content":"Hi."}]');

  const retriever = flat({
    'openinference.span.kind': 'RETRIEVER',
    'input.value': 'refund policy',
    'retrieval.documents.0.document.id': 'doc-1',
    'retrieval.documents.0.document.content': 'Refunds within 30 days.',
    'retrieval.documents.0.document.score': 0.92,
    'retrieval.documents.1.document.id': 'doc-2',
    'retrieval.documents.1.document.metadata': '{"source":"faq"}',
  });
  t.same(textOf(retriever, OUTPUT_SOURCES), {
    text: '[{"id":"doc-1","content":"Refunds within 30 days.","score":0.92},{"id":"doc-2","metadata":"{\\"source\\":\\"faq\\"}"}]',
    keys: [
      'retrieval.documents.0.document.id',
      'retrieval.documents.0.document.content',
      'retrieval.documents.0.document.score',
      'retrieval.documents.1.document.id',
      'retrieval.documents.1.document.metadata',
    ],
  });
  t.same(
    textOf(flat({ 'output.value': 'two found', 'retrieval.documents.0.document.id': 'doc-1' }), OUTPUT_SOURCES),
    { text: 'two found', keys: ['output.value'] },
    'output.value first',
  );
  const reranker = flat({
    'reranker.query': 'refund policy',
    'reranker.input_documents.0.document.id': 'doc-2',
    'reranker.output_documents.0.document.id': 'doc-1',
    'reranker.output_documents.0.document.score': 0.5,
  });
  t.equal(textOf(reranker, OUTPUT_SOURCES)?.text, '[{"id":"doc-1","score":0.5}]', 'what a reranker kept');

  const traceloop = flat({
    'gen_ai.prompt.0.role': 'user',
    'gen_ai.prompt.0.content': 'Tell me a joke',
    'gen_ai.completion.0.role': 'assistant',
    'gen_ai.completion.0.content': 'No.',
  });
  t.same(textOf(traceloop, INPUT_SOURCES), {
    text: '[{"role":"user","content":"Tell me a joke"}]',
    keys: ['gen_ai.prompt.0.role', 'gen_ai.prompt.0.content'],
  });
  t.equal(textOf(traceloop, OUTPUT_SOURCES)?.text, '[{"role":"assistant","content":"No."}]');

  const semconv = flat({
    'gen_ai.input.messages': [{ role: 'user', parts: [{ type: 'text', content: 'Weather in Paris?' }] }],
    'gen_ai.output.messages': '[{"role":"assistant","parts":[{"type":"text","content":"Rainy."}]}]',
  });
  t.equal(
    textOf(semconv, INPUT_SOURCES)?.text,
    '[{"role":"user","parts":[{"type":"text","content":"Weather in Paris?"}]}]',
    'structured → JSON text',
  );
  t.equal(
    textOf(semconv, OUTPUT_SOURCES)?.text,
    '[{"role":"assistant","parts":[{"type":"text","content":"Rainy."}]}]',
    'text kept as sent',
  );

  const aiSdk = flat({ 'ai.prompt': '{"prompt":"Hi"}', 'ai.response.text': 'Hello!' });
  t.equal(textOf(aiSdk, INPUT_SOURCES)?.text, '{"prompt":"Hi"}');
  t.equal(textOf(aiSdk, OUTPUT_SOURCES)?.text, 'Hello!');
  const embed = flat({ 'ai.value': '"sunny day"', 'ai.embedding': '[0.25,-0.5]' });
  t.same(textOf(embed, INPUT_SOURCES), { text: '"sunny day"', keys: ['ai.value'] }, 'AI SDK embed');
  t.equal(textOf(embed, OUTPUT_SOURCES), null, 'vectors are no output text; they stay attributes');
  const doEmbed = flat({ 'ai.values': ['"sunny day"', '"rainy night"'], 'ai.embeddings': ['[0.25]', '[1]'] });
  t.same(
    textOf(doEmbed, INPUT_SOURCES),
    { text: '["\\"sunny day\\"","\\"rainy night\\""]', keys: ['ai.values'] },
    'AI SDK embedMany / doEmbed',
  );
  const own = flat({ 'input.value': '', 'tracelake.input': 'mine', 'tracelake.output': 3 });
  t.same(textOf(own, INPUT_SOURCES), { text: 'mine', keys: ['tracelake.input'] }, 'an empty value does not match');
  t.equal(textOf(own, OUTPUT_SOURCES)?.text, '3');
  const nulls = flattenAttributes([{ key: 'input.value', value: {} }], { dropped: 0 });
  t.equal(textOf(nulls, INPUT_SOURCES), null, 'an empty AnyValue does not match');
});

t.test('wrapper spans: the AI SDK outer operations, by ai.operationId, case-insensitive', async (t) => {
  // As the AI SDK spells them: each wraps `<operation>.doGenerate` / `.doStream` / `.doEmbed` spans.
  const outer = [
    'ai.generateText',
    'ai.streamText',
    'ai.generateObject',
    'ai.streamObject',
    'ai.embed',
    'ai.embedMany',
  ];
  t.same(
    [...WRAPPER_OPERATIONS].sort(),
    outer.map((o) => o.toLowerCase()).sort(),
    'the table is exactly the outer operations',
  );
  t.equal(WRAPPER_OPERATION_KEY, 'ai.operationId');
  for (const operation of outer) {
    t.equal(wrapsModelCalls(flat({ 'ai.operationId': operation, 'ai.model.id': 'gpt-4o' })), true, operation);
    t.equal(wrapsModelCalls(flat({ 'ai.operationId': operation.toUpperCase() })), true, `${operation} in capitals`);
  }
  const calls = [
    'ai.generateText.doGenerate',
    'ai.streamText.doStream',
    'ai.generateObject.doGenerate',
    'ai.streamObject.doStream',
  ];
  for (const operation of [...calls, 'ai.embed.doEmbed', 'ai.embedMany.doEmbed', 'ai.toolCall']) {
    t.equal(wrapsModelCalls(flat({ 'ai.operationId': operation })), false, `${operation} is no wrapper`);
  }
  t.equal(
    wrapsModelCalls(flat({ 'operation.name': 'ai.generateText', 'ai.model.id': 'gpt-4o' })),
    false,
    'only ai.operationId names the operation',
  );
  t.equal(wrapsModelCalls(flat({ 'ai.operationId': ['ai.generateText'] })), false, 'an array is no operation');
  t.equal(wrapsModelCalls(flat({ 'ai.operationId': '__proto__' })), false);
  t.equal(wrapsModelCalls(flat({})), false);
});
