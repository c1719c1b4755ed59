/**
 * The span kind, from the first attribute convention that names a known one (architecture §4:
 * OpenInference, GenAI semconv, Traceloop; then OpenLLMetry's LLM marker and the AI SDK's operation).
 */
import type { SpanKind } from '../span.js';
import type { JsonMap } from './attributes.js';

/** An attribute naming a span's kind, and what its values (lowercased) mean. */
export interface KindSource {
  readonly key: string;
  readonly values: ReadonlyMap<string, SpanKind>;
}

export const SPAN_KIND_SOURCES: readonly KindSource[] = [
  {
    // EVALUATOR and PROMPT are left out on purpose: an LLM judge's span says what it is through the
    // next conventions (`gen_ai.operation.name`), and otherwise it is a `function`.
    key: 'openinference.span.kind',
    values: new Map<string, SpanKind>([
      ['llm', 'llm'],
      ['tool', 'tool'],
      ['agent', 'agent'],
      ['retriever', 'retrieval'],
      ['reranker', 'retrieval'],
      ['embedding', 'embedding'],
      ['guardrail', 'guardrail'],
      ['chain', 'function'],
    ]),
  },
  {
    key: 'gen_ai.operation.name',
    values: new Map<string, SpanKind>([
      ['chat', 'llm'],
      ['text_completion', 'llm'],
      ['generate_content', 'llm'],
      ['embeddings', 'embedding'],
      ['execute_tool', 'tool'],
      ['invoke_agent', 'agent'],
      ['create_agent', 'agent'],
    ]),
  },
  {
    key: 'traceloop.span.kind',
    values: new Map<string, SpanKind>([
      ['agent', 'agent'],
      ['tool', 'tool'],
      ['workflow', 'function'],
      ['task', 'function'],
    ]),
  },
  {
    // OpenLLMetry marks its LLM spans with this rather than traceloop.span.kind.
    key: 'llm.request.type',
    values: new Map<string, SpanKind>([
      ['chat', 'llm'],
      ['completion', 'llm'],
      ['embedding', 'embedding'],
      ['rerank', 'retrieval'],
    ]),
  },
  {
    // The AI SDK's outer spans (ai.generateText) wrap a whole multi-step call and stay `function`.
    key: 'ai.operationId',
    values: new Map<string, SpanKind>([
      ['ai.generatetext.dogenerate', 'llm'],
      ['ai.streamtext.dostream', 'llm'],
      ['ai.generateobject.dogenerate', 'llm'],
      ['ai.streamobject.dostream', 'llm'],
      ['ai.embed.doembed', 'embedding'],
      ['ai.embedmany.doembed', 'embedding'],
      ['ai.toolcall', 'tool'],
    ]),
  },
  {
    // The Langfuse SDKs' observation types; span, chain, event and evaluator are `function`.
    key: 'langfuse.observation.type',
    values: new Map<string, SpanKind>([
      ['generation', 'llm'],
      ['embedding', 'embedding'],
      ['tool', 'tool'],
      ['agent', 'agent'],
      ['retriever', 'retrieval'],
      ['guardrail', 'guardrail'],
    ]),
  },
];

/** The span kind named by the first source with a known value (case-insensitive); else `function`. */
export function spanKindOf(attrs: JsonMap): SpanKind {
  for (const source of SPAN_KIND_SOURCES) {
    const v = attrs[source.key];
    const kind = typeof v === 'string' ? source.values.get(v.toLowerCase()) : undefined;
    if (kind) return kind;
  }
  return 'function';
}
