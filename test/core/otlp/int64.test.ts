import t from 'tap';
import { int64ToJson, isDigits, MAX_INT64, toBigInt, toNanos } from '../../../src/core/otlp/int64.js';

t.test('toBigInt reads every shape a decoder produces', async (t) => {
  t.equal(toBigInt(42n), 42n);
  t.equal(toBigInt(1700000000), 1700000000n);
  t.equal(toBigInt('1700000000123456789'), 1700000000123456789n, 'OTLP/JSON fixed64 as text, no rounding');
  t.equal(toBigInt(' -42 '), -42n);
  t.equal(toBigInt('+7'), 7n);
  // protobufjs Long: the signed reading unless `unsigned` is set
  t.equal(toBigInt({ low: -1, high: -1 }), -1n);
  t.equal(toBigInt({ low: -1, high: -1, unsigned: false }), -1n);
  t.equal(toBigInt({ low: -1, high: -1, unsigned: true }), 2n ** 64n - 1n);
  t.equal(toBigInt({ low: 1, high: 1, unsigned: true }), 2n ** 32n + 1n);
});

t.test('toBigInt refuses what is not an integer', async (t) => {
  for (const v of [
    1.5,
    NaN,
    Infinity,
    '1e3',
    '',
    '12a',
    '1'.repeat(25),
    { low: 1 },
    { high: 1, low: '1' },
    null,
    undefined,
    true,
  ]) {
    t.equal(toBigInt(v), undefined, String(v));
  }
  t.equal(toBigInt('1'.repeat(24)), BigInt('1'.repeat(24)), '24 digits still parse');
});

t.test('toNanos: absent is 0, malformed or out of int64 range is undefined', async (t) => {
  t.equal(toNanos(undefined), 0n);
  t.equal(toNanos(null), 0n);
  t.equal(toNanos('1700000000000000000'), 1700000000000000000n);
  t.equal(toNanos({ low: 0x362a0000, high: 0x17979cfe, unsigned: true }), 0x17979cfe362a0000n);
  t.equal(toNanos(MAX_INT64.toString()), MAX_INT64);
  t.equal(toNanos((MAX_INT64 + 1n).toString()), undefined);
  t.equal(toNanos(-1), undefined);
  t.equal(toNanos('soon'), undefined);
});

t.test('int64ToJson keeps safe integers as numbers and the rest exact as text', async (t) => {
  t.equal(int64ToJson('42'), 42);
  t.equal(int64ToJson(Number.MAX_SAFE_INTEGER), Number.MAX_SAFE_INTEGER);
  t.equal(int64ToJson(String(Number.MIN_SAFE_INTEGER)), Number.MIN_SAFE_INTEGER);
  t.equal(int64ToJson('9007199254740992'), '9007199254740992', '2^53 is past the safe range');
  t.equal(int64ToJson('-9007199254740993'), '-9007199254740993');
  t.equal(int64ToJson('9223372036854775807'), '9223372036854775807');
  t.equal(int64ToJson({ low: -1, high: 0x7fffffff }), '9223372036854775807');
  t.equal(int64ToJson(2 ** 60), '1152921504606846976', 'an unsafe number gives its exact digits, not 1.15e18');
  t.equal(int64ToJson('twelve'), 'twelve', 'not an integer, but kept as sent');
  t.equal(int64ToJson(1.5), 1.5);
  t.equal(int64ToJson(NaN), null);
  t.equal(int64ToJson({}), null);
});

t.test('toNanos reads decimal text the same on its fast path and off it', async (t) => {
  t.equal(toNanos('0000000000000000001'), 1n, '19 characters with leading zeros');
  t.equal(toNanos('9223372036854775807'), MAX_INT64, 'the largest 19-digit time');
  t.equal(toNanos('9223372036854775808'), undefined, 'one past it');
  t.equal(toNanos('9999999999999999999'), undefined);
  t.equal(toNanos('00000000000000000001'), 1n, '20 characters: the general path, same reading');
  t.equal(toNanos(' 1700000000000000000 '), 1700000000000000000n, 'blanks around the digits, as before');
  t.equal(toNanos('+1700000000000000000'), 1700000000000000000n);
  t.equal(toNanos('-0'), 0n);
  t.equal(toNanos(''), undefined);
  t.equal(toNanos('0x10'), undefined, 'no hex');
  t.equal(toNanos('1_000'), undefined);
});

t.test('int64ToJson: fast paths agree with the exact reading', async (t) => {
  for (const text of [
    '0',
    '7',
    '-7',
    '007',
    '-0',
    '123456789012345',
    '-123456789012345',
    '1234567890123456',
    '9007199254740991',
    '-9007199254740991',
  ]) {
    const exact = BigInt(text);
    t.ok(Object.is(int64ToJson(text), Number(exact)), text);
  }
  t.ok(Object.is(int64ToJson(-0), 0), 'a -0 number reads as 0');
  t.equal(int64ToJson(''), '', 'empty text is no integer, kept as sent');
  t.equal(int64ToJson('-'), '-');
  t.equal(int64ToJson('12a'), '12a');
  t.equal(int64ToJson(7), 7);
});

t.test('isDigits: one or more ASCII digits', async (t) => {
  t.ok(isDigits('0123456789'));
  for (const text of ['', '-1', '+1', ' 1', '1 ', '1.0', '١']) t.notOk(isDigits(text), JSON.stringify(text));
});
