import t from 'tap';
import { flattenAttributes, type JsonMap } from '../../../src/core/otlp/attributes.js';
import { SPAN_KIND_SOURCES, spanKindOf } from '../../../src/core/otlp/span-kind.js';
import type { SpanKind } from '../../../src/core/span.js';
import { attrs, type Plain } from './wire-builders.js';

const flat = (o: Record<string, Plain>): JsonMap => flattenAttributes(attrs(o), { dropped: 0 });

t.test('span kind: every table entry, case-insensitive', async (t) => {
  for (const source of SPAN_KIND_SOURCES) {
    for (const [value, kind] of source.values) {
      t.equal(spanKindOf(flat({ [source.key]: value.toUpperCase() })), kind, `${source.key}=${value}`);
    }
  }
});

t.test('span kind: real spans, precedence and the default', async (t) => {
  const cases: [Record<string, Plain>, SpanKind][] = [
    [{ 'openinference.span.kind': 'LLM', 'llm.model_name': 'gpt-4o' }, 'llm'],
    [{ 'openinference.span.kind': 'RETRIEVER', 'input.value': 'otlp' }, 'retrieval'],
    [{ 'openinference.span.kind': 'CHAIN', 'gen_ai.operation.name': 'chat' }, 'function'],
    [{ 'openinference.span.kind': 'EVALUATOR', 'gen_ai.operation.name': 'chat' }, 'llm'],
    [{ 'gen_ai.operation.name': 'embeddings', 'gen_ai.request.model': 'text-embedding-3-small' }, 'embedding'],
    [{ 'gen_ai.operation.name': 'execute_tool', 'gen_ai.tool.name': 'get_weather' }, 'tool'],
    [{ 'traceloop.span.kind': 'workflow', 'traceloop.workflow.name': 'joke_generator' }, 'function'],
    [{ 'traceloop.span.kind': 'agent', 'traceloop.entity.name': 'planner' }, 'agent'],
    [{ 'llm.request.type': 'chat', 'gen_ai.system': 'openai' }, 'llm'],
    [{ 'ai.operationId': 'ai.generateText.doGenerate', 'operation.name': 'ai.generateText.doGenerate my-fn' }, 'llm'],
    [{ 'ai.operationId': 'ai.generateText', 'operation.name': 'ai.generateText my-fn' }, 'function'],
    [{ 'ai.operationId': 'ai.toolCall', 'ai.toolCall.name': 'weather' }, 'tool'],
    [{ 'openinference.span.kind': 'constructor' }, 'function'],
    [{ 'openinference.span.kind': '__proto__' }, 'function'],
    [{ 'openinference.span.kind': 3 }, 'function'],
    [{ 'http.method': 'GET' }, 'function'],
  ];
  for (const [a, kind] of cases) t.equal(spanKindOf(flat(a)), kind, JSON.stringify(a));
});
