/**
 * src/ingest/protoReader.ts: the protobuf wire reading under the OTLP decoder — a bounded cursor,
 * varints, fixed widths, strict UTF-8 (with a cache of attribute keys), copied bytes, 64-bit integers
 * as decimal text, skipping unknown fields. Every read is bounded by `end`.
 */
import fc from 'fast-check';
import t from 'tap';
import {
  FIXED32,
  FIXED64,
  int64ToDecimal,
  LEN,
  Reader,
  readBool,
  readBytes,
  readDouble,
  readEnd,
  readFixed32,
  readFixed64,
  readFixed64Big,
  readInt64,
  readKey,
  readString,
  readTag,
  readUint32,
  skipField,
  skipFixed64,
  skipString,
  skipVarint64,
  truncated,
  uint64ToDecimal,
  VARINT,
  viewBytes,
} from '../../../src/ingest/protoReader.js';
import { f64, le32, le64, varint } from '../../helpers/wire.js';

/** A reader over `bytes` (a plain Uint8Array view into a larger buffer unless `asBuffer`). */
function reader(bytes: readonly number[], asBuffer = false): Reader {
  if (asBuffer) return new Reader(Buffer.from(bytes));
  const backing = new Uint8Array(bytes.length + 6).fill(0xee);
  backing.set(bytes, 3);
  return new Reader(backing.subarray(3, 3 + bytes.length));
}

/** Runs `read` over `bytes` to their end: the value and where the cursor stopped. */
function read<T>(
  fn: (r: Reader, end: number) => T,
  bytes: readonly number[],
  end = bytes.length,
): { value: T; pos: number } {
  const r = reader(bytes);
  const value = fn(r, end);
  return { value, pos: r.pos };
}

const TRUNCATED = /^truncated message at offset \d+$/;

t.test('the reader works on Buffers and on views into other memory', async (t) => {
  const r = reader([1, 2, 3]);
  t.notOk(Buffer.isBuffer(r.buf.buffer), 'sanity');
  t.same([...r.buf], [1, 2, 3]);
  t.equal(r.view.getUint8(0), 1, 'the view starts where the bytes do');
  const b = Buffer.from([4, 5]);
  t.equal(new Reader(b).buf, b, 'a Buffer is used as it is');
  t.equal(truncated(r).message, 'truncated message at offset 0');
  t.same([VARINT, FIXED64, LEN, FIXED32], [0, 1, 2, 5], 'the wire types');
});

t.test('tags', async (t) => {
  t.same(read(readTag, [0x08]), { value: 8, pos: 1 }, 'one byte');
  t.same(read(readTag, [0x82, 0x01]), { value: 130, pos: 2 }, 'two bytes');
  t.same(
    read(readTag, varint(2 ** 29 * 8 - 1)),
    { value: 2 ** 32 - 1, pos: 5 },
    'the largest field number, wire type 7',
  );
  t.same(read(readTag, [0x80, 0x80, 0x01]), { value: 1 << 14, pos: 3 }, 'three bytes');
  t.same(read(readTag, [0x88, 0x00]), { value: 8, pos: 2 }, 'a padded two-byte tag');
  t.throws(() => read(readTag, []), TRUNCATED, 'nothing left');
  t.throws(() => read(readTag, [0x80]), TRUNCATED, 'a continuation byte at the end');
  t.throws(() => read(readTag, [0x80, 0x80], 1), TRUNCATED, 'the end of the message before the end of the bytes');
  t.throws(
    () => read(readTag, [0xff, 0xff, 0xff, 0xff, 0x7f]),
    { message: 'invalid tag encoding at offset 0' },
    'over 32 bits',
  );
  t.throws(
    () => read(readTag, [0x80, 0x80, 0x80, 0x80, 0x80, 0x00]),
    { message: 'invalid tag encoding at offset 0' },
    'over 5 bytes, even when it fits 32 bits',
  );
});

