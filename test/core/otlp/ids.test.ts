import t from 'tap';
import {
  bytesToHex,
  eventSpanId,
  fnv1a64,
  IdReader,
  idToHex,
  isAbsentId,
  isValidId,
  SPAN_ID_BYTES,
  TRACE_ID_BYTES,
} from '../../../src/core/otlp/ids.js';
import { hexBytes, SPAN_ID, TRACE_ID } from './wire-builders.js';

t.test('idToHex normalises hex text and bytes alike', async (t) => {
  t.equal(idToHex(TRACE_ID.toUpperCase()), TRACE_ID);
  t.equal(idToHex(hexBytes(TRACE_ID)), TRACE_ID);
  t.equal(idToHex(Buffer.from(SPAN_ID, 'hex')), SPAN_ID, 'a Node Buffer is bytes too');
  t.equal(idToHex(undefined), '');
  t.equal(idToHex(null), '');
  t.equal(idToHex(''), '');
  t.equal(idToHex(new Uint8Array(0)), '', 'protobuf default for an unset parent');
  t.equal(idToHex('W4/v95gDgQPSabYzgT/GDA=='), undefined, 'base64 is not OTLP/JSON');
  t.equal(idToHex(12), undefined);
  t.equal(idToHex([1, 2]), undefined);
});

t.test('bytesToHex pads every byte to two digits', async (t) => {
  t.equal(bytesToHex(Uint8Array.from([0, 15, 16, 255])), '000f10ff');
});

t.test('isValidId wants the exact length and not all zeros', async (t) => {
  t.ok(isValidId(TRACE_ID, TRACE_ID_BYTES));
  t.ok(isValidId(SPAN_ID, SPAN_ID_BYTES));
  t.notOk(isValidId(SPAN_ID, TRACE_ID_BYTES));
  t.notOk(isValidId(TRACE_ID.slice(1), TRACE_ID_BYTES));
  t.notOk(isValidId('0'.repeat(32), TRACE_ID_BYTES));
  t.notOk(isValidId('0'.repeat(16), SPAN_ID_BYTES));
});

t.test('isAbsentId: empty or all zeros', async (t) => {
  t.ok(isAbsentId(''));
  t.ok(isAbsentId('0000000000000000'));
  t.notOk(isAbsentId(SPAN_ID));
});

t.test('fnv1a64 matches the published test vectors', async (t) => {
  const text = (s: string) => new TextEncoder().encode(s);
  t.equal(fnv1a64(text('')), 0xcbf29ce484222325n);
  t.equal(fnv1a64(text('a')), 0xaf63dc4c8601ec8cn);
  t.equal(fnv1a64(text('foobar')), 0x85944171f73967e8n);
});

t.test('eventSpanId is a stable, valid, per-index span id', async (t) => {
  const id = eventSpanId(SPAN_ID, 0);
  t.match(id, /^[0-9a-f]{16}$/);
  t.ok(isValidId(id, SPAN_ID_BYTES));
  // Pinned: changing the derivation would duplicate events when an exporter re-sends after an upgrade.
  t.equal(id, 'ffae2bb944b3fa2d');
  const bytes = Uint8Array.from([...hexBytes(SPAN_ID), 0, 0, 1, 2]);
  t.equal(
    eventSpanId(SPAN_ID, 258),
    (fnv1a64(bytes) | 1n).toString(16).padStart(16, '0'),
    'index as 4 big-endian bytes',
  );
  t.equal(eventSpanId(SPAN_ID, 0), id, 'deterministic');
  t.not(eventSpanId(SPAN_ID, 1), id);
  t.not(eventSpanId('eee19b7ec3c1b175', 0), id);
  const ids = new Set(Array.from({ length: 1000 }, (_, i) => eventSpanId(SPAN_ID, i)));
  t.equal(ids.size, 1000);
  t.ok(
    [...ids].every((e) => parseInt(e.slice(-1), 16) % 2 === 1),
    'low bit set, so never all zeros',
  );
  t.equal(eventSpanId(SPAN_ID, 8192), '001aebb945105f4d', 'a small hash keeps its leading zeros');
});

t.test('bytesToHex reads the view, not its whole buffer, at any length', async (t) => {
  const whole = hexBytes('ff' + SPAN_ID + 'ff');
  t.equal(bytesToHex(whole.subarray(1, 9)), SPAN_ID);
  t.equal(bytesToHex(new Uint8Array(0)), '');
  const long = Uint8Array.from({ length: 40 }, (_, i) => i * 6);
  t.equal(bytesToHex(long), Buffer.from(long).toString('hex'), 'past the 32 bytes converted in one call');
  const every = Uint8Array.from({ length: 256 }, (_, i) => i);
  t.equal(bytesToHex(every), Buffer.from(every).toString('hex'), 'every byte value');
  t.equal(bytesToHex(every.subarray(200, 232)), Buffer.from(every.subarray(200, 232)).toString('hex'), '32 bytes');
});

t.test('idToHex validates hex text without regular expressions', async (t) => {
  t.equal(idToHex('0123456789abcdefABCDEF'), '0123456789abcdefabcdef');
  const lower = 'abcdef0123456789';
  t.equal(idToHex(lower), lower);
  for (const text of ['g', 'abc-', ' abc', 'abc ', 'ａｂ', 'ABCG', '@', '`', '/', ':', 'G'])
    t.equal(idToHex(text), undefined, text);
});

t.test('IdReader: a repeated id costs no new string', async (t) => {
  const reader = new IdReader();
  const first = reader.read(hexBytes(TRACE_ID));
  t.equal(first, TRACE_ID);
  const again = reader.read(Buffer.from(TRACE_ID, 'hex'));
  t.equal(again, TRACE_ID, 'same bytes from another buffer');
  t.equal(reader.read(hexBytes(SPAN_ID)), SPAN_ID, 'other bytes');
  const differentLast = hexBytes(SPAN_ID);
  differentLast[7] = differentLast[7]! ^ 1;
  t.equal(reader.read(differentLast), bytesToHex(differentLast), 'same length, one byte differs');
  t.equal(reader.read(new Uint8Array(0)), '', 'empty bytes');
  t.equal(reader.read(TRACE_ID.toUpperCase()), TRACE_ID, 'hex text is read as idToHex reads it');
  t.equal(reader.read(undefined), '');
  t.equal(reader.read('nope'), undefined);
  t.equal(reader.read(7), undefined);
  t.equal(reader.read(new Uint8Array(0)), '', 'text in between does not disturb what bytes were last read');
});
