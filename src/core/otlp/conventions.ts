/**
 * The attribute conventions of real instrumentations (architecture §4), as data: for each
 * first-class field, the attribute names tried in order; the first usable value wins. Sources:
 * OpenTelemetry GenAI semconv (`gen_ai.*`), OpenInference (`llm.*`, `input.value`), OpenLLMetry /
 * Traceloop (`traceloop.*`, indexed `gen_ai.prompt.N.*`), the Vercel AI SDK (`ai.*`), Langfuse SDKs
 * (`langfuse.*`) and our own `tracelake.*`. Span kinds are in `span-kind.ts`.
 */
import type { JsonMap } from './attributes.js';
import { COST_DETAILS_KEY, USAGE_DETAILS_KEY } from './details.js';
import { isDigits } from './int64.js';
import { collectMessages } from './messages.js';

export const MODEL_KEYS: readonly string[] = [
  'gen_ai.response.model',
  'gen_ai.request.model',
  'llm.response.model_name',
  'llm.model_name',
  'llm.request.model_name',
  'embedding.model_name', // OpenInference EMBEDDING spans
  'ai.model.id',
  'langfuse.observation.model.name',
];

export const INPUT_TOKEN_KEYS: readonly string[] = [
  'gen_ai.usage.input_tokens',
  'gen_ai.usage.prompt_tokens',
  'llm.token_count.prompt',
  'ai.usage.promptTokens',
  'ai.usage.inputTokens', // AI SDK 5
  'ai.usage.tokens', // AI SDK embed/embedMany: an embedding's tokens are all input
  // Langfuse usage details (details.ts): its own names, then the OpenAI-style ones it also takes.
  `${USAGE_DETAILS_KEY}.input`,
  `${USAGE_DETAILS_KEY}.prompt_tokens`,
  `${USAGE_DETAILS_KEY}.input_tokens`,
];

export const OUTPUT_TOKEN_KEYS: readonly string[] = [
  'gen_ai.usage.output_tokens',
  'gen_ai.usage.completion_tokens',
  'llm.token_count.completion',
  'ai.usage.completionTokens',
  'ai.usage.outputTokens', // AI SDK 5
  `${USAGE_DETAILS_KEY}.output`,
  `${USAGE_DETAILS_KEY}.completion_tokens`,
  `${USAGE_DETAILS_KEY}.output_tokens`,
];

export const CACHED_INPUT_TOKEN_KEYS: readonly string[] = [
  'gen_ai.usage.cache_read_input_tokens',
  'llm.token_count.prompt_details.cache_read',
  'ai.usage.cachedInputTokens',
  `${USAGE_DETAILS_KEY}.input_cached_tokens`,
  `${USAGE_DETAILS_KEY}.cache_read_input_tokens`,
];

export const COST_KEYS: readonly string[] = [
  'tracelake.cost',
  'gen_ai.usage.cost',
  'llm.cost.total',
  `${COST_DETAILS_KEY}.total`,
];

/**
 * Spans that wrap model calls reported by spans of their own and repeat those calls' usage: the AI
 * SDK's outer `ai.generateText` (and kin) carries the model id and token counts of the
 * `ai.generateText.doGenerate` spans under it. Both as generations would count every token and
 * dollar twice in trace, session and model totals, and the mapper sees one span at a time (parent
 * and child may even come in different exports), so the rule must be decidable from the span
 * alone: a span whose {@link WRAPPER_OPERATION_KEY} names one of these operations (case-insensitive)
 * is no generation and has no model, tokens or cost; its attributes keep what it reported.
 */
export const WRAPPER_OPERATION_KEY = 'ai.operationId';
export const WRAPPER_OPERATIONS: ReadonlySet<string> = new Set([
  'ai.generatetext',
  'ai.streamtext',
  'ai.generateobject',
  'ai.streamobject',
  'ai.embed',
  'ai.embedmany',
]);

/** Whether the span only wraps model calls that child spans report (see {@link WRAPPER_OPERATIONS}). */
export function wrapsModelCalls(attrs: JsonMap): boolean {
  const operation = attrs[WRAPPER_OPERATION_KEY];
  return typeof operation === 'string' && WRAPPER_OPERATIONS.has(operation.toLowerCase());
}
// The AI SDK's `experimental_telemetry.metadata.sessionId` / `userId` are how the Langfuse docs teach
// AI SDK users to name sessions and users, and OpenLLMetry's association properties `session_id` /
// `user_id` are Traceloop's: read as such, and kept in metadata as sent.
export const SESSION_KEYS: readonly string[] = [
  'session.id',
  'gen_ai.conversation.id',
  'tracelake.session.id',
  'ai.telemetry.metadata.sessionId',
  'traceloop.association.properties.session_id',
  'langfuse.session.id', // older Langfuse SDKs; the current ones send session.id
];
export const USER_KEYS: readonly string[] = [
  'user.id',
  'enduser.id',
  'tracelake.user.id',
  'ai.telemetry.metadata.userId',
  'traceloop.association.properties.user_id',
  'langfuse.user.id',
];
export const RUN_ID_KEYS: readonly string[] = ['tracelake.run.id'];
export const PROMPT_NAME_KEYS: readonly string[] = [
  'tracelake.prompt.name',
  'langfuse.observation.prompt.name',
  'langfuse.prompt.name',
];
/**
 * The prompt version a span used. It stays in the span's attributes (no column of its own: the
 * segment format is unchanged); prompt metrics and the `prompt_version` filter read it from there.
 */
