/** src/ingest/decode.ts: an OTLP/HTTP export body → the decoded request (media type, decompression, format). */
import { deflateRawSync, deflateSync, gzipSync } from 'node:zlib';
import t from 'tap';
import {
  checkProtobufRequest,
  decodeRequest,
  decompress as decompressSync,
  decompressAsync,
  decompressHeld,
  encodingOf,
} from '../../../src/ingest/decode.js';
import { encodeExportRequest } from '../../helpers/otlpProto.js';

const REQUEST = {
  resourceSpans: [
    {
      scopeSpans: [{ spans: [{ name: 'op', traceId: new Uint8Array(16).fill(1), spanId: new Uint8Array(8).fill(2) }] }],
    },
  ],
};

t.test('encodingOf: the Content-Type', async (t) => {
  t.equal(encodingOf('application/x-protobuf'), 'protobuf');
  t.equal(encodingOf('application/protobuf'), 'protobuf');
  t.equal(encodingOf(' Application/JSON ; charset=utf-8'), 'json', 'parameters, case and spaces');
  t.throws(() => encodingOf('text/plain'), {
    code: 'unsupported_media_type',
    status: 415,
    message: /not "text\/plain"/,
  });
  t.throws(() => encodingOf(undefined), { code: 'unsupported_media_type', message: /not "nothing"/ });
  t.throws(() => encodingOf(''), { message: /not "nothing"/ });
});

t.test('decompress, and decompressAsync (the same answers)', async (t) => {
  const body = Buffer.from('x'.repeat(1000));
  // Each case through both: the sync one's result or refusal, and the async one's alike.
  const decompress = (b: Uint8Array, encoding: string | undefined, max: number): Uint8Array => {
    let out: Uint8Array | undefined;
    let error: unknown;
    try {
      out = decompressSync(b, encoding, max);
    } catch (e) {
      error = e;
    }
    asyncResults.push(
      decompressAsync(b, encoding, max).then(
        (a) => t.same(Buffer.from(a), Buffer.from(out ?? []), `async: ${String(encoding)} the same bytes`),
        (e: unknown) => t.same(e, error, `async: ${String(encoding)} the same refusal`),
      ),
    );
    if (error) throw error;
    return out!;
  };
  const asyncResults: Promise<unknown>[] = [];
  const same = (out: Uint8Array, why: string) => t.equal(Buffer.from(out).toString(), body.toString(), why);
  t.equal(decompress(body, undefined, 10), body, 'no Content-Encoding: the body itself, unchecked');
  t.equal(decompress(body, ' Identity ', 10), body);
  t.equal(decompress(body, '', 10), body);
  same(decompress(gzipSync(body), 'gzip', 1000), 'gzip');
  same(decompress(gzipSync(body), ' X-GZIP', 1000), 'x-gzip');
  same(decompress(deflateSync(body), 'deflate', 1000), 'deflate (zlib-wrapped, as HTTP says)');
  same(decompress(deflateRawSync(body), 'deflate', 1000), 'raw deflate, as some clients send it');
  t.throws(() => decompress(gzipSync(body), 'gzip', 999), {
    code: 'payload_too_large',
    status: 413,
    fields: { limit: 999 },
  });
  t.throws(
    () => decompress(deflateSync(body), 'deflate', 999),
    { code: 'payload_too_large', message: 'Decompressed body exceeds 999 bytes' },
    'zlib-wrapped over the limit: not retried raw',
  );
  t.throws(() => decompress(deflateRawSync(body), 'deflate', 999), { code: 'payload_too_large' }, 'raw over the limit');
  t.throws(() => decompress(body, 'gzip', 10_000), {
    code: 'invalid_request_body',
    status: 400,
    message: 'Invalid request body',
    fields: { details: { body: /^not valid gzip: / } },
  });
  t.throws(() => decompress(Buffer.from([0xff, 0xff, 0xff]), 'deflate', 10_000), {
    code: 'invalid_request_body',
    fields: { details: { body: /^not valid deflate: / } },
  });
  t.throws(() => decompress(body, 'br', 10_000), {
    code: 'unsupported_media_type',
    message: 'Unsupported Content-Encoding "br" (gzip, deflate or identity)',
  });
  t.equal(await decompressAsync(body, undefined, 10), body, 'async, no Content-Encoding: the body itself');
  await Promise.all(asyncResults);
});