t.test('varints as uint32, int64 and bool', async (t) => {
  t.same(read(readUint32, [0x05]), { value: 5, pos: 1 });
  t.same(read(readUint32, varint(300)), { value: 300, pos: 2 });
  t.same(read(readUint32, varint(2 ** 32 - 1)), { value: 2 ** 32 - 1, pos: 5 });
  t.same(read(readUint32, varint(2n ** 32n + 7n)), { value: 7, pos: 5 }, 'the low 32 bits of a wider varint');
  t.same(
    read(readUint32, varint(-2n)),
    { value: 2 ** 32 - 2, pos: 10 },
    'a negative int32 is 10 bytes; | 0 makes it -2',
  );
  t.same(read(readUint32, varint(0, 10)), { value: 0, pos: 10 }, 'padded to 10 bytes');
  t.throws(() => read(readUint32, []), TRUNCATED);
  t.throws(() => read(readUint32, [0x80, 0x80]), TRUNCATED, 'cut in the first four bytes');
  t.throws(() => read(readUint32, [0x80, 0x80, 0x80, 0x80]), TRUNCATED, 'cut before the fifth byte');
  t.throws(() => read(readUint32, [0x80, 0x80, 0x80, 0x80, 0x80, 0x80]), TRUNCATED, 'cut in the high bytes');
  t.throws(
    () => read(readUint32, [...varint(0, 10).map((b) => b | 0x80), 0x00]),
    { message: 'invalid varint encoding at offset 0' },
    'over 10 bytes',
  );

  for (const v of [
    0n,
    1n,
    -1n,
    127n,
    128n,
    2n ** 31n,
    -(2n ** 31n),
    2n ** 32n,
    2n ** 53n + 1n,
    2n ** 63n - 1n,
    -(2n ** 63n),
  ]) {
    t.same(read(readInt64, varint(v)), { value: v.toString(), pos: varint(v).length }, `int64 ${v}`);
  }
  t.same(read(readInt64, varint(5, 10)), { value: '5', pos: 10 }, 'a padded int64');

  t.same(read(readBool, [0x00]), { value: false, pos: 1 });
  t.same(read(readBool, [0x01]), { value: true, pos: 1 });
  t.same(read(readBool, [0x80, 0x00]), { value: false, pos: 2 }, 'a padded false');
  t.same(read(readBool, [0x80, 0x80, 0x02]), { value: true, pos: 3 }, 'any bit set is true');
  t.same(read(readBool, [...new Array(9).fill(0x80), 0x01]), { value: true, pos: 10 }, 'the tenth byte counts');
  t.throws(() => read(readBool, [0x80]), TRUNCATED);
  t.throws(
    () => read(readBool, new Array(10).fill(0x80)),
    { message: 'invalid varint encoding at offset 0' },
    'over 10 bytes',
  );
});

t.test('fixed widths', async (t) => {
  t.same(read(readFixed32, le32(0xdeadbeef)), { value: 0xdeadbeef, pos: 4 });
  t.same(read(readFixed64, le64(2n ** 64n - 1n)), { value: '18446744073709551615', pos: 8 });
  t.same(read(readFixed64, le64(1_700_000_000_123_456_789n)), { value: '1700000000123456789', pos: 8 });
  t.same(read(readDouble, f64(-1.25)), { value: -1.25, pos: 8 });
  t.ok(Number.isNaN(read(readDouble, f64(Number.NaN)).value));
  t.throws(() => read(readFixed32, [1, 2, 3]), TRUNCATED);
  t.throws(() => read(readFixed32, le32(1), 3), TRUNCATED, 'bounded by the end, not the bytes');
  t.throws(() => read(readFixed64, [1, 2, 3, 4, 5, 6, 7]), TRUNCATED);
  t.throws(() => read(readDouble, [1, 2, 3, 4, 5, 6, 7]), TRUNCATED);
});

