import t from 'tap';
import { emptyMap } from '../../../src/core/otlp/attributes.js';
import { SpanRow } from '../../../src/core/otlp/row.js';
import type { SpanRecord } from '../../../src/core/span.js';

t.test('a span row is a plain object with every field in SpanRecord order', async (t) => {
  const metadata = emptyMap();
  const scope = { name: 'bench', version: null };
  const row = new SpanRow(
    'a'.repeat(32),
    'b'.repeat(16),
    null,
    'chat',
    'GENERATION',
    'llm',
    'OK',
    null,
    1n,
    2n,
    'gpt-4o',
    'triage',
    'svc',
    10,
    2,
    null,
    12,
    0.5,
    'in',
    'out',
    'sess',
    'user',
    'run',
    ['tag'],
    metadata,
    emptyMap(),
    emptyMap(),
    emptyMap(),
    scope,
  );
  const expected: SpanRecord = {
    traceId: 'a'.repeat(32),
    spanId: 'b'.repeat(16),
    parentId: null,
    name: 'chat',
    type: 'GENERATION',
    spanKind: 'llm',
    status: 'OK',
    statusMessage: null,
    startNs: 1n,
    endNs: 2n,
    model: 'gpt-4o',
    promptName: 'triage',
    serviceName: 'svc',
    inputTokens: 10,
    outputTokens: 2,
    cachedInputTokens: null,
    tokens: 12,
    cost: 0.5,
    input: 'in',
    output: 'out',
    sessionId: 'sess',
    userId: 'user',
    runId: 'run',
    tags: ['tag'],
    metadata: emptyMap(),
    graph: emptyMap(),
    attributes: emptyMap(),
    resource: emptyMap(),
    scope: { name: 'bench', version: null },
  };
  t.same(Object.keys(row), Object.keys(expected), 'the declared order');
  t.same(row, expected);
  t.equal(Object.getPrototypeOf(row), Object.prototype, 'as an object literal would be');
  t.equal(row.constructor, Object);
  t.equal(row.metadata, metadata, 'fields are the values given, not copies');
  t.equal(row.scope, scope);
  t.same(JSON.parse(JSON.stringify(row, (_k, v: unknown) => (typeof v === 'bigint' ? String(v) : v))), {
    ...expected,
    startNs: '1',
    endNs: '2',
  });
  t.same(structuredClone(row), expected, 'clones to another thread as plain data');
});
