import t from 'tap';
import { eventSpanId } from '../../../src/core/otlp/ids.js';
import { mapExportRequest, MAX_ERROR_MESSAGES, rowKeys } from '../../../src/core/otlp/map.js';
import type { ExportTraceServiceRequest, Span } from '../../../src/core/otlp/wire.js';
import type { SpanRecord } from '../../../src/core/span.js';
import {
  attrs,
  END,
  hexBytes,
  PARENT_ID,
  type Plain,
  request,
  span,
  SPAN_ID,
  START,
  TRACE_ID,
} from './wire-builders.js';

/** Rows as JSON-safe plain data, so null-prototype maps and bigints compare by value. */
const plain = (rows: SpanRecord[]): unknown =>
  JSON.parse(JSON.stringify(rows, (_k, v: unknown) => (typeof v === 'bigint' ? `${v}n` : v)));

/** A GenAI-semconv chat span with one exception event, as opentelemetry-instrumentation-openai-v2 sends it. */
function chatSpan(over: Partial<Span> = {}): Span {
  return span({
    attributes: attrs({
      'gen_ai.operation.name': 'chat',
      'gen_ai.system': 'openai',
      'gen_ai.request.model': 'gpt-4o',
      'gen_ai.usage.input_tokens': 100,
      'gen_ai.usage.output_tokens': 20,
      'session.id': 'sess-1',
      'user.id': 'user-9',
    }),
    events: [
      { timeUnixNano: '1700000000500000000', name: 'exception', attributes: attrs({ 'exception.type': 'Timeout' }) },
    ],
    status: { code: 2, message: 'upstream timeout' },
    ...over,
  });
}

t.test('a chat span maps to a GENERATION row followed by its EVENT row', async (t) => {
  const result = mapExportRequest(request([chatSpan()]), { costOf: () => 0.0015 });
  t.same([result.rejected, result.errors, result.droppedAttributes], [0, [], 0]);
  const [row, event] = result.spans;
  t.equal(result.spans.length, 2);
  t.match(row, {
    traceId: TRACE_ID,
    spanId: SPAN_ID,
    parentId: PARENT_ID,
    name: 'chat gpt-4o',
    type: 'GENERATION',
    spanKind: 'llm',
    status: 'ERROR',
    statusMessage: 'upstream timeout',
    startNs: BigInt(START),
    endNs: BigInt(END),
    model: 'gpt-4o',
    serviceName: 'chatbot',
    tokens: 120,
    cost: 0.0015,
    sessionId: 'sess-1',
    scope: { name: 'opentelemetry.instrumentation.openai_v2', version: '2.1b0' },
  });
  t.equal(row!.resource['service.name'], 'chatbot');
  t.match(event, {
    traceId: TRACE_ID,
    spanId: eventSpanId(SPAN_ID, 0),
    parentId: SPAN_ID,
    type: 'EVENT',
    name: 'exception',
    startNs: 1700000000500000000n,
    sessionId: 'sess-1',
    userId: 'user-9',
    serviceName: 'chatbot',
  });
  t.equal(Object.keys(row!).length, 29, 'every SpanRecord field');
  t.same(Object.keys(event!), Object.keys(row!), 'span and event rows share one shape (and one hidden class)');
});

t.test('a span without a model is a SPAN', async (t) => {
  const [row] = mapExportRequest(
    request([span({ attributes: attrs({ 'openinference.span.kind': 'TOOL', 'tool.name': 'search' }) })]),
  ).spans;
  t.equal(row!.type, 'SPAN');
  t.equal(row!.spanKind, 'tool');
  t.equal(row!.cost, null);
});

