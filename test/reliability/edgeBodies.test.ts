/**
 * What a request body can do at the edge (issue 53, items 4 and 7), on one server.
 * - Nesting: JSON bodies nested deeper than 128 levels are refused (400) before validation, which
 *   recursed and overflowed the stack (a 500).
 * - Half a surrogate pair: OTLP/JSON text whose escapes spell a lone surrogate, in attribute keys
 *   and values, is stored with U+FFFD in its place; protobuf strings that are not UTF-8 are refused
 *   (nothing stored); API bodies refuse it (docs/decisions.md, "Text is well-formed Unicode").
 *   Whatever was sent, the metadata filters, span search and metrics read on, before and after a
 *   restart.
 */
import { rmSync } from 'node:fs';
import { deflateRawSync, gzipSync } from 'node:zlib';
import t from 'tap';
import { exportRequest, forProtobuf, hex } from '../helpers/otlp.js';
import { encodeExportRequest } from '../helpers/otlpProto.js';
import { peakRssMiB } from '../helpers/rss.js';
import { call, startServer, tempDir, type TestServer } from '../helpers/server.js';

const KEY = 'sk_service_' + 'EdgeBodies'.repeat(5);
const LONE = ['\ud800', '\udfff', '\udc00\udc00', 'x\ud83d'];

const MiB = 1024 * 1024;
const BUDGET = 64 * MiB;
const start = (dataDir: string) =>
  startServer({
    dataDir,
    env: {
      TRACELAKE_BOOTSTRAP_KEY: KEY,
      TRACELAKE_MAX_INFLIGHT_BYTES: String(BUDGET),
      // A cap far over the budget: what bounds memory is the budget, not the cap times the requests.
      TRACELAKE_MAX_OTLP_DECOMPRESSED: String(128 * MiB),
    },
  });

