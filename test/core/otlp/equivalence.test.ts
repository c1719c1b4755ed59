// Differential test of the mapper on the benchmark's realistic workload (native-bench/workload.ts):
// every row of every batch is compared, field by field and key order included, with a row computed
// here straight from the generated spans, by logic that shares nothing with src/core/otlp. A speed-up
// that changes any result fails here. A second part pins tricky key orders and precedences on one
// span sent through the protobuf decoder.
import t from 'tap';
import { exportBatch } from '../../../native-bench/workload.js';
import type { CostFn } from '../../../src/core/otlp/fields.js';
import { mapExportRequest } from '../../../src/core/otlp/map.js';
import type { JsonValue, SpanRecord } from '../../../src/core/span.js';
import { decodeExportRequest, encodeExportRequest } from '../../helpers/otlpProto.js';

const SEEDS = [1, 2, 3, 7, 42, 1234];
const SPANS_PER_BATCH = 512;

const costOf: CostFn = (model, usage) =>
  model.length * 1e-6 + (usage.inputTokens ?? 0) * 1.5e-7 + (usage.outputTokens ?? 0) * 6e-7;

/** Rows as JSON text: bigints as `<n>n`, null-prototype maps marked, key order kept. */
function text(rows: readonly SpanRecord[]): string {
  return JSON.stringify(rows, (_key, v: unknown) => {
    if (typeof v === 'bigint') return `${v}n`;
    if (v !== null && typeof v === 'object' && !Array.isArray(v) && Object.getPrototypeOf(v) === null)
      return { '<null prototype>': true, ...v };
    return v;
  });
}

type Generated = ReturnType<typeof exportBatch>;
type GeneratedSpan = Generated['resourceSpans'][number]['scopeSpans'][number]['spans'][number];

/** The workload's shape is known; anything else means this file needs updating, not the mapper. */
function expect(condition: boolean, what: string): void {
  if (!condition) throw new Error(`workload changed: ${what}`);
}

const hex = (bytes: Uint8Array): string => Buffer.from(bytes).toString('hex');

function nullProto(entries: [string, JsonValue][]): Record<string, JsonValue> {
  const out = Object.create(null) as Record<string, JsonValue>;
  for (const [k, v] of entries) out[k] = v;
  return out;
}

/** OpenLLMetry-style indexed messages: `<prefix><index>.<field>`, the workload's only shape. */
function indexedMessages(attrs: [string, JsonValue][], prefix: string): { text: string; keys: string[] } | null {
  const byIndex = new Map<number, [string, JsonValue][]>();
  const keys: string[] = [];
  for (const [key, value] of attrs) {
    if (!key.startsWith(prefix)) continue;
    const [index, field, ...rest] = key.slice(prefix.length).split('.');
    expect(rest.length === 0, 'the workload sends no deeper paths');
    const n = Number(index);
    if (!byIndex.has(n)) byIndex.set(n, []);
    byIndex.get(n)!.push([field!, value]);
    keys.push(key);
  }
  if (keys.length === 0) return null;
  const messages = [...byIndex.keys()].sort((a, b) => a - b).map((n) => Object.fromEntries(byIndex.get(n)!));
  return { text: JSON.stringify(messages), keys };
}

const KINDS: Record<string, SpanRecord['spanKind']> = { AGENT: 'agent', TOOL: 'tool', RETRIEVER: 'retrieval' };