t.test('lengths', async (t) => {
  t.same(read(readEnd, [3, 0, 0, 0]), { value: 4, pos: 1 }, 'the end of the bytes it announces');
  t.same(read(readEnd, [0]), { value: 1, pos: 1 }, 'zero');
  t.same(read(readEnd, [0x81, 0x00, ...new Array(1).fill(0)]), { value: 3, pos: 2 }, 'padded');
  const r = reader([0xff, 0xff, 0xff, 0xff, 0x07]);
  t.throws(
    () => readEnd(r, 5),
    { message: 'length 2147483647 at offset 0 runs past the end of its message' },
    'the largest length: 2^31 - 1',
  );
  t.throws(
    () => read(readEnd, [0x80, 0x80, 0x80, 0x80, 0x08]),
    { message: 'invalid length encoding at offset 0' },
    '2^31 and over',
  );
  t.throws(
    () => read(readEnd, [0x80, 0x80, 0x80, 0x80, 0x80, 0x00]),
    { message: 'invalid length encoding at offset 0' },
    'a fifth byte that continues',
  );
  t.throws(() => read(readEnd, [5, 0, 0]), { message: 'length 5 at offset 0 runs past the end of its message' });
  t.throws(
    () => read(readEnd, [2, 0, 0], 2),
    /runs past the end/,
    'the end of the enclosing message, not of the bytes',
  );
  t.throws(() => read(readEnd, []), TRUNCATED);
  t.throws(() => read(readEnd, [0x80]), TRUNCATED);
});

t.test('strings: strictly decoded UTF-8', async (t) => {
  const str = (s: string | number[]) => {
    const bytes = typeof s === 'string' ? [...Buffer.from(s)] : s;
    return read(readString, [...varint(bytes.length), ...bytes]);
  };
  for (const s of [
    '',
    'a',
    'abcdefg',
    'abcdefgh',
    'abcdefghijkl',
    'abcdefghijklm',
    'x'.repeat(300),
    'é',
    'abcdefgé',
    'abcdefghé',
    'aé',
    'ünïcödé text, long enough',
    '日本語',
    '😀',
    '\uFEFFbom',
    '\0nul',
  ]) {
    const bytes = Buffer.from(s);
    t.same(str(s), { value: s, pos: varint(bytes.length).length + bytes.length }, JSON.stringify(s));
  }
  const invalid: Array<[string, number[]]> = [
    ['a lone continuation byte, short', [0x61, 0x80]],
    ['0xff, short, in the first eight', [0xff, 0x61, 0x61, 0x61, 0x61, 0x61, 0x61, 0x61, 0x61]],
    ['0xff, short, after the first eight', [0x61, 0x61, 0x61, 0x61, 0x61, 0x61, 0x61, 0x61, 0xff]],
    ['0xff, long', [...Buffer.from('a'.repeat(20)), 0xff]],
    ['only invalid bytes, long (as many replacement characters as bytes)', new Array(13).fill(0xff)],
    ['a cut multi-byte character', [...Buffer.from('a'.repeat(20)), 0xc3]],
    ['an encoded surrogate', [0xed, 0xa0, 0x80]],
    ['an overlong encoding', [0xc0, 0xaf]],
  ];
  for (const [why, bytes] of invalid) t.throws(() => str(bytes), TypeError, why);
  t.throws(() => read(readString, [5, 0x61]), /runs past the end/);
});

/** The cache slot of a key (the hash of protoReader.ts, restated). */
function slotOf(bytes: Uint8Array): number {
  let h = bytes.length;
  for (const b of bytes) h = Math.imul(h ^ b, 0x01000193);
  return (h ^ (h >>> 15)) & 1023;
}

t.test('attribute keys, through the cache of recent keys', async (t) => {
  const key = (s: string) => {
    const bytes = Buffer.from(s);
    return read(readKey, [...varint(bytes.length), ...bytes]);
  };
  const check = (s: string, why: string) =>
    t.same(key(s), { value: s, pos: varint(Buffer.byteLength(s)).length + Buffer.byteLength(s) }, why);
  check('gen_ai.system', 'a new key');
  check('gen_ai.system', 'the same key again, from the cache');
  check('', 'an empty key is not cached');
  check('k'.repeat(48), 'the longest cached key');
  check('k'.repeat(48), 'again');
  check('k'.repeat(49), 'a longer key is read, not cached');
  check('ключ', 'a non-ASCII key');
  check('ключ', 'again');
  t.throws(() => read(readKey, [2, 0xc3, 0x28]), TypeError, 'invalid UTF-8 is refused');

  // Two keys of one length in one slot: each evicts the other, and each read is still right.
  const byslot = new Map<number, string>();
  let pair: [string, string] | undefined;
  for (let i = 0; !pair; i++) {
    const s = `collide.${i}`.padEnd(16, '_');
    const slot = slotOf(Buffer.from(s));
    const other = byslot.get(slot);
    if (other !== undefined && other.length === s.length) pair = [other, s];
    else byslot.set(slot, s);
  }
  const [a, b] = pair;
  t.not(a, b);
  for (const s of [a, b, b, a, a, b]) check(s, `${s} (its slot shared with another key)`);
});

