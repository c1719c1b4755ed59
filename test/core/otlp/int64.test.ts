import t from 'tap';
import { int64ToJson, MAX_INT64, toBigInt, toNanos } from '../../../src/core/otlp/int64.js';

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
  for (const v of [1.5, NaN, Infinity, '1e3', '', '12a', '1'.repeat(25), { low: 1 }, { high: 1, low: '1' }, null, undefined, true]) {
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