t.test('decompressHeld: the same answers, each chunk held as it is produced', async (t) => {
  const body = Buffer.from('x'.repeat(200_000));
  const joined = (r: { chunks: Uint8Array[]; size: number }) => Buffer.concat(r.chunks, r.size).toString();
  const holding = () => {
    const held: number[] = [];
    const hold = (bytes: number) => {
      held.push(bytes);
      return true;
    };
    return { held, hold };
  };
  const identity = await decompressHeld(body, ' identity', 10, () => false);
  t.same([identity.chunks[0] === body, identity.size], [true, body.byteLength], 'identity: the body, unheld');
  t.equal((await decompressHeld(body, undefined, 10, () => false)).chunks[0], body);
  t.equal((await decompressHeld(body, '', 10, () => false)).chunks[0], body);
  for (const [encoding, packed] of [
    ['gzip', gzipSync(body)],
    ['X-Gzip', gzipSync(body)],
    ['deflate', deflateSync(body)],
    ['deflate', deflateRawSync(body)],
  ] as const) {
    const { held, hold } = holding();
    const out = await decompressHeld(packed, encoding, body.byteLength, hold);
    t.equal(joined(out), body.toString(), `${encoding}: the bytes`);
    t.ok(held.length > 1, `${encoding}: held in ${held.length} chunks`);
    t.equal(
      held.reduce((a, b) => a + b, 0),
      body.byteLength,
      `${encoding}: every byte held`,
    );
  }
  await t.rejects(
    decompressHeld(gzipSync(body), 'gzip', 199_999, () => true),
    {
      code: 'payload_too_large',
      status: 413,
      message: 'Decompressed body exceeds 199999 bytes',
      fields: { limit: 199_999 },
    },
  );
  let offered = 0;
  await t.rejects(
    decompressHeld(gzipSync(body), 'gzip', body.byteLength, (bytes) => (offered += bytes) < 100_000),
    { code: 'overloaded', status: 503 },
    'more than the budget holds, within the cap: retry later',
  );
  t.equal(offered < body.byteLength, true, 'nothing is offered once a chunk was refused');
  await t.rejects(
    decompressHeld(gzipSync(Buffer.alloc(10_000_000)), 'gzip', 5_000_000, () => false),
    { code: 'payload_too_large' },
    'over the cap is 413 even once the budget refused: a bomb is never retried',
  );
  await t.rejects(
    decompressHeld(body, 'gzip', 10_000, () => true),
    {
      code: 'invalid_request_body',
      fields: { details: { body: /^not valid gzip: / } },
    },
  );
  await t.rejects(
    decompressHeld(Buffer.alloc(0), 'deflate', 10_000, () => true),
    {
      code: 'invalid_request_body',
      fields: { details: { body: /^not valid deflate: / } },
    },
  );
  await t.rejects(
    decompressHeld(body, 'br', 10_000, () => true),
    {
      code: 'unsupported_media_type',
      message: 'Unsupported Content-Encoding "br" (gzip, deflate or identity)',
    },
  );
});

t.test('decodeRequest: protobuf', async (t) => {
  const bytes = encodeExportRequest(REQUEST);
  const decoded = decodeRequest(bytes, 'protobuf');
  t.equal(decoded.resourceSpans?.[0]?.scopeSpans?.[0]?.spans?.[0]?.name, 'op');
  t.throws(() => decodeRequest(Uint8Array.from([0x0a, 0x05, 0x00]), 'protobuf'), {
    code: 'invalid_request_body',
    message: 'Invalid request body',
    fields: {
      details: { body: /^not a valid OTLP protobuf ExportTraceServiceRequest: length 5 at offset 1 runs past/ },
    },
  });
});

t.test('checkProtobufRequest: the skeleton, or the 400 decodeRequest gives', async (t) => {
  const bytes = encodeExportRequest(REQUEST);
  const span = checkProtobufRequest(bytes).resourceSpans?.[0]?.scopeSpans?.[0]?.spans?.[0];
  t.same([...(span!.spanId as Uint8Array)], new Array(8).fill(2), 'ids');
  t.notOk(span && 'name' in span, 'nothing else');
  const bad = Uint8Array.from([0x0a, 0x05, 0x00]);
  t.throws(() => checkProtobufRequest(bad), {
    code: 'invalid_request_body',
    message: 'Invalid request body',
    fields: {
      details: { body: /^not a valid OTLP protobuf ExportTraceServiceRequest: length 5 at offset 1 runs past/ },
    },
  });
});

t.test('decodeRequest: JSON', async (t) => {
  const json = (v: unknown) => Buffer.from(JSON.stringify(v));
  const ok = { resourceSpans: [{ resource: {}, scopeSpans: [{ scope: {}, spans: [{ name: 'op' }] }, {}] }, {}] };
  t.same(decodeRequest(json(ok), 'json'), ok);
  const halves = {
    resourceSpans: [{ scopeSpans: [{ spans: [{ name: 'a\ud800', attributes: [{ key: 'k\udc00' }] }] }] }],
  };
  t.same(
    decodeRequest(json(halves), 'json'),
    { resourceSpans: [{ scopeSpans: [{ spans: [{ name: 'a\ufffd', attributes: [{ key: 'k\ufffd' }] }] }] }] },
    'half a surrogate pair, escaped, becomes U+FFFD',
  );
  t.same(decodeRequest(json({}), 'json'), { resourceSpans: [] }, 'nothing to store');
  t.same(
    decodeRequest(json({ resource_spans: [{ scopeSpans: [] }] }), 'json'),
    { resourceSpans: [{ scopeSpans: [] }] },
    'the snake_case field',
  );
  const padded = Buffer.from(`xx${JSON.stringify(ok)}yy`);
  t.same(decodeRequest(padded.subarray(2, padded.length - 2), 'json'), ok, 'a view into a larger buffer');
  const refused = (v: unknown, why: RegExp) =>
    t.throws(
      () => decodeRequest(typeof v === 'string' ? Buffer.from(v) : json(v), 'json'),
      { code: 'invalid_request_body', message: 'Invalid request body', fields: { details: { body: why } } },
      why.source,
    );
  refused('{"resourceSpans": [', /^not valid JSON: /);
  refused([], /ExportTraceServiceRequest: expected an object$/);
  refused(null, /expected an object$/);
  refused('"text"', /expected an object$/);
  refused({ resourceSpans: [], extra: 1 }, /unexpected field "extra"$/);
  refused({ resourceSpans: {} }, /resourceSpans must be an array$/);
  refused({ resourceSpans: [[]] }, /resourceSpans\[0\] must be an object$/);
  refused({ resourceSpans: [{}, { scopeSpans: {} }] }, /resourceSpans\[1\]\.scopeSpans must be an array$/);
  refused({ resourceSpans: [{ scopeSpans: [{}, null] }] }, /resourceSpans\[0\]\.scopeSpans\[1\] must be an object$/);
  refused(
    { resourceSpans: [{ scopeSpans: [{ spans: 'x' }] }] },
    /resourceSpans\[0\]\.scopeSpans\[0\]\.spans must be an array$/,
  );
});