t.test('bytes are copied', async (t) => {
  for (const n of [0, 1, 32, 33, 100]) {
    const payload = Array.from({ length: n }, (_, i) => (i * 7) & 0xff);
    const r = reader([...varint(n), ...payload], true);
    const out = readBytes(r, r.buf.length);
    t.same([...out], payload, `${n} bytes`);
    t.not(out.buffer, r.buf.buffer, 'not a view of the input');
    r.buf.fill(0);
    t.same([...out], payload, 'unchanged when the input is');
  }
  t.throws(() => read(readBytes, [3, 1]), /runs past the end/);
});

t.test('skipping fields', async (t) => {
  const skip = (tag: number, rest: number[], end = rest.length) => {
    const r = reader(rest);
    skipField(r, tag, end);
    return r.pos;
  };
  t.equal(skip((9 << 3) | 0, varint(2n ** 64n - 1n)), 10, 'a varint');
  t.equal(
    skip((9 << 3) | 0, [...new Array(15).fill(0x80), 0x00]),
    16,
    'a varint of any length, as protobufjs skips it',
  );
  t.equal(skip((9 << 3) | 1, [...le64(1n), 0xaa]), 8, 'fixed64');
  t.equal(skip((9 << 3) | 2, [3, 1, 2, 3, 0xaa]), 4, 'length-delimited');
  t.equal(skip((9 << 3) | 5, [...le32(1), 0xaa]), 4, 'fixed32');
  t.throws(() => skip((9 << 3) | 0, [0x80, 0x80]), TRUNCATED);
  t.throws(() => skip((9 << 3) | 0, [0x80, 0x00], 1), TRUNCATED, 'bounded by the end');
  t.throws(() => skip((9 << 3) | 1, [1, 2, 3, 4, 5, 6, 7]), TRUNCATED);
  t.throws(() => skip((9 << 3) | 5, [1, 2, 3]), TRUNCATED);
  t.throws(() => skip((9 << 3) | 2, [4, 1]), /runs past the end/);
  for (const wireType of [3, 4, 6, 7])
    t.throws(() => skip((9 << 3) | wireType, [0, 0, 0, 0, 0, 0, 0, 0]), {
      message: `invalid wire type ${wireType} at offset 0`,
    });
  t.throws(() => skip(0, [0]), { message: 'illegal tag: field number 0 at offset 0' });
  t.throws(() => skip(2, [0]), { message: /field number 0/ }, 'whatever the wire type');
});

