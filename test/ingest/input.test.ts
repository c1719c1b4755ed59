/**
 * Integration: OTLP/HTTP input handling — encodings, partialSuccess, idempotent replays, the
 * per-trace bound, large fields and media out of line, every kind of bad input refused with its
 * status and nothing stored, and isolation between apps.
 */
import { gzipSync, deflateSync } from 'node:zlib';
import { join } from 'node:path';
import { createHash } from 'node:crypto';
import t from 'tap';
import { logFilesIn } from '../helpers/logFiles.js';
import { atRest } from '../helpers/atRest.js';
import { decodeExportResponse, encodeExportRequest } from '../helpers/otlpProto.js';
import { exportRequest, forProtobuf, hex } from '../helpers/otlp.js';
import { call, createKey, rootCredentials, serverFor, type Credentials, type TestServer } from '../helpers/server.js';

const PROTO = { 'content-type': 'application/x-protobuf' };
const JSON_TYPE = { 'content-type': 'application/json' };

function post(server: TestServer, auth: Credentials, body: Uint8Array | string, headers: Record<string, string>) {
  return call(server, 'POST', '/v1/traces', {
    rawBody: body,
    headers: { authorization: auth.key, 'x-service-app-id': auth.appId, ...headers },
  });
}

async function postProto(
  server: TestServer,
  auth: Credentials,
  request: ReturnType<typeof exportRequest>,
  headers: Record<string, string> = {},
) {
  const res = await fetch(`${server.url}/v1/traces`, {
    method: 'POST',
    headers: {
      authorization: auth.key,
      'x-service-app-id': auth.appId,
      'x-tracelake-wait': 'visible',
      ...PROTO,
      ...headers,
    },
    body:
      headers['content-encoding'] === 'deflate'
        ? deflateSync(encodeExportRequest(forProtobuf(request)))
        : encodeExportRequest(forProtobuf(request)),
  });
  return {
    status: res.status,
    type: res.headers.get('content-type'),
    answer: decodeExportResponse(new Uint8Array(await res.arrayBuffer())),
  };
}