t.test('request bodies at the edge, on one server', async (t) => {
  const dataDir = tempDir();
  let server: TestServer = await start(dataDir);
  t.teardown(async () => {
    await server.stop('SIGKILL');
    rmSync(dataDir, { recursive: true, force: true });
  });
  const appId = server.bootstrap!.app_id as string;
  const auth = { key: KEY, appId };
  const json = { authorization: KEY, 'x-service-app-id': appId, 'content-type': 'application/json' };

  t.test('concurrent gzip bombs are all 413 and memory stays within the budget', async (t) => {
    // 160 members of 1 MiB of zeros: 160 MiB inflated from a sixth of a MiB, over the 128 MiB cap.
    const member = gzipSync(Buffer.alloc(MiB));
    const bomb = Buffer.concat(Array.from({ length: 160 }, () => member));
    t.ok(bomb.byteLength < MiB, `the bomb is ${bomb.byteLength} bytes`);
    const before = peakRssMiB(server.child.pid!) * MiB;
    const answers = await Promise.all(
      Array.from({ length: 6 }, (_, i) =>
        call(server, 'POST', '/v1/traces', {
          rawBody: bomb,
          headers: {
            ...json,
            'content-type': i % 2 ? 'application/json' : 'application/x-protobuf',
            'content-encoding': 'gzip',
          },
        }),
      ),
    );
    t.same(
      answers.map((a) => a.status),
      answers.map(() => 413),
      'every bomb is refused as too large',
    );
    t.equal(answers[0]!.headers.get('content-type')?.startsWith('application/json'), true);
    t.equal(answers[0]!.body?.error?.code, 'payload_too_large');
    const peak = peakRssMiB(server.child.pid!) * MiB;
    t.ok(peak <= BUDGET + 512 * MiB, `peak RSS ${Math.round(peak / MiB)} MiB (${Math.round(before / MiB)} MiB before)`);

    // A body that fits the cap is inflated and stored; one that fits the cap but not the budget is 503.
    const traceId = hex(16);
    const fits = gzipSync(JSON.stringify(exportRequest([{ traceId }])));
    const ok = await call(server, 'POST', '/v1/traces', {
      rawBody: fits,
      headers: { ...json, 'content-encoding': 'gzip' },
    });
    t.equal(ok.status, 200, ok.text);
    // Gzip members decode to their concatenation: 80 MiB of spaces inside the JSON, gzipped cheaply.
    const spaces = gzipSync(' '.repeat(MiB));
    const text = JSON.stringify(exportRequest([{ traceId: hex(16) }]));
    const padded = Buffer.concat([
      gzipSync(text.slice(0, -1)),
      ...Array.from({ length: 80 }, () => spaces),
      gzipSync('}'),
    ]);
    const crowded = await call(server, 'POST', '/v1/traces', {
      rawBody: padded,
      headers: { ...json, 'content-encoding': 'gzip' },
    });
    t.equal(crowded.status, 503, 'over the budget, within the cap: retry later');
    t.ok(crowded.headers.get('retry-after'), 'with Retry-After');
    const broken = await call(server, 'POST', '/v1/traces', {
      rawBody: fits.subarray(0, fits.byteLength - 12),
      headers: { ...json, 'content-encoding': 'gzip' },
    });
    t.equal(broken.status, 400, 'a cut gzip stream is 400');
    const raw = await call(server, 'POST', '/v1/traces', {
      rawBody: deflateRawSync(JSON.stringify(exportRequest([{ traceId: hex(16) }]))),
      headers: { ...json, 'content-encoding': 'deflate' },
    });
    t.equal(raw.status, 200, `raw deflate is taken too: ${raw.text}`);
  });

  t.test('JSON nested ten thousand levels is a 400 in the error shape, not a 500', async (t) => {
    const deep = '['.repeat(10_000) + ']'.repeat(10_000);
    const deepObject = '{"a":'.repeat(10_000) + '1' + '}'.repeat(10_000);
    for (const path of ['/v1/scores', '/v1/prompts/anything/render', '/v1/evals/runs', '/v1/score-configs']) {
      for (const [what, inner] of [
        ['arrays', deep],
        ['objects', deepObject],
      ]) {
        const r = await call(server, 'POST', path, { rawBody: `{"name":"n","value":${inner}}`, headers: json });
        t.equal(r.status, 400, `${path}, ${what}: ${r.text.slice(0, 200)}`);
        t.equal(r.body?.error?.code, 'invalid_request_body', `${path}, ${what}`);
        t.match(r.body?.error?.details?.body, /nested more than 128 levels/, `${path}, ${what}`);
      }
    }
    for (const [what, inner] of [
      ['arrays', deep],
      ['objects', deepObject],
    ]) {
      const r = await call(server, 'POST', '/v1/agents/sync', {
        rawBody: `{"schemaVersion":1,"sessions":[${inner},{"id":"s","events":[{"type":"x","input":${inner}}]}]}`,
        headers: json,
      });
      // Agents' sessions are judged one by one (their own nesting rule: docs/decisions.md), never a 500.
      t.ok(r.status === 200 || r.status === 400, `agents sync, ${what}: ${r.status} ${r.text.slice(0, 200)}`);
    }
    // At the limit a body is judged as any other (here: a score whose value must be a number).
    const at = '['.repeat(127) + ']'.repeat(127);
    const judged = await call(server, 'POST', '/v1/scores', { rawBody: `{"value":${at}}`, headers: json });
    t.equal(judged.status, 400);
    t.notMatch(judged.text, /nested more than/, 'within the limit, validation answers');
  });

  t.test('lone surrogates are mended or refused, and metadata queries answer 200', async (t) => {
    const traceId = hex(16);
    const attributes: Record<string, string> = { 'tracelake.metadata.plain': 'fine' };
    LONE.forEach((half, i) => {
      attributes[`tracelake.metadata.k${i}${half}`] = `key ${i}`;
      attributes[`tracelake.metadata.v${i}`] = `value ${half} ${i}`;
      attributes[`other${half}`] = half;
    });
    const request = exportRequest([{ traceId, name: `span \ud800`, attributes }], `svc\udfff`);
    const resource = request.resourceSpans[0]!.resource.attributes;
    resource.push({ key: 'resource\ud800', value: { stringValue: 'r\udc00' } });
    // JSON.stringify writes each half as an escape (`\ud800`), as a broken exporter would.
    const sent = JSON.stringify(request);
    t.match(sent, /\\ud800/, 'the body holds the escape');
    const accepted = await call(server, 'POST', '/v1/traces', { rawBody: sent, headers: json });
    t.equal(accepted.status, 200, accepted.text);

    // protobuf: bytes that are not UTF-8 in a key and a value (a stray byte, an overlong form, an
    // encoded surrogate) are refused, as protobuf's strings must be UTF-8.
    const protoHeaders = { ...json, 'content-type': 'application/x-protobuf' };
    for (const [what, bytes] of [
      ['a stray byte', [0x6b, 0xff]],
      ['an overlong slash', [0xc0, 0xaf]],
      ['an encoded surrogate', [0xed, 0xa0, 0x80]],
    ] as const) {
      for (const where of ['key', 'value'] as const) {
        const marker = where === 'key' ? 'tracelake.metadata.KKKK' : 'VVVV';
        const plain = exportRequest([
          { traceId: hex(16), attributes: where === 'key' ? { [marker]: 'x' } : { 'tracelake.metadata.pv': marker } },
        ]);
        const body = Buffer.from(encodeExportRequest(forProtobuf(plain)));
        const at = body.indexOf(where === 'key' ? 'KKKK' : 'VVVV');
        // Same length, so the field's length prefix stays right: replace up to 4 bytes, pad with 'a'.
        const patch = Buffer.alloc(4, 0x61);
        Buffer.from(bytes).copy(patch);
        patch.copy(body, at);
        const r = await call(server, 'POST', '/v1/traces', { rawBody: body, headers: protoHeaders });
        t.equal(r.status, 400, `protobuf, ${what} in a ${where}: refused`);
      }
    }

    // An API body with the escape is refused naming the field (nothing stored).
    const score = await call(server, 'POST', '/v1/scores', {
      rawBody: `{"trace_id":"${traceId}","name":"q\\ud800","value":1,"data_type":"NUMERIC"}`,
      headers: json,
    });
    t.equal(score.status, 400, score.text);

    const readsOn = async (when: string) => {
      const filter = (f: string) => encodeURIComponent(f);
      for (const path of [
        `/v1/spans?filter=${filter('metadata.plain = fine')}`,
        `/v1/spans?filter=${filter('metadata.v0 exists')}`,
        `/v1/traces?filter=${filter('metadata.plain = fine')}`,
        `/v1/metrics?view=spans&measures=count&filter=${filter('metadata.plain = fine')}`,
        `/v1/metrics?view=traces&measures=count&filter=${filter('metadata.v1 contains value')}`,
      ]) {
        const r = await call(server, 'GET', path, { auth });
        t.equal(r.status, 200, `${when}: ${path} ${r.status === 200 ? '' : r.text}`);
      }
      const search = await call(server, 'POST', '/v1/spans/search', {
        auth,
        body: { filters: [{ field: 'metadata.plain', operator: 'equals', value: 'fine' }] },
      });
      t.equal(search.status, 200, `${when}: span search ${search.text}`);
      t.equal(search.body.pagination?.total, 1, `${when}: the span is found`);
      const span = search.body.data?.[0];
      t.equal(span?.name, 'span \ufffd', `${when}: the name holds U+FFFD`);
      t.equal(span?.metadata?.v0, 'value \ufffd 0', `${when}: a value holds U+FFFD`);
      t.equal(span?.metadata?.['k0\ufffd'], 'key 0', `${when}: a key holds U+FFFD`);
    };
    await readsOn('before a restart');
    await server.stop('SIGKILL');
    server = await start(dataDir);
    await readsOn('after a restart');
  });
});