t.test('64-bit integers as decimal text', async (t) => {
  const u64 = (v: bigint) => uint64ToDecimal(Number(v & 0xffffffffn), Number(v >> 32n));
  const i64 = (v: bigint) =>
    int64ToDecimal(Number(BigInt.asUintN(64, v) & 0xffffffffn) | 0, Number(BigInt.asUintN(64, v) >> 32n) | 0);
  const edges = [
    0n,
    1n,
    10n ** 7n - 1n,
    10n ** 7n,
    2n ** 53n - 1n,
    2n ** 53n,
    2n ** 53n + 1n,
    10n ** 15n,
    10n ** 16n,
    10n ** 19n,
    2n ** 63n,
    2n ** 64n - 1n,
    0x1fffffn << 32n,
    0x200000n << 32n,
  ];
  for (const v of edges) t.equal(u64(v), v.toString(), `uint64 ${v}`);
  // Limbs that carry (a ≥ 10^7, b ≥ 10^7) and that do not; digits that need padding.
  for (const v of [
    2n ** 48n * 2n + 1n,
    2n ** 60n + 5n,
    2n ** 60n + 9_999_999n,
    12_345_000_000_000_000n,
    10_000_000_000_000_001n,
  ])
    t.equal(u64(v), v.toString(), `uint64 ${v}`);
  for (const v of [0n, -1n, 1n, -(2n ** 32n), -(2n ** 32n) + 1n, -(2n ** 63n), 2n ** 63n - 1n, -(10n ** 18n)])
    t.equal(i64(v), v.toString(), `int64 ${v}`);
  t.equal(uint64ToDecimal(-1, -1), '18446744073709551615', 'halves are taken as unsigned');
  fc.assert(
    fc.property(
      fc.bigInt(0n, 2n ** 64n - 1n),
      (v) => u64(v) === v.toString() && i64(BigInt.asIntN(64, v)) === BigInt.asIntN(64, v).toString(),
    ),
    { numRuns: 5000, seed: 7 },
  );
  t.pass('5000 random values match BigInt');
});

t.test('checking without reading: strings, byte views, 64-bit varints and fixed widths skipped', async (t) => {
  const checks = (bytes: readonly number[]) => read(skipString, [bytes.length, ...bytes]).pos;
  for (const [why, text] of [
    ['short ASCII', 'short'],
    ['short, not ASCII', 'ünï'],
    ['long ASCII', 'a string longer than twelve bytes, ASCII'],
    ['ASCII past what is checked in JS', 'x'.repeat(100)],
    ['long UTF-8', '😀 emoji and a byte-order mark \uFEFF'],
    ['empty', ''],
  ]) {
    const bytes = [...Buffer.from(text!, 'utf8')];
    t.equal(checks(bytes), 1 + bytes.length, `${why}: past its bytes`);
  }
  for (const [why, bytes] of [
    ['a stray continuation byte', [0x61, 0x80]],
    ['0xff', [0xff]],
    ['a lone surrogate', [0xed, 0xa0, 0x80]],
    ['an overlong encoding', [0xc0, 0xaf]],
    ['cut in a character, long', [...Buffer.from('twelve bytes and more '), 0xe6, 0x97]],
    ['invalid past what is checked in JS', [0x61, ...new Array(100).fill(0x80)]],
  ] as const) {
    t.throws(() => checks(bytes), { message: /^invalid UTF-8 in a string field at offset 1$/ }, why);
    t.throws(() => read(readString, [bytes.length, ...bytes]), Error, `${why}: refused by readString too`);
  }
  t.throws(() => read(skipString, [5, 0x61]), { message: /runs past the end/ });

  const r = new Reader(Buffer.from([3, 7, 8, 9, 1]));
  const view = viewBytes(r, 5);
  t.same([...view], [7, 8, 9]);
  t.equal(view.buffer, r.buf.buffer, 'a view, not a copy');
  t.equal(r.pos, 4);

  t.equal(read(skipVarint64, varint(2n ** 64n - 1n)).pos, 10, 'ten bytes');
  t.equal(read(skipVarint64, [0x05]).pos, 1);
  t.throws(
    () => read(skipVarint64, [...new Array(10).fill(0xff), 0x01]),
    { message: /invalid varint/ },
    'over 10 bytes',
  );
  t.throws(() => read(skipVarint64, [0x80]), TRUNCATED);

  t.equal(read(skipFixed64, [1, 2, 3, 4, 5, 6, 7, 8]).pos, 8);
  t.throws(() => read(skipFixed64, [1, 2, 3]), TRUNCATED);
  t.same(
    read(readFixed64Big, le64(2n ** 64n - 1n)),
    { value: 2n ** 64n - 1n, pos: 8 },
    'a fixed64 as a bigint, unsigned',
  );
  t.same(read(readFixed64Big, le64(1_700_000_000_123_456_789n)), { value: 1_700_000_000_123_456_789n, pos: 8 });
  t.throws(() => read(readFixed64Big, [1, 2]), TRUNCATED);
});
