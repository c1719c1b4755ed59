/** src/ingest/rows.ts: mapped spans → span table rows, large texts and media moved out of line. */
import { createHash } from 'node:crypto';
import t from 'tap';
import type { SpanRecord } from '../../../src/core/span.js';
import { extractMedia, INLINE_LIMIT_BYTES, sha256, toRows, type BlobRecord } from '../../../src/ingest/rows.js';
import { COLUMN_INDEX as C, SPAN_COLUMNS } from '../../../src/store/spans/columns.js';

const scope = { tenantId: 't-1', appId: 'a-1', environmentId: 'e-1' };
const instrumentation = { name: 'openinference', version: '1.0' };

function span(over: Partial<SpanRecord> = {}): SpanRecord {
  return {
    traceId: 'a'.repeat(32),
    spanId: 'b'.repeat(16),
    parentId: null,
    name: 'chat',
    type: 'GENERATION',
    spanKind: 'llm',
    status: 'OK',
    statusMessage: null,
    startNs: 1_700_000_000_000_000_000n,
    endNs: 1_700_000_001_000_000_000n,
    model: 'gpt-4o',
    promptName: null,
    serviceName: 'svc',
    inputTokens: 10,
    outputTokens: 20,
    cachedInputTokens: null,
    tokens: 30,
    cost: 0.25,
    input: 'hello',
    output: 'world',
    sessionId: 's',
    userId: 'u',
    runId: null,
    tags: ['t'],
    metadata: { k: 'v' },
    graph: {},
    attributes: { 'a.b': 1 },
    resource: { 'service.name': 'svc' },
    scope: instrumentation,
    ...over,
  };
}

const hash = (s: string | Uint8Array) => createHash('sha256').update(s).digest('hex');

t.test('a span becomes a row, column by column', async (t) => {
  const { rows, blobs, resources } = toRows(scope, [span()]);
  t.equal(rows.length, 1);
  const row = rows[0]!;
  t.equal(row.length, SPAN_COLUMNS.length, 'one value per column');
  t.same(
    {
      tenant: row[C.tenant_id],
      app: row[C.app_id],
      env: row[C.environment_id],
      trace: row[C.trace_id],
      span: row[C.span_id],
      parent: row[C.parent_id],
      type: row[C.type],
      kind: row[C.span_kind],
      status: row[C.status],
    },
    {
      tenant: 't-1',
      app: 'a-1',
      env: 'e-1',
      trace: 'a'.repeat(32),
      span: 'b'.repeat(16),
      parent: null,
      type: 'GENERATION',
      kind: 'llm',
      status: 'OK',
    },
  );
  t.equal(row[C.start_ns], 1_700_000_000_000_000_000n);
  t.same(
    [row[C.input_tokens], row[C.output_tokens], row[C.cached_input_tokens], row[C.tokens], row[C.cost]],
    [10, 20, null, 30, 0.25],
  );
  t.same(
    [row[C.input], row[C.output], row[C.input_preview], row[C.output_preview], row[C.input_ref], row[C.output_ref]],
    ['hello', 'world', null, null, null, null],
    'small texts inline, previews derived when read',
  );
  t.same([row[C.session_id], row[C.user_id], row[C.run_id], row[C.tags]], ['s', 'u', null, ['t']]);
  t.same(
    [row[C.metadata], row[C.graph], row[C.attributes]],
    ['{"k":"v"}', null, '{"a.b":1}'],
    'JSON text; an empty map is null',
  );
  t.same(blobs, []);
  t.equal(resources.length, 1);
  const digest = createHash('sha256').update('{"service.name":"svc"}\u0000openinference\u00001.0').digest();
  t.same(resources[0], {
    id: digest.readBigUInt64BE(0),
    resource: '{"service.name":"svc"}',
    scopeName: 'openinference',
    scopeVersion: '1.0',
  });
  t.equal(row[C.resource_id], resources[0]!.id);
});

t.test('attributes a column holds are stored once, in the column', async (t) => {
  const [row] = toRows(scope, [
    span({
      attributes: {
        'session.id': 's',
        'gen_ai.request.model': 'gpt-4o',
        'gen_ai.usage.input_tokens': 10,
        'user.id': 'other',
        'a.b': 1,
      },
    }),
  ]).rows;
  t.same(JSON.parse(row![C.attributes] as string), { 'user.id': 'other', 'a.b': 1 }, 'the rest stays');
  t.ok((row![C.attributes_in_columns] as number) > 0, 'the row names the keys left out');
  const [plain] = toRows(scope, [span()]).rows;
  t.equal(plain![C.attributes_in_columns], null);
});

t.test('token counts: integers in the INTEGER range, else null', async (t) => {
  const [row] = toRows(scope, [
    span({ inputTokens: 1.9, outputTokens: 2 ** 40, cachedInputTokens: Number.NaN, tokens: -(2 ** 40) }),
  ]).rows;
  t.same(
    [row![C.input_tokens], row![C.output_tokens], row![C.cached_input_tokens], row![C.tokens]],
    [1, 2147483647, null, -2147483648],
  );
  const [inf] = toRows(scope, [span({ inputTokens: Infinity, tokens: null })]).rows;
  t.same([inf![C.input_tokens], inf![C.tokens]], [null, null]);
});