t.test('OTLP input', async (t) => {
  const server = await serverFor(t, {
    args: ['--max-spans-per-trace', '3', '--max-otlp-body', '64KiB', '--max-otlp-decompressed', '256KiB'],
  });
  const root = rootCredentials(server);
  const sdk = await createKey(server, root, { name: 'sdk', role: 'SDK' });
  const spanCount = async (traceId: string) => {
    const r = await call(server, 'GET', `/v1/traces/${traceId}/spans`, { auth: root });
    return r.status === 404 ? 0 : (r.body.data as unknown[]).length;
  };
  const stored: Record<string, number> = {};

  t.test(
    'protobuf: full success answers an empty ExportTraceServiceResponse, and a replay stores nothing twice',
    async (t) => {
      const traceId = hex(16);
      const request = exportRequest([{ traceId }, { traceId }]);
      const first = await postProto(server, sdk, request);
      t.equal(first.status, 200);
      t.equal(first.type, 'application/x-protobuf');
      t.same(first.answer, {}, 'no partialSuccess');
      const replay = await postProto(server, sdk, request);
      t.equal(replay.status, 200);
      t.same(replay.answer, {}, 'a replay is a success, not a rejection');
      t.equal(await spanCount(traceId), 2, 'not duplicated');
      stored[traceId] = 2;
    },
  );

  t.test('partialSuccess: bad ids and the per-trace bound refuse spans one by one', async (t) => {
    const traceId = hex(16);
    const request = exportRequest([
      { traceId },
      { traceId },
      { traceId },
      { traceId },
      { traceId },
      { traceId: hex(16), spanId: '0000000000000000' },
    ]);
    const spans = request.resourceSpans[0]!.scopeSpans[0]!.spans;
    spans.push({ ...spans[0]!, traceId: 'abcd', spanId: hex(8) });
    const r = await postProto(server, sdk, request);
    t.equal(r.status, 200);
    t.equal(r.answer.partialSuccess?.rejectedSpans, '4', 'two over the bound, two with bad ids');
    t.match(r.answer.partialSuccess?.errorMessage, /span id/);
    t.equal(await spanCount(traceId), 3, 'the bound holds within a request');
    // Across requests, in JSON: the trace is full, so one more span is refused.
    const more = await post(server, sdk, JSON.stringify(exportRequest([{ traceId }])), JSON_TYPE);
    t.equal(more.status, 200);
    t.same(more.body, {
      partialSuccess: { rejectedSpans: '1', errorMessage: '1 span(s) over the bound of 3 spans per trace' },
    });
    t.equal(await spanCount(traceId), 3, 'the bound holds across requests');
    stored[traceId] = 3;
  });

  t.test('a span without a start time is refused through partialSuccess, the others stored', async (t) => {
    const traceId = hex(16);
    const request = exportRequest([{ traceId }, { traceId }]);
    delete (request.resourceSpans[0]!.scopeSpans[0]!.spans[1] as { startTimeUnixNano?: string }).startTimeUnixNano;
    const r = await post(server, sdk, JSON.stringify(request), JSON_TYPE);
    t.equal(r.status, 200);
    t.equal(r.body.partialSuccess?.rejectedSpans, '1');
    t.match(r.body.partialSuccess?.errorMessage, /missing start time/);
    t.equal(await spanCount(traceId), 1, 'the span with its time is stored');
    stored[traceId] = 1;
  });

  t.test('JSON, gzip and deflate bodies are accepted', async (t) => {
    const a = hex(16);
    const gz = await post(server, sdk, gzipSync(JSON.stringify(exportRequest([{ traceId: a }]))), {
      ...JSON_TYPE,
      'content-encoding': 'gzip',
    });
    t.equal(gz.status, 200);
    t.same(gz.body, {});
    const b = hex(16);
    const df = await postProto(server, sdk, exportRequest([{ traceId: b }]), { 'content-encoding': 'deflate' });
    t.equal(df.status, 200);
    t.equal(await spanCount(a), 1);
    t.equal(await spanCount(b), 1);
    stored[a] = 1;
    stored[b] = 1;
  });

  t.test('large fields are stored in full out of line; media become blobs', async (t) => {
    const traceId = hex(16);
    const spanId = hex(8);
    const long = 'The quick brown fox. '.repeat(1000);
    const png = Buffer.from('89504e470d0a1a0a0000000d49484452', 'hex');
    const media = JSON.stringify({
      role: 'assistant',
      content: [{ type: 'image', mimeType: 'image/png', base64: png.toString('base64') }],
    });
    const request = exportRequest([{ traceId, spanId, attributes: { 'input.value': long, 'output.value': media } }]);
    t.equal((await post(server, sdk, JSON.stringify(request), JSON_TYPE)).status, 200);
    const span = await call(server, 'GET', `/v1/traces/${traceId}/spans/${spanId}`, { auth: root });
    t.equal(span.body.data.input, long, 'the input comes back whole');
    t.equal(span.body.data.input_preview.length, 500, 'with a 500-character preview');
    t.same(JSON.parse(span.body.data.output), JSON.parse(media), 'opened, the span has its media inline again');
    const listed = await call(server, 'GET', `/v1/traces/${traceId}/spans`, { auth: root });
    t.notMatch(JSON.stringify(listed.body), png.toString('base64'), 'span lists carry no media');
    const sha = createHash('sha256').update(png).digest('hex');
    const blob = await fetch(`${server.url}/v1/agents/blob/${sha}`, {
      headers: { authorization: root.key, 'x-service-app-id': root.appId },
    });
    t.equal(blob.status, 200);
    t.equal(blob.headers.get('content-type'), 'image/png');
    t.same(Buffer.from(await blob.arrayBuffer()), png, 'the media bytes round-trip');
    stored[traceId] = 1;
  });

  t.test(
    "previews are 500 characters, an emoji one of them: the trace's (taken while ingesting) = its root span's (derived when read)",
    async (t) => {
      const traceId = hex(16);
      const spanId = hex(8);
      const inline = `${'😀'.repeat(300)}${'z'.repeat(300)}`; // inline text: its preview is derived by SQL's left()
      const outOfLine = `${'y'.repeat(499)}😀${'y'.repeat(9000)}`; // a blob: its preview is stored, cut in JS
      const request = exportRequest([
        { traceId, spanId, attributes: { 'input.value': inline, 'output.value': outOfLine } },
      ]);
      t.equal((await post(server, sdk, JSON.stringify(request), JSON_TYPE)).status, 200);
      const span = (await call(server, 'GET', `/v1/traces/${traceId}/spans/${spanId}`, { auth: root })).body.data;
      const trace = (await call(server, 'GET', `/v1/traces/${traceId}`, { auth: root })).body.data;
      t.equal(span.input_preview, `${'😀'.repeat(300)}${'z'.repeat(200)}`);
      t.equal(trace.input_preview, span.input_preview, "the trace's input preview is its root's");
      t.equal(span.output_preview, `${'y'.repeat(499)}😀`, 'a stored preview keeps the emoji whole');
      t.equal(trace.output_preview, span.output_preview);
      stored[traceId] = 1;
    },
  );

  t.test('bad input: each refused with its status, before anything is stored', async (t) => {
    const marker = hex(16);
    const valid = exportRequest([{ traceId: marker }]);
    const validProto = encodeExportRequest(forProtobuf(valid));
    const gz = gzipSync(JSON.stringify(valid));
    const bomb = gzipSync(
      JSON.stringify(exportRequest([{ traceId: marker, attributes: { pad: 'x'.repeat(1024 * 1024) } }])),
    );
    const cases: [string, Uint8Array | string, Record<string, string>, number, string][] = [
      ['malformed protobuf', Buffer.from([0x0a, 0xff, 0xff, 0xff, 0xff, 0x0f]), PROTO, 400, 'invalid_request_body'],
      [
        'truncated gzip',
        gz.subarray(0, Math.floor(gz.length / 2)),
        { ...JSON_TYPE, 'content-encoding': 'gzip' },
        400,
        'invalid_request_body',
      ],
      ['gzip bytes sent as identity', gz, JSON_TYPE, 400, 'invalid_request_body'],
      ['wrong content type', JSON.stringify(valid), { 'content-type': 'text/plain' }, 415, 'unsupported_media_type'],
      ['unknown content encoding', validProto, { ...PROTO, 'content-encoding': 'br' }, 415, 'unsupported_media_type'],
      ['body over the compressed cap', Buffer.alloc(65 * 1024, 1), PROTO, 413, 'payload_too_large'],
      ['decompressed over its cap', bomb, { ...JSON_TYPE, 'content-encoding': 'gzip' }, 413, 'payload_too_large'],
      ['JSON that is not OTLP', JSON.stringify({ hello: 'world' }), JSON_TYPE, 400, 'invalid_request_body'],
      ['a JSON array', JSON.stringify([valid]), JSON_TYPE, 400, 'invalid_request_body'],
      ['resourceSpans not an array', JSON.stringify({ resourceSpans: 'x' }), JSON_TYPE, 400, 'invalid_request_body'],
      [
        'spans not an array',
        JSON.stringify({ resourceSpans: [{ scopeSpans: [{ spans: {} }] }] }),
        JSON_TYPE,
        400,
        'invalid_request_body',
      ],
      ['not JSON at all', '{"resourceSpans": [', JSON_TYPE, 400, 'invalid_request_body'],
    ];
    t.ok(bomb.length < 64 * 1024, 'the bomb is small on the wire');
    for (const [name, body, headers, status, code] of cases) {
      const r = await post(server, sdk, body, headers);
      t.equal(r.status, status, name);
      t.equal(r.body?.error?.code, code, `${name}: ${code}`);
      if (code === 'invalid_request_body') {
        t.equal(r.body.error.message, 'Invalid request body', `${name}: the spec's generic message`);
        t.match(r.body.error.details?.body, /^not /, `${name}: what was wrong, in details.body`);
      }
    }
    const bearer = await call(server, 'POST', '/v1/traces', {
      rawBody: validProto,
      headers: { authorization: `Bearer ${sdk.key}`, 'x-service-app-id': sdk.appId, ...PROTO },
    });
    t.equal(bearer.status, 401, 'OTLP ingestion refuses the Bearer prefix');
    t.match(bearer.body.error.message, /Bearer/);
    const reader = await createKey(server, root, { name: 'reader', role: 'Read-Only' });
    const ro = await post(server, reader, validProto, PROTO);
    t.equal(ro.status, 403, 'Read-Only keys cannot ingest');
    t.equal(ro.body.error.required_permission, 'trace.write');
    t.equal(await spanCount(marker), 0, 'none of the refused bodies stored a span');
  });

  t.test('another app sees none of it: 404 exactly as for unknown ids', async (t) => {
    const app = await call(server, 'POST', '/v1/apps', { auth: root, body: { name: 'other-app' } });
    t.equal(app.status, 201);
    const other = await createKey(server, root, { name: 'other', role: 'Full Access', app_id: app.body.data.id });
    const otherAuth = { key: other.key, appId: app.body.data.id };
    const [traceId] = Object.keys(stored) as [string];
    const theirs = await call(server, 'GET', `/v1/traces/${traceId}`, { auth: otherAuth });
    const unknown = await call(server, 'GET', `/v1/traces/${hex(16)}`, { auth: otherAuth });
    t.equal(theirs.status, 404);
    t.equal(unknown.status, 404);
    t.equal(theirs.body.error.code, unknown.body.error.code);
    t.equal((await call(server, 'GET', `/v1/traces/${traceId}/spans`, { auth: otherAuth })).status, 404);
    const sessions = await call(server, 'GET', '/v1/sessions', { auth: otherAuth });
    t.same(sessions.body.data, []);
    // The other app's own spans land in its own app.
    const own = hex(16);
    t.equal((await post(server, otherAuth, JSON.stringify(exportRequest([{ traceId: own }])), JSON_TYPE)).status, 200);
    t.equal((await call(server, 'GET', `/v1/traces/${own}`, { auth: otherAuth })).status, 200);
    t.equal((await call(server, 'GET', `/v1/traces/${own}`, { auth: root })).status, 404);
    const dup = await call(server, 'POST', '/v1/apps', { auth: root, body: { name: 'other-app' } });
    t.equal(dup.status, 409);
    t.equal(dup.body.error.code, 'duplicate_app_name');
    stored[`other:${own}`] = 1;
  });

  t.test('at rest: exactly the accepted spans, nothing from refused bodies', async (t) => {
    t.equal(await server.stop('SIGTERM'), 0);
    t.same(
      logFilesIn(join(server.dataDir, 'ingest-log')),
      [],
      'a clean stop leaves no log to replay: everything is in committed segments',
    );
    await atRest(server.dataDir, async (c) => {
      const rows = (
        await c.runAndReadAll(`SELECT trace_id, count(*)::INTEGER AS n FROM spans GROUP BY trace_id`)
      ).getRowObjectsJson();
      const expected = Object.fromEntries(Object.entries(stored).map(([k, n]) => [k.replace(/^other:/, ''), n]));
      t.same(Object.fromEntries(rows.map((r) => [r.trace_id, r.n])), expected);
      const outOfLine = (
        await c.runAndReadAll(`SELECT count(*)::INTEGER AS n FROM spans WHERE input IS NULL AND input_ref IS NOT NULL`)
      ).getRowObjectsJson();
      t.same(outOfLine, [{ n: 1 }], 'the long input is not on the row');
    });
  });
});