t.test('hex ids (OTLP/JSON) and bytes (protobuf) give the same rows', async (t) => {
  const json = request([chatSpan({ traceId: TRACE_ID.toUpperCase(), spanId: SPAN_ID, parentSpanId: PARENT_ID })]);
  const proto = request([
    chatSpan({
      traceId: hexBytes(TRACE_ID),
      spanId: Buffer.from(SPAN_ID, 'hex'),
      parentSpanId: hexBytes(PARENT_ID),
      startTimeUnixNano: { low: 0x362a0000, high: 0x17979cfe, unsigned: true },
      endTimeUnixNano: BigInt(END),
      status: { code: 'STATUS_CODE_ERROR', message: 'upstream timeout' },
      events: [
        { timeUnixNano: 1700000000500000000n, name: 'exception', attributes: attrs({ 'exception.type': 'Timeout' }) },
      ],
    }),
  ]);
  t.equal(BigInt(START), 0x17979cfe362a0000n, 'the Long above is START');
  const a = mapExportRequest(json).spans;
  const b = mapExportRequest(proto).spans;
  t.equal(a.length, 2);
  t.same(plain(a), plain(b));
});

t.test('re-sending the same export yields the same rows and ids', async (t) => {
  const req = request([chatSpan({ events: [{ name: 'a' }, { name: 'b' }] })]);
  t.same(plain(mapExportRequest(req).spans), plain(mapExportRequest(req).spans));
});

t.test('malformed ids and times reject that span only', async (t) => {
  const bad: [Partial<Span>, string][] = [
    [{ traceId: TRACE_ID.slice(2) }, 'invalid trace id'],
    [{ traceId: '0'.repeat(32) }, 'invalid trace id'],
    [{ traceId: 'zz' + TRACE_ID.slice(2) }, 'invalid trace id'],
    [{ traceId: undefined }, 'invalid trace id'],
    [{ traceId: new Uint8Array(16) }, 'invalid trace id'],
    [{ spanId: '0000000000000000' }, 'invalid span id'],
    [{ spanId: hexBytes(TRACE_ID) }, 'invalid span id'],
    [{ spanId: 42 as unknown as string }, 'invalid span id'],
    [{ parentSpanId: 'abc' }, 'invalid parent span id'],
    [{ parentSpanId: 'not hex at all' }, 'invalid parent span id'],
    [{ startTimeUnixNano: 'yesterday' }, 'invalid start time'],
    [{ endTimeUnixNano: -5 }, 'invalid end time'],
  ];
  const spans = [...bad.map(([over]) => span(over)), span({ spanId: 'aaaaaaaaaaaaaaaa' })];
  const result = mapExportRequest(request(spans));
  t.equal(result.rejected, bad.length);
  t.same(
    result.spans.map((r) => r.spanId),
    ['aaaaaaaaaaaaaaaa'],
    'the good span still maps',
  );
  t.same(
    result.errors,
    bad.slice(0, MAX_ERROR_MESSAGES).map(([, reason], i) => `resourceSpans[0].scopeSpans[0].spans[${i}]: ${reason}`),
    `only the first ${MAX_ERROR_MESSAGES} reasons are kept`,
  );
  t.ok(bad.length > MAX_ERROR_MESSAGES);
});

t.test('an absent or all-zero parent is a root', async (t) => {
  const rows = mapExportRequest(
    request([
      span({ spanId: '1111111111111111', parentSpanId: '' }),
      span({ spanId: '2222222222222222', parentSpanId: '0000000000000000' }),
      span({ spanId: '3333333333333333', parentSpanId: undefined }),
      span({ spanId: '4444444444444444', parentSpanId: new Uint8Array(0) }),
      span({ spanId: '5555555555555555', parentSpanId: null }),
    ]),
  ).spans;
  t.same(
    rows.map((r) => r.parentId),
    [null, null, null, null, null],
  );
});

t.test(
  'an end before the start is clamped to the start; an absent end is the start; an absent start is refused',
  async (t) => {
    const result = mapExportRequest(
      request([
        span({ spanId: '1111111111111111', startTimeUnixNano: '2000', endTimeUnixNano: '1000' }),
        span({ spanId: '2222222222222222', startTimeUnixNano: '3000', endTimeUnixNano: undefined }),
        span({ spanId: '3333333333333333', startTimeUnixNano: undefined, endTimeUnixNano: undefined }),
        span({ spanId: '4444444444444444', startTimeUnixNano: '0', endTimeUnixNano: '5000' }),
      ]),
    );
    const [clamped, noEnd] = result.spans;
    t.same([clamped!.startNs, clamped!.endNs], [2000n, 2000n]);
    t.same([noEnd!.startNs, noEnd!.endNs], [3000n, 3000n]);
    t.equal(result.spans.length, 2, 'spans without a start time are not stored (at 1970, outside every window)');
    t.equal(result.rejected, 2);
    t.same(
      result.errors,
      [2, 3].map(
        (i) => `resourceSpans[0].scopeSpans[0].spans[${i}]: missing start time (startTimeUnixNano is 0 or absent)`,
      ),
    );
  },
);