t.test('resources: one record per distinct resource and scope', async (t) => {
  const other = { name: null, version: null };
  const spans = [span(), span(), span({ scope: { ...instrumentation } }), span({ scope: other, resource: {} })];
  const { rows, resources } = toRows(scope, spans);
  t.equal(resources.length, 2, 'equal resources in different objects are one');
  t.equal(rows[0]![C.resource_id], rows[2]![C.resource_id]);
  const bare = resources.find((r) => r.resource === null)!;
  t.same(
    bare,
    {
      id: createHash('sha256').update('\u0000\u0000').digest().readBigUInt64BE(0),
      resource: null,
      scopeName: null,
      scopeVersion: null,
    },
    'no attributes, no scope',
  );
  t.equal(rows[3]![C.resource_id], bare.id);
});

t.test('large texts go out of line whole, with a preview', async (t) => {
  const big = 'x'.repeat(INLINE_LIMIT_BYTES + 1);
  const json = JSON.stringify({ messages: ['y'.repeat(INLINE_LIMIT_BYTES)] });
  const { rows, blobs } = toRows(scope, [span({ input: big, output: json }), span({ input: big, output: null })]);
  const [a, b] = rows as [NonNullable<(typeof rows)[0]>, NonNullable<(typeof rows)[0]>];
  t.same([a[C.input], a[C.input_ref], a[C.input_preview]], [null, hash(big), 'x'.repeat(500)]);
  t.same([a[C.output], a[C.output_ref], a[C.output_preview]], [null, hash(json), json.slice(0, 500)]);
  t.same([b[C.output], b[C.output_ref], b[C.output_preview]], [null, null, null], 'no text');
  t.equal(blobs.length, 2, 'one blob per distinct text');
  t.same(blobs.map((x) => x.mediaType).sort(), ['application/json', 'text/plain; charset=utf-8']);
  t.equal(
    Buffer.from(blobs.find((x) => x.sha256 === hash(big))!.data).toString(),
    big,
    'stored whole, never truncated',
  );

  const exact = 'z'.repeat(INLINE_LIMIT_BYTES);
  t.equal(toRows(scope, [span({ input: exact })]).rows[0]![C.input], exact, 'exactly the limit stays inline');
  const wide = 'é'.repeat(INLINE_LIMIT_BYTES / 2 + 1);
  t.equal(toRows(scope, [span({ input: wide })]).rows[0]![C.input_ref], hash(wide), 'the limit is in UTF-8 bytes');
  const small = toRows(scope, [span({ input: ' [1,2,3]' })], 4);
  t.same(
    [small.rows[0]![C.input_preview], small.blobs[0]!.mediaType],
    [' [1,2,3]', 'application/json'],
    'a custom limit; a short text is its own preview',
  );
});

t.test('media objects are stored as blobs of their own type', async (t) => {
  const png = Buffer.from([0x89, 0x50, 0x4e, 0x47]);
  const wav = Buffer.from('RIFF');
  const input = JSON.stringify([
    { role: 'user', content: [{ type: 'image', mimeType: 'image/png', base64: png.toString('base64') }] },
    { audio: { mediaType: 'audio/wav', base64: wav.toString('base64'), seconds: 2 } },
  ]);
  const { rows, blobs } = toRows(scope, [span({ input })]);
  t.same(JSON.parse(rows[0]![C.input] as string), [
    { role: 'user', content: [{ type: 'image', mimeType: 'image/png', sha256: hash(png), bytes: 4 }] },
    { audio: { mediaType: 'audio/wav', seconds: 2, sha256: hash(wav), bytes: 4 } },
  ]);
  t.same(
    blobs.map((b) => [b.mediaType, b.sha256]),
    [
      ['image/png', hash(png)],
      ['audio/wav', hash(wav)],
    ],
  );
});

t.test('extractMedia leaves everything else as it is', async (t) => {
  const kept: BlobRecord[] = [];
  const keep = (b: BlobRecord) => void kept.push(b);
  const same = (text: string, why: string) => t.equal(extractMedia(text, keep), text, why);
  same('{"a":1}', 'no base64');
  same('base64 is an encoding', 'not JSON');
  same('{"base64": ', 'not valid JSON');
  same('  { "x": { "base64": "AAAA" } }', 'base64 without a media type: the text is not rewritten');
  same('[{"mimeType":"image/png","base64":7}]', 'base64 that is not a string');
  same('[{"mimeType":1,"base64":"AAAA"}]', 'a media type that is not a string');
  same('["base64", null, 1, true]', 'scalars');
  t.equal(kept.length, 0);
  // Nested past the depth limit (64): left as it is.
  const deep = (levels: number) => '['.repeat(levels) + '{"mimeType":"a/b","base64":"AAAA"}' + ']'.repeat(levels);
  same(deep(65), 'a media object 65 levels down is not looked at');
  t.equal(kept.length, 0);
  t.not(extractMedia(deep(64), keep), deep(64), 'one 64 levels down is');
  t.equal(kept.length, 1);
  t.same(kept[0]!.data, Buffer.from([0, 0, 0]));
});

t.test('sha256', async (t) => {
  t.equal(sha256(new Uint8Array(0)), 'e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855');
  t.equal(sha256(Buffer.from('abc')), hash('abc'));
});

t.test(
  'a cost no span keeps is stored as none, whichever mapper made it (a trace sum of it failed every commit)',
  async (t) => {
    const rows = toRows(scope, [
      span({ spanId: 'a'.repeat(16), cost: 1e300 }),
      span({ spanId: 'b'.repeat(16), cost: 2e9 }),
      span({ spanId: 'c'.repeat(16), cost: 0.5 }),
    ]).rows;
    t.same(
      rows.map((r) => r[C.cost]),
      [null, null, 0.5],
    );
  },
);
