/**
 * src/ingest/logFormat.ts: the CRC-framed records of the ingest log —
 * magic "TLR1" | u32 length of the rest | u32 CRC-32 of the rest | u32 header length | header | body.
 * Damage costs only the records it touches, and is told from a torn tail. And the names of the log files.
 */
import { crc32 } from 'node:zlib';
import t from 'tap';
import { decodeLog, encodeRecord, logName, type LogHeader } from '../../../src/ingest/logFormat.js';

const header = (over: Partial<LogHeader> = {}): LogHeader => ({
  tenantId: '11111111-1111-4111-8111-111111111111',
  appId: '22222222-2222-4222-8222-222222222222',
  environmentId: '33333333-3333-4333-8333-333333333333',
  encoding: 'protobuf',
  contentEncoding: 'gzip',
  maxSpansPerTrace: 10_000,
  drop: [3, 7],
  receivedAtMs: 1_700_000_000_123,
  ...over,
});

const flip = (b: Buffer, at: number) => b.writeUInt8(b.readUInt8(at) ^ 1, at);
const record = (h: LogHeader, body: Uint8Array): Buffer => Buffer.concat(encodeRecord(h, body));

/** A record framed by hand, with any header bytes and a CRC that holds unless `crc` says otherwise. */
function frame(
  head: Buffer,
  body: Buffer,
  over: { magic?: number; rest?: number; headLength?: number; crc?: number } = {},
): Buffer {
  const prefix = Buffer.alloc(16);
  prefix.writeUInt32BE(over.magic ?? 0x544c5231, 0);
  prefix.writeUInt32BE(over.rest ?? 4 + head.length + body.length, 4);
  prefix.writeUInt32BE(over.headLength ?? head.length, 12);
  prefix.writeUInt32BE(over.crc ?? crc32(Buffer.concat([prefix.subarray(12, 16), head, body])), 8);
  return Buffer.concat([prefix, head, body]);
}

t.test('the layout of a record', async (t) => {
  const h = header();
  const body = new Uint8Array([1, 2, 3, 4, 5]);
  const parts = encodeRecord(h, body);
  t.equal(parts.length, 3, 'prefix, header, body: written in order');
  const [prefix, head, bodyPart] = parts as [Buffer, Buffer, Buffer];
  t.equal(prefix.length, 16);
  t.equal(prefix.toString('latin1', 0, 4), 'TLR1', 'magic');
  t.same(JSON.parse(head.toString('utf8')), h, 'the header as JSON');
  t.equal(prefix.readUInt32BE(4), 4 + head.length + body.length, 'the length of what follows the length and CRC');
  t.equal(prefix.readUInt32BE(12), head.length, 'the header length');
  t.equal(
    prefix.readUInt32BE(8),
    crc32(Buffer.concat([prefix.subarray(12), head, bodyPart])),
    'CRC-32 of header length, header and body',
  );
  t.equal(bodyPart.buffer, body.buffer, 'the body is not copied');
  t.same([...bodyPart], [1, 2, 3, 4, 5]);
});

t.test('round trips', async (t) => {
  const records = [
    { header: header(), body: new Uint8Array([0, 255, 10, 13]) },
    {
      header: header({ encoding: 'json', contentEncoding: null, drop: [], tenantId: 'ü-tenant' }),
      body: Buffer.from('{"resourceSpans":[]}'),
    },
    { header: header({ drop: [] }), body: new Uint8Array(0) },
  ];
  const log = Buffer.concat(records.map((r) => record(r.header, r.body)));
  const decoded = decodeLog(log);
  t.equal(decoded.discardedBytes, 0);
  t.equal(decoded.records.length, 3);
  decoded.records.forEach((r, i) => {
    t.same(r.header, records[i]!.header, `header ${i}`);
    t.same([...r.body], [...records[i]!.body], `body ${i}`);
  });
  t.same(decodeLog(new Uint8Array(0)), { records: [], discardedBytes: 0, damage: null }, 'an empty log');

  // A view into a larger buffer (bytes read from a file into a pool) decodes the same.
  const padded = Buffer.concat([Buffer.alloc(7, 0xaa), log, Buffer.alloc(5, 0xbb)]);
  const view = new Uint8Array(padded.buffer, padded.byteOffset + 7, log.length);
  const fromView = decodeLog(view);
  t.equal(fromView.records.length, 3);
  t.equal(fromView.discardedBytes, 0);
  t.same([...fromView.records[0]!.body], [0, 255, 10, 13]);
});

t.test('a torn tail: every cut keeps the whole records before it and discards the rest', async (t) => {
  const a = record(header(), Buffer.from('first body'));
  const b = record(header({ drop: [1] }), Buffer.from('second body, a little longer'));
  const log = Buffer.concat([a, b]);
  for (let cut = 0; cut <= log.length; cut++) {
    const d = decodeLog(log.subarray(0, cut));
    const whole = cut === log.length ? 2 : cut >= a.length ? 1 : 0;
    const kept = whole === 2 ? log.length : whole === 1 ? a.length : 0;
    if (d.records.length !== whole || d.discardedBytes !== cut - kept) {
      t.fail(`cut at ${cut}: ${d.records.length} records, ${d.discardedBytes} discarded`);
      return;
    }
  }
  t.pass(`all ${log.length + 1} cuts`);
});

