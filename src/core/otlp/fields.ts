import { roundUsd, storableCost } from '../cost/money.js';
import type { SpanRecord } from '../span.js';
import type { DropCounter, JsonMap } from './attributes.js';
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
  PROMPT_NAME_KEYS,
  RUN_ID_KEYS,
  SESSION_KEYS,
  textOf,
  type TextFound,
  USER_KEYS,
  wrapsModelCalls,
} from './conventions.js';
import { withDetails } from './details.js';
import { splitNamespaces, tagsOf, type KeySet } from './namespaces.js';
import { spanKindOf } from './span-kind.js';

/** Token counts handed to the price table; a count the client did not send is absent. */
export interface TokenUsage {
  inputTokens?: number;
  outputTokens?: number;
  cachedInputTokens?: number;
}

/** Prices a call of `model`; undefined when the model is not in the price table. */
export type CostFn = (model: string, usage: TokenUsage) => number | undefined;

/** The fields of a span row that come from its attributes. */
export type SpanFields = Pick<
  SpanRecord,
  | 'model'
  | 'spanKind'
  | 'promptName'
  | 'inputTokens'
  | 'outputTokens'
  | 'cachedInputTokens'
  | 'tokens'
  | 'cost'
  | 'input'
  | 'output'
  | 'sessionId'
  | 'userId'
  | 'runId'
  | 'tags'
  | 'metadata'
  | 'graph'
  | 'attributes'
>;

/** The fields of a model call: null throughout for a span that is none. */
type CallFields = Pick<SpanFields, 'model' | 'inputTokens' | 'outputTokens' | 'cachedInputTokens' | 'tokens' | 'cost'>;

const NO_CALL: Readonly<CallFields> = {
  model: null,
  inputTokens: null,
  outputTokens: null,
  cachedInputTokens: null,
  tokens: null,
  cost: null,
};

/**
 * Reads the first-class fields of a span from its flattened attributes, by the conventions of
 * `conventions.ts`. Consumed attributes stay in `attributes` (they are small and users filter on
 * the OTel names) except the input and output text, which can be large and would otherwise be
 * stored twice; metadata and graph keys move to their own maps. A span that only wraps model calls
 * reported by its children (`wrapsModelCalls`) gets no model, tokens or cost, so a trace counts
 * each call once.
 */
export function spanFields(attrs: JsonMap, counter: DropCounter, costOf?: CostFn): SpanFields {
  const call = wrapsModelCalls(attrs) ? NO_CALL : callFields(withDetails(attrs, counter), costOf);
  const input = textOf(attrs, INPUT_SOURCES);
  const output = textOf(attrs, OUTPUT_SOURCES);
  const { attributes, metadata, graph } = splitNamespaces(attrs, consumedKeys(input, output), counter);
  return {
    model: call.model,
    spanKind: spanKindOf(attrs),
    promptName: firstText(attrs, PROMPT_NAME_KEYS),
    inputTokens: call.inputTokens,
    outputTokens: call.outputTokens,
    cachedInputTokens: call.cachedInputTokens,
    tokens: call.tokens,
    cost: call.cost,
    input: input?.text ?? null,
    output: output?.text ?? null,
    sessionId: firstText(attrs, SESSION_KEYS),
    userId: firstText(attrs, USER_KEYS),
    runId: firstText(attrs, RUN_ID_KEYS),
    tags: tagsOf(attrs, counter),
    metadata,
    graph,
    attributes,
  };
}

const NO_KEYS: readonly string[] = [];
/** Past this many keys a `Set` answers faster than scanning two short lists. */
const MAX_LISTED_KEYS = 16;

/** The attribute keys that became the input or output text: usually one or a few, so no `Set`. */
class ConsumedKeys implements KeySet {
  constructor(
    private readonly input: readonly string[],
    private readonly output: readonly string[],
  ) {}

  has(key: string): boolean {
    return this.input.includes(key) || this.output.includes(key);
  }
}

function consumedKeys(input: TextFound | null, output: TextFound | null): KeySet {
  const a = input === null ? NO_KEYS : input.keys;
  const b = output === null ? NO_KEYS : output.keys;
  return a.length + b.length <= MAX_LISTED_KEYS ? new ConsumedKeys(a, b) : new Set([...a, ...b]);
}

function callFields(attrs: JsonMap, costOf: CostFn | undefined): CallFields {
  const model = firstText(attrs, MODEL_KEYS);
  const inputTokens = firstCount(attrs, INPUT_TOKEN_KEYS);
  const outputTokens = firstCount(attrs, OUTPUT_TOKEN_KEYS);
  const cachedInputTokens = firstCount(attrs, CACHED_INPUT_TOKEN_KEYS);
  const usage = tokenUsage(inputTokens, outputTokens, cachedInputTokens);
  return {
    model,
    inputTokens,
    outputTokens,
    cachedInputTokens,
    tokens: inputTokens === null && outputTokens === null ? null : (inputTokens ?? 0) + (outputTokens ?? 0),
    cost: givenCost(attrs) ?? priced(model, usage, costOf),
  };
}

/**
 * A cost the SDK computed itself, often with float noise (0.032780000000000004): rounded as ours are.
 * One past what a span keeps is no cost given: the price table's, if any, stands instead.
 */
function givenCost(attrs: JsonMap): number | null {
  const cost = firstCost(attrs, COST_KEYS);
  return storableCost(cost === null ? null : roundUsd(cost));
}

function tokenUsage(input: number | null, output: number | null, cached: number | null): TokenUsage | undefined {
  const usage: TokenUsage = {};
  if (input !== null) usage.inputTokens = input;
  if (output !== null) usage.outputTokens = output;
  if (cached !== null) usage.cachedInputTokens = cached;
  return input === null && output === null && cached === null ? undefined : usage;
}

// The price table is only asked about a model with some counts; its answer is checked, not trusted.
function priced(model: string | null, usage: TokenUsage | undefined, costOf: CostFn | undefined): number | null {
  if (model === null || usage === undefined || costOf === undefined) return null;
  const cost = costOf(model, usage);
  return typeof cost === 'number' && Number.isFinite(cost) && cost >= 0 ? cost : null;
}