t.test('status codes as numbers or enum names', async (t) => {
  const cases: [unknown, string][] = [
    [0, 'UNSET'],
    [1, 'OK'],
    [2, 'ERROR'],
    ['STATUS_CODE_OK', 'OK'],
    ['STATUS_CODE_ERROR', 'ERROR'],
    ['STATUS_CODE_UNSET', 'UNSET'],
    ['error', 'ERROR'],
    ['Ok', 'OK'],
    ['2', 'ERROR'],
    [7, 'UNSET'],
    [null, 'UNSET'],
  ];
  const rows = mapExportRequest(
    request(
      cases.map(([code], i) =>
        span({ spanId: (i + 1).toString(16).padStart(16, 'a'), status: { code: code as number } }),
      ),
    ),
  ).spans;
  t.same(
    rows.map((r) => r.status),
    cases.map(([, status]) => status),
  );
  const [noStatus, emptyMessage] = mapExportRequest(
    request([span({ status: undefined }), span({ status: { code: 2, message: '' } })]),
  ).spans;
  t.same([noStatus!.status, noStatus!.statusMessage], ['UNSET', null]);
  t.same([emptyMessage!.status, emptyMessage!.statusMessage], ['ERROR', null]);
});

t.test("a Langfuse ERROR level makes an unset status an error, with the level's message", async (t) => {
  const level = (level: string, extra: Record<string, string> = {}, status?: Span['status']) =>
    span({ attributes: attrs({ 'langfuse.observation.level': level, ...extra }), status });
  const rows = mapExportRequest(
    request([
      level('ERROR', { 'langfuse.observation.status_message': 'account locked' }),
      level('ERROR'),
      level('WARNING', { 'langfuse.observation.status_message': 'slow' }),
      level('ERROR', { 'langfuse.observation.status_message': 'ignored' }, { code: 1 }),
      level('ERROR', { 'langfuse.observation.status_message': 'ignored' }, { code: 0, message: 'sent' }),
    ]),
  ).spans;
  t.same(
    rows.map((r) => [r.status, r.statusMessage]),
    [
      ['ERROR', 'account locked'],
      ['ERROR', null],
      ['UNSET', null],
      ['OK', null],
      ['ERROR', 'sent'],
    ],
  );
});

t.test(`spans past maxSpansPerTrace of one trace are rejected; events do not count`, async (t) => {
  const other = 'a'.repeat(32);
  const spans = [
    chatSpan({ spanId: '1111111111111111' }),
    chatSpan({ spanId: '2222222222222222' }),
    span({ spanId: '3333333333333333' }),
    span({ traceId: other, spanId: '4444444444444444' }),
    span({ traceId: other, spanId: '5555555555555555' }),
  ];
  const result = mapExportRequest(request(spans), { maxSpansPerTrace: 2 });
  t.equal(result.rejected, 1);
  t.same(result.errors, [`resourceSpans[0].scopeSpans[0].spans[2]: trace ${TRACE_ID} is over 2 spans`]);
  t.same(
    result.spans.filter((r) => r.type !== 'EVENT').map((r) => r.spanId),
    ['1111111111111111', '2222222222222222', '4444444444444444', '5555555555555555'],
  );
  t.equal(result.spans.filter((r) => r.type === 'EVENT').length, 2);
  const invalidFirst = mapExportRequest(request([span({ spanId: '0'.repeat(16) }), span()]), { maxSpansPerTrace: 1 });
  t.same([invalidFirst.rejected, invalidFirst.spans.length], [1, 1], 'a rejected span takes no slot');
});