export const PROMPT_VERSION_KEYS: readonly string[] = [
  'tracelake.prompt.version',
  'langfuse.observation.prompt.version',
];
/**
 * Resource attributes naming the service. Arize Phoenix's `register` sets no `service.name`, only the
 * project its traces go to, which is what a Phoenix user tells apps apart by.
 */
export const SERVICE_NAME_KEYS: readonly string[] = ['service.name', 'openinference.project.name'];

/** The service a resource names: the first of {@link SERVICE_NAME_KEYS} holding non-empty text. */
export function serviceNameOf(resource: JsonMap): string | null {
  for (let i = 0; i < SERVICE_NAME_KEYS.length; i++) {
    const v = resource[SERVICE_NAME_KEYS[i]!];
    if (typeof v === 'string' && v !== '') return v;
  }
  return null;
}

/**
 * A level naming an error (Langfuse's `level: 'ERROR'`) makes a span of unset status an error, with
 * the status message sent beside it; other levels (DEBUG, DEFAULT, WARNING) stay attributes.
 */
export const LEVEL_KEY = 'langfuse.observation.level';
export const ERROR_LEVEL = 'ERROR';
export const STATUS_MESSAGE_KEYS: readonly string[] = ['langfuse.observation.status_message'];
/** An array of strings, or JSON text of one. */
export const TAG_KEYS: readonly string[] = ['tracelake.tags', 'langfuse.trace.tags', 'tag.tags'];

/** Where a span's input or output text comes from: one attribute, or messages flattened under a prefix. */
export type TextSource = { readonly key: string } | { readonly prefix: string; readonly unwrap?: string };

export const INPUT_SOURCES: readonly TextSource[] = [
  { key: 'input.value' },
  { prefix: 'gen_ai.prompt.' },
  { prefix: 'llm.input_messages.', unwrap: 'message' },
  { key: 'gen_ai.input.messages' },
  { key: 'gen_ai.tool.call.arguments' },
  { key: 'ai.prompt' },
  { key: 'ai.prompt.messages' }, // AI SDK doGenerate/doStream spans carry no ai.prompt
  { key: 'ai.value' }, // AI SDK embed
  { key: 'ai.values' }, // AI SDK embedMany, and the doEmbed spans of both
  { key: 'ai.toolCall.args' },
  { key: 'traceloop.entity.input' },
  { key: 'langfuse.observation.input' },
  { key: 'langfuse.trace.input' }, // setActiveTraceIO / updateTrace on a span without input of its own
  { key: 'tracelake.input' },
];

export const OUTPUT_SOURCES: readonly TextSource[] = [
  { key: 'output.value' },
  { prefix: 'gen_ai.completion.' },
  { prefix: 'llm.output_messages.', unwrap: 'message' },
  // What an OpenInference RETRIEVER or RERANKER span found, when it sent no output.value.
  { prefix: 'retrieval.documents.', unwrap: 'document' },
  { prefix: 'reranker.output_documents.', unwrap: 'document' },
  { key: 'gen_ai.output.messages' },
  { key: 'gen_ai.tool.call.result' },
  { key: 'ai.response.text' },
  { key: 'ai.response.object' },
  { key: 'ai.response.toolCalls' },
  { key: 'ai.toolCall.result' },
  { key: 'traceloop.entity.output' },
  { key: 'langfuse.observation.output' },
  { key: 'langfuse.trace.output' },
  { key: 'tracelake.output' },
];

/** The first of `keys` holding non-blank text (trimmed) or a finite number (as text). */
export function firstText(attrs: JsonMap, keys: readonly string[]): string | null {
  for (let i = 0; i < keys.length; i++) {
    const v = attrs[keys[i]!];
    if (typeof v === 'string') {
      const text = v.trim();
      if (text !== '') return text;
    } else if (typeof v === 'number' && Number.isFinite(v)) {
      return String(v);
    }
  }
  return null;
}

/** The first of `keys` holding a token count: a non-negative safe integer, as a number or text. */
export function firstCount(attrs: JsonMap, keys: readonly string[]): number | null {
  for (let i = 0; i < keys.length; i++) {
    const v = attrs[keys[i]!];
    const n = typeof v === 'string' && isDigits(v) ? Number(v) : v;
    if (typeof n === 'number' && Number.isSafeInteger(n) && n >= 0) return n;
  }
  return null;
}

/** The first of `keys` holding a cost in USD: a finite non-negative number, as a number or text. */
export function firstCost(attrs: JsonMap, keys: readonly string[]): number | null {
  for (let i = 0; i < keys.length; i++) {
    const v = attrs[keys[i]!];
    const n = typeof v === 'string' && v.trim() !== '' ? Number(v) : v;
    if (typeof n === 'number' && Number.isFinite(n) && n >= 0) return n;
  }
  return null;
}

/** Text from the first source that has some, and the attribute keys it was read from. */
export interface TextFound {
  text: string;
  keys: string[];
}

/**
 * The span's input or output. Text is kept as sent; a structured value becomes JSON text; indexed
 * message attributes become JSON text of an array of messages (see `collectMessages`).
 */
export function textOf(attrs: JsonMap, sources: readonly TextSource[]): TextFound | null {
  for (let i = 0; i < sources.length; i++) {
    const source = sources[i]!;
    if ('prefix' in source) {
      const messages = collectMessages(attrs, source.prefix, source.unwrap);
      if (messages) return messages;
      continue;
    }
    const v = attrs[source.key];
    if (v === undefined || v === null || v === '') continue;
    return { text: typeof v === 'string' ? v : JSON.stringify(v), keys: [source.key] };
  }
  return null;
}
