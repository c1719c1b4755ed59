/**
 * src/ingest/exportResponse.ts: the OTLP answer encoded by hand, read back by protobufjs with the
 * OTLP schema (test/helpers/otlpProto.ts) and checked byte by byte where the protobuf encoding is fixed.
 */
import t from 'tap';
import { encodeExportResponse } from '../../../src/ingest/exportResponse.js';
import { decodeExportResponse } from '../../helpers/otlpProto.js';

t.test('full success is the empty message', async (t) => {
  t.equal(encodeExportResponse(null).length, 0);
  t.same(decodeExportResponse(encodeExportResponse(null)), {});
});

t.test('a partial success, byte by byte', async (t) => {
  // partial_success (1, bytes) of 6: rejected_spans (1, varint) 3, error_message (2, bytes) "no".
  t.same(
    [...encodeExportResponse({ rejectedSpans: 3, errorMessage: 'no' })],
    [0x0a, 0x06, 0x08, 0x03, 0x12, 0x02, 0x6e, 0x6f],
  );
  // 300 is two varint bytes: 0xac 0x02.
  t.same(
    [...encodeExportResponse({ rejectedSpans: 300, errorMessage: '' })],
    [0x0a, 0x03, 0x08, 0xac, 0x02],
    'an empty message is left out',
  );
  t.same(
    [...encodeExportResponse({ rejectedSpans: 0, errorMessage: '' })],
    [0x0a, 0x00],
    'so is a zero count: the message is there, empty',
  );
});

t.test('what protobufjs reads back', async (t) => {
  const cases = [
    { rejectedSpans: 1, errorMessage: '3 spans over the per-trace bound' },
    { rejectedSpans: 127, errorMessage: 'x' },
    { rejectedSpans: 128, errorMessage: 'é — 日本 🙂' },
    { rejectedSpans: 2 ** 31, errorMessage: 'past 32 bits' },
    { rejectedSpans: Number.MAX_SAFE_INTEGER, errorMessage: 'the largest count' },
    { rejectedSpans: 5, errorMessage: 'long '.repeat(100) },
    { rejectedSpans: 9, errorMessage: 'longer '.repeat(5000) },
  ];
  for (const c of cases) {
    t.same(
      decodeExportResponse(encodeExportResponse(c)),
      { partialSuccess: { rejectedSpans: String(c.rejectedSpans), errorMessage: c.errorMessage } },
      `${c.rejectedSpans}, ${c.errorMessage.length} characters`,
    );
  }
  t.same(decodeExportResponse(encodeExportResponse({ rejectedSpans: 0, errorMessage: 'only a message' })), {
    partialSuccess: { errorMessage: 'only a message' },
  });
});

t.test('a count that is no count is refused, not encoded wrong', async (t) => {
  for (const n of [-1, 1.5, Number.NaN, 2 ** 53]) {
    t.throws(() => encodeExportResponse({ rejectedSpans: n, errorMessage: '' }), RangeError, String(n));
  }
});