/** The row the mapper must produce for one generated span (the workload has no events or links). */
function expectedRow(span: GeneratedSpan, resource: Record<string, JsonValue>): SpanRecord {
  const attrs: [string, JsonValue][] = span.attributes.map(({ key, value }) => [
    key,
    typeof value.stringValue === 'string' ? value.stringValue : Number(value.intValue),
  ]);
  expect(new Set(attrs.map(([k]) => k)).size === attrs.length, 'the workload repeats no key');
  const get = (key: string): JsonValue | undefined => attrs.find(([k]) => k === key)?.[1];
  const str = (key: string): string | null => (get(key) as string | undefined) ?? null;

  const inputValue = str('input.value');
  const outputValue = str('output.value');
  const prompts = inputValue === null ? indexedMessages(attrs, 'gen_ai.prompt.') : null;
  const completions = outputValue === null ? indexedMessages(attrs, 'gen_ai.completion.') : null;
  const consumed = new Set<string>([
    ...(inputValue === null ? [] : ['input.value']),
    ...(outputValue === null ? [] : ['output.value']),
    ...(prompts?.keys ?? []),
    ...(completions?.keys ?? []),
  ]);
  const model = str('gen_ai.request.model');
  const inputTokens = (get('gen_ai.usage.input_tokens') as number | undefined) ?? null;
  const outputTokens = (get('gen_ai.usage.output_tokens') as number | undefined) ?? null;
  const openinference = str('openinference.span.kind');
  const spanKind =
    openinference !== null ? KINDS[openinference]! : get('gen_ai.operation.name') === 'chat' ? 'llm' : 'function';
  const usage = {
    ...(inputTokens === null ? {} : { inputTokens }),
    ...(outputTokens === null ? {} : { outputTokens }),
  };
  return {
    traceId: hex(span.traceId),
    spanId: hex(span.spanId),
    parentId: span.parentSpanId ? hex(span.parentSpanId) : null,
    name: span.name,
    type: model === null ? 'SPAN' : 'GENERATION',
    spanKind,
    status: 'OK',
    statusMessage: null,
    startNs: BigInt(span.startTimeUnixNano),
    endNs: BigInt(span.endTimeUnixNano),
    model,
    promptName: null,
    serviceName: 'support-bot',
    inputTokens,
    outputTokens,
    cachedInputTokens: null,
    tokens: inputTokens === null && outputTokens === null ? null : (inputTokens ?? 0) + (outputTokens ?? 0),
    cost: model === null ? null : costOf(model, usage)!,
    input: inputValue ?? prompts?.text ?? null,
    output: outputValue ?? completions?.text ?? null,
    sessionId: str('session.id'),
    userId: str('user.id'),
    runId: str('tracelake.run.id'),
    tags: [],
    metadata: nullProto(
      attrs
        .filter(([k]) => k.startsWith('tracelake.metadata.'))
        .map(([k, v]) => [k.slice('tracelake.metadata.'.length), v]),
    ),
    graph: nullProto([]),
    attributes: nullProto(attrs.filter(([k]) => !consumed.has(k) && !k.startsWith('tracelake.metadata.'))),
    resource,
    scope: { name: 'bench', version: '1.0.0' },
  };
}

t.test('the realistic workload: every row equals one computed independently', async (t) => {
  let rows = 0;
  let generations = 0;
  for (const seed of SEEDS) {
    const generated = exportBatch(SPANS_PER_BATCH, seed);
    const decoded = decodeExportRequest(encodeExportRequest(generated));
    const result = mapExportRequest(decoded, { costOf, maxSpansPerTrace: 10_000 });
    t.same(
      [result.rejected, result.errors, result.droppedAttributes],
      [0, [], 0],
      `seed ${seed}: nothing refused or dropped`,
    );

    const resource = nullProto([
      ['service.name', 'support-bot'],
      ['deployment.environment', 'production'],
    ]);
    const spans = generated.resourceSpans[0]!.scopeSpans[0]!.spans;
    const expected = spans.map((span) => expectedRow(span, resource));
    t.equal(result.spans.length, SPANS_PER_BATCH);
    // One comparison per seed keeps the output short; on a mismatch, find the first differing row.
    const actualText = text(result.spans);
    const expectedText = text(expected);
    if (actualText !== expectedText) {
      const i = result.spans.findIndex((row, k) => text([row]) !== text([expected[k]!]));
      t.equal(text([result.spans[i]!]), text([expected[i]!]), `seed ${seed}: row ${i}`);
    }
    t.ok(actualText === expectedText, `seed ${seed}: all ${SPANS_PER_BATCH} rows, key order included`);
    rows += result.spans.length;
    generations += result.spans.filter((r) => r.type === 'GENERATION').length;

    // Spans of one resource share its resource and scope objects; per-span maps are never shared.
    t.ok(result.spans.every((r) => r.resource === result.spans[0]!.resource && r.scope === result.spans[0]!.scope));
    t.equal(new Set(result.spans.flatMap((r) => [r.attributes, r.metadata, r.graph])).size, 3 * SPANS_PER_BATCH);
  }
  t.equal(rows, SEEDS.length * SPANS_PER_BATCH);
  t.ok(generations > rows / 4, 'the workload has plenty of model calls');
});

t.test('the workload maps to the same rows again, whatever was mapped in between', async (t) => {
  const [a, b] = SEEDS.map((seed) => decodeExportRequest(encodeExportRequest(exportBatch(64, seed))));
  const first = text(mapExportRequest(a!, { costOf }).spans);
  mapExportRequest(b!, { costOf });
  t.equal(text(mapExportRequest(a!, { costOf }).spans), first);
});

