import t from 'tap';
import { emptyMap } from '../../../src/core/otlp/attributes.js';
import { eventRows } from '../../../src/core/otlp/events.js';
import { eventSpanId } from '../../../src/core/otlp/ids.js';
import type { SpanRecord } from '../../../src/core/span.js';
import { attrs, SPAN_ID, TRACE_ID } from './wire-builders.js';

const START = 1700000000000000000n;

function parentRow(): SpanRecord {
  const resource = emptyMap();
  resource['service.name'] = 'chatbot';
  return {
    traceId: TRACE_ID,
    spanId: SPAN_ID,
    parentId: null,
    name: 'chat gpt-4o',
    type: 'GENERATION',
    spanKind: 'llm',
    status: 'ERROR',
    statusMessage: 'rate limited',
    startNs: START,
    endNs: START + 1_000_000_000n,
    model: 'gpt-4o',
    promptName: 'triage',
    serviceName: 'chatbot',
    inputTokens: 10,
    outputTokens: 2,
    cachedInputTokens: null,
    tokens: 12,
    cost: 0.01,
    input: 'hi',
    output: 'hello',
    sessionId: 'sess-1',
    userId: 'user-9',
    runId: 'run-3',
    tags: ['prod'],
    metadata: emptyMap(),
    graph: emptyMap(),
    attributes: emptyMap(),
    resource,
    scope: { name: 'opentelemetry.instrumentation.openai_v2', version: '2.1b0' },
  };
}

t.test('each span event becomes an EVENT row under its span', async (t) => {
  const parent = parentRow();
  const rows = eventRows(
    parent,
    [
      {
        timeUnixNano: '1700000000250000000',
        name: 'exception',
        attributes: attrs({
          'exception.type': 'openai.RateLimitError',
          'exception.message': 'Rate limit reached',
          'exception.escaped': false,
        }),
      },
      {
        timeUnixNano: '1700000000900000000',
        name: 'gen_ai.choice',
        attributes: attrs({ 'gen_ai.system': 'openai', index: 0 }),
      },
    ],
    { dropped: 0 },
  );
  t.equal(rows.length, 2);
  const [exception] = rows;
  t.same(
    {
      ...exception!,
      metadata: { ...exception!.metadata },
      graph: { ...exception!.graph },
      attributes: { ...exception!.attributes },
    },
    {
      traceId: TRACE_ID,
      spanId: eventSpanId(SPAN_ID, 0),
      parentId: SPAN_ID,
      name: 'exception',
      type: 'EVENT',
      spanKind: 'function',
      status: 'UNSET',
      statusMessage: null,
      startNs: 1700000000250000000n,
      endNs: 1700000000250000000n,
      model: null,
      promptName: null,
      serviceName: 'chatbot',
      inputTokens: null,
      outputTokens: null,
      cachedInputTokens: null,
      tokens: null,
      cost: null,
      input: null,
      output: null,
      sessionId: 'sess-1',
      userId: 'user-9',
      runId: 'run-3',
      tags: [],
      metadata: {
        'exception.type': 'openai.RateLimitError',
        'exception.message': 'Rate limit reached',
        'exception.escaped': false,
      },
      graph: {},
      attributes: {},
      resource: parent.resource,
      scope: parent.scope,
    },
  );
  t.equal(Object.getPrototypeOf(exception!.metadata), null);
  t.equal(rows[1]!.spanId, eventSpanId(SPAN_ID, 1));
  t.equal(rows[1]!.startNs, 1700000000900000000n);
});

t.test('ids depend on the position only, so a re-send gives the same rows', async (t) => {
  const events = [{ name: 'a' }, null, { name: 'c' }];
  const first = eventRows(parentRow(), events, { dropped: 0 });
  const again = eventRows(parentRow(), events, { dropped: 0 });
  t.same(
    first.map((r) => r.spanId),
    again.map((r) => r.spanId),
  );
  t.same(
    first.map((r) => r.spanId),
    [eventSpanId(SPAN_ID, 0), eventSpanId(SPAN_ID, 2)],
    'a malformed entry keeps its slot',
  );
});

t.test('an event without a usable time or name', async (t) => {
  const rows = eventRows(parentRow(), [{ timeUnixNano: 0 }, { timeUnixNano: 'later', name: 7 }, {}], { dropped: 0 });
  t.same(
    rows.map((r) => r.startNs),
    [START, START, START],
    'the span start stands in',
  );
  t.same(
    rows.map((r) => r.endNs),
    [START, START, START],
  );
  t.same(
    rows.map((r) => r.name),
    ['', '', ''],
  );
});

t.test('no events, or no list', async (t) => {
  t.same(eventRows(parentRow(), [], { dropped: 0 }), []);
  t.same(eventRows(parentRow(), undefined, { dropped: 0 }), []);
  t.same(eventRows(parentRow(), { name: 'x' }, { dropped: 0 }), []);
});

t.test('event attribute drops reach the counter', async (t) => {
  const counter = { dropped: 0 };
  eventRows(parentRow(), [{ attributes: [null, { key: 'ok', value: { stringValue: 'x' } }] }], counter);
  t.equal(counter.dropped, 1);
});