t.test('damage costs only the records it touches: reading resumes at the next record that holds', async (t) => {
  const good = record(header(), Buffer.from('good'));
  const body = Buffer.from('body');
  const head = Buffer.from(JSON.stringify(header()));
  const around = (damaged: Buffer) => decodeLog(Buffer.concat([good, damaged, good]));
  const expectSkipped = (damaged: Buffer, why: string) => {
    const d = around(damaged);
    t.equal(d.records.length, 2, `${why}: the records before and after are read`);
    t.same(d.damage, { regions: [{ offset: good.length, bytes: damaged.length }], lostRecords: 1 }, `${why}: one lost`);
    t.equal(d.discardedBytes, 0, `${why}: not a torn tail`);
  };
  t.equal(around(frame(head, body)).records.length, 3, 'a record framed by hand reads (the helper is right)');
  t.equal(around(frame(head, body)).damage, null, 'and is no damage');
  expectSkipped(frame(head, body, { magic: 0x544c5232 }), 'another magic');
  expectSkipped(frame(head, body, { rest: 3 }), 'a length too short for the header length');
  expectSkipped(frame(head, body, { rest: 0xffffffff }), 'a length past the end');
  expectSkipped(frame(head, body, { headLength: head.length + body.length + 1 }), 'a header longer than the record');
  expectSkipped(frame(head, body, { crc: 12345 }), 'a wrong CRC');
  const flipped = record(header(), Buffer.from('body'));
  flip(flipped, flipped.length - 1);
  expectSkipped(flipped, 'a body byte flipped');
  const headFlipped = record(header(), Buffer.from('body'));
  flip(headFlipped, 20);
  expectSkipped(headFlipped, 'a header byte flipped');
  expectSkipped(frame(Buffer.from('{"tenantId":'), body), 'a header that is not JSON, under a CRC that holds');
  t.same(
    decodeLog(Buffer.concat([good, Buffer.alloc(15)])),
    { records: [decodeLog(good).records[0]], discardedBytes: 15, damage: null },
    'less than a prefix after the last record: a torn tail',
  );
  t.same(
    decodeLog(Buffer.concat([good, Buffer.alloc(64)])).discardedBytes,
    64,
    'zeros (a preallocated tail) are not a record, nor damage',
  );
});

t.test('damage at the head, in the middle and at the end, counted by the places records carry', async (t) => {
  const placed = (place: number) => record(header({ place }), Buffer.from(`body ${place}`));
  const records = [0, 1, 2, 3, 4, 5].map(placed);
  const log = Buffer.concat(records);
  const offsetOf = (i: number) => records.slice(0, i).reduce((n, r) => n + r.length, 0);

  const head = Buffer.from(log);
  head.fill(0xab, 0, 16);
  const fromHead = decodeLog(head);
  t.same(
    fromHead.records.map((r) => r.header.place),
    [1, 2, 3, 4, 5],
    '16 bytes overwritten at the head: the rest is read',
  );
  t.same(fromHead.damage, { regions: [{ offset: 0, bytes: records[0]!.length }], lostRecords: 1 });

  const middle = Buffer.from(log);
  middle.fill(0, offsetOf(2) + 3, offsetOf(4) + 5); // across two records, both magics gone
  const fromMiddle = decodeLog(middle);
  t.same(
    fromMiddle.records.map((r) => r.header.place),
    [0, 1, 5],
  );
  t.equal(fromMiddle.damage?.lostRecords, 3, 'three lost, though no magic of theirs survived');

  const end = Buffer.from(log);
  flip(end, end.length - 2);
  const fromEnd = decodeLog(end);
  t.equal(fromEnd.records.length, 5);
  t.same(
    fromEnd.damage,
    { regions: [{ offset: offsetOf(5), bytes: records[5]!.length }], lostRecords: 1 },
    'a whole last record that only its checksum fails is damage, not a torn write',
  );
  t.equal(fromEnd.discardedBytes, 0);

  const torn = decodeLog(log.subarray(0, log.length - 3));
  t.equal(torn.damage, null, 'a last record cut short is a torn tail');
  t.equal(torn.discardedBytes, records[5]!.length - 3);

  const twice = Buffer.from(log);
  flip(twice, offsetOf(1) + 20);
  flip(twice, offsetOf(3) + 20);
  t.same(decodeLog(twice).damage?.regions.length, 2, 'two damaged regions, each reported');
  t.equal(decodeLog(twice).damage?.lostRecords, 2);
});

t.test(
  'records of the older version (no places) count one lost record per damaged region, or per magic in it',
  async (t) => {
    const plain = [1, 2, 3, 4].map((n) => record(header(), Buffer.from(`body ${n}`)));
    const log = Buffer.concat(plain);
    const two = Buffer.from(log);
    flip(two, plain[0]!.length + 20);
    flip(two, plain[0]!.length + plain[1]!.length + 20);
    const d = decodeLog(two);
    t.equal(d.records.length, 2);
    t.same(d.damage?.lostRecords, 2, 'both magics survived: two records lost');
    const head = Buffer.from(log);
    head.fill(0, 0, 16);
    t.same(decodeLog(head).damage?.lostRecords, 1, 'no magic left: at least one');
    const mixed = Buffer.concat([record(header({ place: 0 }), Buffer.from('a')), plain[1]!]);
    flip(mixed, mixed.length - 1);
    t.same(
      decodeLog(Buffer.concat([mixed, record(header(), Buffer.from('b'))])).damage?.lostRecords,
      1,
      'a place on one side only',
    );
  },
);

t.test('a header taking all of the record: an empty body', async (t) => {
  const head = Buffer.from(JSON.stringify(header()));
  const d = decodeLog(frame(head, Buffer.alloc(0)));
  t.equal(d.records.length, 1);
  t.equal(d.records[0]!.body.length, 0);
  t.same(d.records[0]!.header, header());
});

t.test('log files are named by worker and generation, in generation order', async (t) => {
  t.equal(logName('w-1', 7), 'w-1-00000007.log');
  const names = [10, 9, 100, 2].map((seq) => logName('w-1', seq));
  t.same(
    [...names].sort(),
    [2, 9, 10, 100].map((seq) => logName('w-1', seq)),
    'names sort as their generations do',
  );
});