t.test("service: service.name, else Phoenix's project name", async (t) => {
  const resourceSpans = (resource: Record<string, Plain>, spanId: string) => ({
    resource: { attributes: attrs(resource) },
    scopeSpans: [{ spans: [span({ spanId })] }],
  });
  const result = mapExportRequest({
    resourceSpans: [
      resourceSpans({ 'openinference.project.name': 'support-bot' }, '1111111111111111'),
      resourceSpans({ 'openinference.project.name': 'support-bot', 'service.name': 'api' }, '2222222222222222'),
      resourceSpans({ 'service.name': '', 'openinference.project.name': 'support-bot' }, '3333333333333333'),
      resourceSpans({ 'openinference.project.name': '' }, '4444444444444444'),
    ],
  });
  t.same(
    result.spans.map((r) => [r.spanId, r.serviceName]),
    [
      ['1111111111111111', 'support-bot'],
      ['2222222222222222', 'api'],
      ['3333333333333333', 'support-bot'],
      ['4444444444444444', null],
    ],
  );
  t.equal(result.spans[0]!.resource['openinference.project.name'], 'support-bot', 'the resource is kept as sent');
});

t.test('resource, scope and request shapes a careless sender produces', async (t) => {
  const req = {
    resourceSpans: [
      null,
      {
        resource: null,
        scopeSpans: [{ scope: { name: '', version: 3 }, spans: [span({ spanId: '1111111111111111' })] }],
      },
      {
        resource: { attributes: attrs({ 'service.name': '' }) },
        scopeSpans: [null, { spans: [null, 'x', span({ spanId: '2222222222222222' })] }],
      },
      {
        resource: { attributes: attrs({ 'service.name': 42 }) },
        scopeSpans: [{ spans: [span({ spanId: '3333333333333333' })] }],
      },
      { scopeSpans: 'nope' },
    ],
  } as unknown as ExportTraceServiceRequest;
  const result = mapExportRequest(req);
  t.same(
    result.spans.map((r) => [r.spanId, r.serviceName, r.scope.name, r.scope.version]),
    [
      ['1111111111111111', null, null, null],
      ['2222222222222222', null, null, null],
      ['3333333333333333', null, null, null],
    ],
  );
  t.equal(result.rejected, 2);
  t.same(result.errors, [
    'resourceSpans[2].scopeSpans[1].spans[0]: not a span object',
    'resourceSpans[2].scopeSpans[1].spans[1]: not a span object',
  ]);
  t.same(mapExportRequest({}), { spans: [], rejected: 0, errors: [], droppedAttributes: 0 });
  t.same(mapExportRequest({ resourceSpans: null }).spans, []);
  t.same(mapExportRequest(null as unknown as ExportTraceServiceRequest).spans, [], 'a JSON body of null');
});

t.test('spans of one resource share its resource and scope; names default to empty', async (t) => {
  const [a, b] = mapExportRequest(
    request([span({ spanId: '1111111111111111', name: undefined }), span({ spanId: '2222222222222222' })], {
      'service.name': 'rag-api',
      'service.version': '1.4.0',
      'deployment.environment.name': 'staging',
    }),
  ).spans;
  t.equal(a!.name, '');
  t.equal(a!.resource, b!.resource);
  t.equal(a!.scope, b!.scope);
  t.same(
    { ...a!.resource },
    { 'service.name': 'rag-api', 'service.version': '1.4.0', 'deployment.environment.name': 'staging' },
  );
});

t.test('attribute drops from resources, spans and events are summed', async (t) => {
  const result = mapExportRequest({
    resourceSpans: [
      {
        resource: { attributes: [null as never] },
        scopeSpans: [{ spans: [span({ attributes: [{ key: 1 } as never], events: [{ attributes: [{} as never] }] })] }],
      },
    ],
  });
  t.equal(result.droppedAttributes, 3);
});

t.test('a __proto__ attribute stays data all the way to the row', async (t) => {
  const [row] = mapExportRequest(
    request([
      span({
        attributes: [
          { key: '__proto__', value: { stringValue: 'x' } },
          { key: 'tracelake.metadata.__proto__', value: { stringValue: 'm' } },
        ],
      }),
    ]),
  ).spans;
  t.same(Object.keys(row!.attributes), ['__proto__']);
  t.equal(row!.attributes['__proto__'], 'x');
  t.equal(row!.metadata['__proto__'], 'm');
});