t.test('refused and partly refused exports are logged at warn, rate-limited', async (t) => {
  const server = await serverFor(t);
  const root = rootCredentials(server);
  const bad = { key: 'sk_service_nope', appId: root.appId } as Credentials;
  for (let i = 0; i < 3; i++)
    t.equal((await post(server, bad, JSON.stringify(exportRequest([{ traceId: hex(16) }])), JSON_TYPE)).status, 401);
  const refused = await server.waitForLog((l) => l.msg === 'ingestion refused' && l.reason === 'unauthorized');
  t.equal(refused.level, 40, 'at warn');
  t.equal(refused.key_prefix, 'sk_service_n', 'the shown prefix of the key, never the key');
  t.equal(refused.app_id, root.appId);
  t.equal(refused.status, 401);
  const sdk = await createKey(server, root, { name: 'sdk', role: 'SDK' });
  const request = exportRequest([{ traceId: hex(16) }, { traceId: hex(16), spanId: '0000000000000000' }]);
  t.equal((await postProto(server, sdk, request)).status, 200);
  const partial = await server.waitForLog((l) => l.msg === 'ingestion refused' && l.reason === 'partial_success');
  t.equal(partial.rejected_spans, 1);
  t.equal(partial.tenant_id, server.bootstrap!.tenant_id);
  t.match(partial.message, /span id/);
  t.equal(
    server.logs.filter((l) => l.msg === 'ingestion refused' && l.reason === 'unauthorized').length,
    1,
    'three refusals within the interval make one line',
  );
});
