import type { SpanRecord } from '../span.js';

function SpanRowFunction(
  this: SpanRecord,
  traceId: SpanRecord['traceId'],
  spanId: SpanRecord['spanId'],
  parentId: SpanRecord['parentId'],
  name: SpanRecord['name'],
  type: SpanRecord['type'],
  spanKind: SpanRecord['spanKind'],
  status: SpanRecord['status'],
  statusMessage: SpanRecord['statusMessage'],
  startNs: SpanRecord['startNs'],
  endNs: SpanRecord['endNs'],
  model: SpanRecord['model'],
  promptName: SpanRecord['promptName'],
  serviceName: SpanRecord['serviceName'],
  inputTokens: SpanRecord['inputTokens'],
  outputTokens: SpanRecord['outputTokens'],
  cachedInputTokens: SpanRecord['cachedInputTokens'],
  tokens: SpanRecord['tokens'],
  cost: SpanRecord['cost'],
  input: SpanRecord['input'],
  output: SpanRecord['output'],
  sessionId: SpanRecord['sessionId'],
  userId: SpanRecord['userId'],
  runId: SpanRecord['runId'],
  tags: SpanRecord['tags'],
  metadata: SpanRecord['metadata'],
  graph: SpanRecord['graph'],
  attributes: SpanRecord['attributes'],
  resource: SpanRecord['resource'],
  scope: SpanRecord['scope'],
): void {
  this.traceId = traceId;
  this.spanId = spanId;
  this.parentId = parentId;
  this.name = name;
  this.type = type;
  this.spanKind = spanKind;
  this.status = status;
  this.statusMessage = statusMessage;
  this.startNs = startNs;
  this.endNs = endNs;
  this.model = model;
  this.promptName = promptName;
  this.serviceName = serviceName;
  this.inputTokens = inputTokens;
  this.outputTokens = outputTokens;
  this.cachedInputTokens = cachedInputTokens;
  this.tokens = tokens;
  this.cost = cost;
  this.input = input;
  this.output = output;
  this.sessionId = sessionId;
  this.userId = userId;
  this.runId = runId;
  this.tags = tags;
  this.metadata = metadata;
  this.graph = graph;
  this.attributes = attributes;
  this.resource = resource;
  this.scope = scope;
}
// The rows stay plain objects: their prototype is Object.prototype, as a literal's would be.
SpanRowFunction.prototype = Object.prototype;

/**
 * Builds a span row (`new SpanRow(...)`), every field in {@link SpanRecord}'s order, so span and
 * event rows share one hidden class (spreads and per-row shapes were much slower). A constructor
 * rather than an object literal: V8 moves a literal whose objects mostly survive (rows live until
 * their request is stored) straight to the old generation, and a dead row there then keeps every
 * young map and string it points to alive through each scavenge (native-bench/RESULTS.md, "Figures
 * behind the code").
 */
export const SpanRow = SpanRowFunction as unknown as new (...fields: Parameters<typeof SpanRowFunction>) => SpanRecord;