t.test('an AI SDK call maps to a wrapper SPAN over one GENERATION: its usage counts once', async (t) => {
  const outerId = '1111111111111111';
  const innerId = '2222222222222222';
  const common = {
    'ai.model.provider': 'openai.responses',
    'ai.model.id': 'gpt-4o-mini',
    'ai.telemetry.metadata.customer': 'acme',
  };
  const result = mapExportRequest(
    request([
      span({
        spanId: innerId,
        parentSpanId: outerId,
        name: 'ai.generateText.doGenerate',
        attributes: attrs({
          ...common,
          'ai.operationId': 'ai.generateText.doGenerate',
          'ai.prompt.messages': '[{"role":"user","content":[{"type":"text","text":"Say hello"}]}]',
          'gen_ai.request.model': 'gpt-4o-mini',
          'gen_ai.response.model': 'gpt-4o-mini-2024-07-18',
          'ai.response.text': 'Bonjour!',
          'ai.usage.promptTokens': 41,
          'ai.usage.completionTokens': 17,
          'gen_ai.usage.input_tokens': 41,
          'gen_ai.usage.output_tokens': 17,
        }),
      }),
      span({
        spanId: outerId,
        parentSpanId: undefined,
        name: 'ai.generateText',
        attributes: attrs({
          ...common,
          'ai.operationId': 'ai.generateText',
          'ai.prompt': '{"prompt":"Say hello"}',
          'ai.response.text': 'Bonjour!',
          'ai.usage.promptTokens': 41,
          'ai.usage.completionTokens': 17,
        }),
      }),
    ]),
    { costOf: (_model, usage) => ((usage.inputTokens ?? 0) * 0.15 + (usage.outputTokens ?? 0) * 0.6) / 1e6 },
  );
  const [inner, outer] = result.spans;
  t.match(inner, {
    type: 'GENERATION',
    spanKind: 'llm',
    model: 'gpt-4o-mini-2024-07-18',
    inputTokens: 41,
    outputTokens: 17,
    tokens: 58,
    output: 'Bonjour!',
  });
  t.equal(inner!.cost, (41 * 0.15 + 17 * 0.6) / 1e6);
  t.match(outer, {
    type: 'SPAN',
    spanKind: 'function',
    model: null,
    inputTokens: null,
    outputTokens: null,
    tokens: null,
    cost: null,
  });
  t.same(
    [outer!.input, outer!.output],
    ['{"prompt":"Say hello"}', 'Bonjour!'],
    'the wrapper keeps its input and output',
  );
  t.same([{ ...outer!.metadata }, { ...inner!.metadata }], [{ customer: 'acme' }, { customer: 'acme' }]);
  const total = (key: 'tokens' | 'cost') => result.spans.reduce((sum, row) => sum + (row[key] ?? 0), 0);
  t.equal(total('tokens'), 58, 'the trace counts the call once');
  t.equal(total('cost'), inner!.cost);
});

t.test('status codes of other types and numbers', async (t) => {
  const codes: unknown[] = [1.0, 2.0, -0, NaN, 1.5, true, '1', ' 1', 'STATUS_CODE_OK ', {}, undefined];
  const rows = mapExportRequest(
    request(
      codes.map((code, i) =>
        span({ spanId: (i + 1).toString(16).padStart(16, 'a'), status: { code: code as number } }),
      ),
    ),
  ).spans;
  t.same(
    rows.map((r) => r.status),
    ['OK', 'ERROR', 'UNSET', 'UNSET', 'UNSET', 'UNSET', 'OK', 'UNSET', 'UNSET', 'UNSET', 'UNSET'],
  );
});