t.test('one span with tricky keys, through the protobuf decoder: exact JSON of every map', async (t) => {
  const kv = (key: string, value: object) => ({ key, value });
  const s = (v: string) => ({ stringValue: v });
  const decoded = decodeExportRequest(
    encodeExportRequest({
      resourceSpans: [
        {
          resource: {
            attributes: [kv('service.name', s('svc')), kv('7', s('digit key')), kv('service.name', s('svc-2'))],
          },
          scopeSpans: [
            {
              scope: { name: 'tricky' },
              spans: [
                {
                  traceId: Buffer.from('0af7651916cd43dd8448eb211c80319c', 'hex'),
                  spanId: Buffer.from('b7ad6b7169203331', 'hex'),
                  name: 'chat',
                  startTimeUnixNano: '1700000000000000000',
                  endTimeUnixNano: '1699999999999999999',
                  status: { code: 2, message: 'boom' },
                  attributes: [
                    kv('tracelake.metadata.tier', s('ours')),
                    kv('llm.input_messages.1.message.role', s('user')),
                    kv('llm.input_messages.0.message.tool_calls.1.tool_call.id', s('call_b')),
                    kv('llm.input_messages.0.message.tool_calls.0.tool_call.id', s('call_a')),
                    kv('llm.input_messages.0.message.role', s('assistant')),
                    kv('ai.telemetry.metadata.tier', s('ai-sdk')),
                    kv('ai.telemetry.metadata.region', s('eu')),
                    kv('metadata', s('{"tier":"object","0":"zero"}')),
                    kv('graph.node.id', s('n1')),
                    kv('10', { intValue: '10' }),
                    kv('2', { intValue: '-2' }),
                    kv('__proto__', s('data')),
                    kv('llm.model_name', s(' gpt-4o ')),
                    kv('llm.token_count.prompt', { intValue: '9007199254740993' }),
                    kv('llm.token_count.completion', s('12')),
                    kv('tracelake.tags', s('["b","a","b"," "]')),
                    kv('gen_ai.usage.cost', { doubleValue: 0.25 }),
                    kv('openinference.span.kind', s('LLM')),
                    kv('output.value', s('')),
                    kv('llm.output_messages.0.message.content', s('hi')),
                    kv('llm.model_name', s(' gpt-4o-mini ')),
                  ],
                },
              ],
            },
          ],
        },
      ],
    }),
  );
  const [row] = mapExportRequest(decoded, { costOf }).spans;
  t.match(row, {
    traceId: '0af7651916cd43dd8448eb211c80319c',
    spanId: 'b7ad6b7169203331',
    parentId: null,
    type: 'GENERATION',
    spanKind: 'llm',
    status: 'ERROR',
    statusMessage: 'boom',
    startNs: 1700000000000000000n,
    endNs: 1700000000000000000n,
    model: 'gpt-4o-mini',
    serviceName: 'svc-2',
    inputTokens: null, // 2^53 + 1 is no safe count
    outputTokens: 12,
    tokens: 12,
    cost: 0.25,
    output: '[{"content":"hi"}]',
    tags: ['b', 'a'],
  });
  t.equal(
    row!.input,
    '[{"tool_calls":[{"tool_call":{"id":"call_a"}},{"tool_call":{"id":"call_b"}}],"role":"assistant"},{"role":"user"}]',
  );
  t.equal(
    JSON.stringify(row!.attributes),
    '{"2":-2,"10":10,"__proto__":"data","llm.model_name":" gpt-4o-mini ","llm.token_count.prompt":"9007199254740993","llm.token_count.completion":"12",' +
      '"tracelake.tags":"[\\"b\\",\\"a\\",\\"b\\",\\" \\"]","gen_ai.usage.cost":0.25,"openinference.span.kind":"LLM","output.value":""}',
  );
  t.equal(JSON.stringify(row!.metadata), '{"0":"zero","tier":"ours","region":"eu"}');
  t.equal(JSON.stringify(row!.graph), '{"id":"n1"}');
  t.equal(JSON.stringify(row!.resource), '{"7":"digit key","service.name":"svc-2"}');
  t.same(row!.scope, { name: 'tricky', version: null });
  for (const map of [row!.attributes, row!.metadata, row!.graph, row!.resource])
    t.equal(Object.getPrototypeOf(map), null);
});
