/**
 * test/helpers/otlpProto.ts: the OTLP trace schema for protobufjs — the reference decoder the
 * hand-written one is held to (test/ingest/protoDecode.test.ts), and the reader of the OTLP answer
 * (exportResponse.ts encodes it).
 */
import t from 'tap';
import { decodeExportRequest, decodeExportResponse, encodeExportRequest } from '../helpers/otlpProto.js';

t.test('requests round trip through the schema, field numbers as OTLP has them', async (t) => {
  const traceId = new Uint8Array(16).fill(0xab);
  const request = {
    resourceSpans: [
      {
        resource: { attributes: [{ key: 'service.name', value: { stringValue: 'svc' } }], droppedAttributesCount: 1 },
        schemaUrl: 'https://opentelemetry.io/schemas/1.26.0',
        scopeSpans: [
          {
            scope: {
              name: 'lib',
              version: '1.0',
              attributes: [{ key: 'k', value: { boolValue: true } }],
              droppedAttributesCount: 2,
            },
            schemaUrl: 's',
            spans: [
              {
                traceId,
                spanId: new Uint8Array(8).fill(1),
                parentSpanId: new Uint8Array(8).fill(2),
                traceState: 'a=b',
                flags: 257,
                name: 'op',
                kind: 3,
                startTimeUnixNano: '1700000000000000000',
                endTimeUnixNano: '18446744073709551615',
                attributes: [
                  { key: 'i', value: { intValue: '-9223372036854775808' } },
                  { key: 'd', value: { doubleValue: 1.5 } },
                  { key: 'b', value: { bytesValue: new Uint8Array([1, 2]) } },
                  { key: 'a', value: { arrayValue: { values: [{ stringValue: 'x' }] } } },
                  { key: 'kv', value: { kvlistValue: { values: [{ key: 'n', value: { intValue: '1' } }] } } },
                ],
                droppedAttributesCount: 3,
                events: [
                  { timeUnixNano: '5', name: 'e', attributes: [{ key: 'x', value: {} }], droppedAttributesCount: 4 },
                ],
                droppedEventsCount: 5,
                links: [
                  {
                    traceId,
                    spanId: new Uint8Array(8).fill(3),
                    traceState: 't',
                    attributes: [],
                    droppedAttributesCount: 6,
                    flags: 1,
                  },
                ],
                droppedLinksCount: 7,
                status: { code: 2, message: 'boom' },
              },
            ],
          },
        ],
      },
    ],
  };
  const bytes = encodeExportRequest(request);
  t.equal(bytes[0], 0x0a, 'resourceSpans: field 1, length-delimited');
  const decoded = decodeExportRequest(bytes);
  const span = decoded.resourceSpans?.[0]?.scopeSpans?.[0]?.spans?.[0];
  t.equal(span?.name, 'op');
  t.equal(span?.flags, 257);
  t.equal(span?.endTimeUnixNano, '18446744073709551615', '64-bit integers as decimal text');
  t.equal(span?.attributes?.[0]?.value?.intValue, '-9223372036854775808');
  t.same([...(span?.traceId ?? [])], [...traceId], 'bytes as bytes');
  t.same(span?.status, { code: 2, message: 'boom' });
  t.same(span?.links?.[0]?.attributes, undefined, 'empty repeated fields are absent (no defaults)');
  t.equal(decoded.resourceSpans?.[0]?.resource?.droppedAttributesCount, 1);
  t.equal(decoded.resourceSpans?.[0]?.scopeSpans?.[0]?.scope?.version, '1.0');
  t.same(decodeExportRequest(new Uint8Array(0)), {}, 'an empty request');
  t.throws(() => decodeExportRequest(Uint8Array.from([0x0a, 0x05, 0x00])), 'a length past the end');
});

t.test('answers read back', async (t) => {
  t.same(decodeExportResponse(new Uint8Array(0)), {}, 'full success: an empty message');
  // partial_success { rejected_spans: 3, error_message: "no" }
  t.same(decodeExportResponse(Uint8Array.from([0x0a, 0x06, 0x08, 0x03, 0x12, 0x02, 0x6e, 0x6f])), {
    partialSuccess: { rejectedSpans: '3', errorMessage: 'no' },
  });
});