t.test('spans of one trace sent as bytes: ids read once, rows as if read one by one', async (t) => {
  const trace = hexBytes(TRACE_ID);
  const parent = hexBytes(PARENT_ID);
  const result = mapExportRequest(
    request([
      span({ traceId: trace, spanId: hexBytes('1111111111111111'), parentSpanId: parent }),
      span({ traceId: Buffer.from(TRACE_ID, 'hex'), spanId: hexBytes('0000000000000000'), parentSpanId: parent }),
      span({
        traceId: hexBytes(TRACE_ID),
        spanId: hexBytes('2222222222222222'),
        parentSpanId: Buffer.from(PARENT_ID, 'hex'),
      }),
      span({
        traceId: hexBytes('a'.repeat(32)),
        spanId: hexBytes('3333333333333333'),
        parentSpanId: new Uint8Array(0),
      }),
      span({ traceId: trace, spanId: hexBytes('4444444444444444'), parentSpanId: hexBytes('0'.repeat(16)) }),
      span({ traceId: hexBytes(TRACE_ID.slice(2)), spanId: hexBytes('5555555555555555') }),
      span({ traceId: TRACE_ID, spanId: '6666666666666666', parentSpanId: parent }),
    ]),
    { maxSpansPerTrace: 3 },
  );
  t.same(
    result.spans.map((r) => [r.traceId, r.spanId, r.parentId]),
    [
      [TRACE_ID, '1111111111111111', PARENT_ID],
      [TRACE_ID, '2222222222222222', PARENT_ID],
      ['a'.repeat(32), '3333333333333333', null],
      [TRACE_ID, '4444444444444444', null],
    ],
  );
  t.same(result.errors, [
    'resourceSpans[0].scopeSpans[0].spans[1]: invalid span id',
    'resourceSpans[0].scopeSpans[0].spans[5]: invalid trace id',
    `resourceSpans[0].scopeSpans[0].spans[6]: trace ${TRACE_ID} is over 3 spans`,
  ]);
});

t.test('rowKeys: the keys of the rows mapExportRequest maps, in its order, with its refusals', async (t) => {
  /** What admission would be given from the mapped rows. */
  const keysOfMapping = (req: ExportTraceServiceRequest, opts: { maxSpansPerTrace?: number } = {}) => {
    const mapped = mapExportRequest(req, opts);
    const traceIds = [...new Set(mapped.spans.map((r) => r.traceId))];
    return {
      traceIds,
      traceOf: mapped.spans.map((r) => traceIds.indexOf(r.traceId)),
      spanIds: mapped.spans.map((r) => r.spanId),
      rejected: mapped.rejected,
      errors: mapped.errors,
    };
  };
  const other = 'a'.repeat(32);
  const cases: [string, ExportTraceServiceRequest, { maxSpansPerTrace?: number }][] = [
    [
      'spans with events, of two traces',
      request([
        chatSpan({ spanId: '1111111111111111' }),
        span({ traceId: other, spanId: '2222222222222222', events: [{ name: 'a' }, null as never, { name: 'b' }] }),
        chatSpan({ spanId: '3333333333333333' }),
      ]),
      {},
    ],
    [
      'over the bound',
      request([
        chatSpan({ spanId: '1111111111111111' }),
        span({ spanId: '2222222222222222' }),
        span({ spanId: '3333333333333333' }),
      ]),
      { maxSpansPerTrace: 2 },
    ],
    [
      'malformed ids and times',
      request([
        span({ spanId: '0'.repeat(16) }),
        span({ startTimeUnixNano: undefined }),
        span({ parentSpanId: 'abc' }),
        span(),
      ]),
      {},
    ],
    [
      'careless shapes',
      {
        resourceSpans: [null, { scopeSpans: [null, { spans: [null, 'x', span()] }] }],
      } as unknown as ExportTraceServiceRequest,
      {},
    ],
    ['nothing', {}, {}],
  ];
  for (const [why, req, opts] of cases) t.same(rowKeys(req, opts), keysOfMapping(req, opts), why);
  const keys = rowKeys(request([chatSpan({ events: [{ name: 'a' }, { name: 'b' }] })]));
  t.same(
    keys.spanIds,
    [SPAN_ID, eventSpanId(SPAN_ID, 0), eventSpanId(SPAN_ID, 1)],
    'EVENT rows follow their span, with derived ids',
  );
  t.same(keys.traceOf, [0, 0, 0]);
});
