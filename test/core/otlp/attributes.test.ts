import t from 'tap';
import {
  anyValueToJson,
  asArray,
  bytesToBase64,
  emptyMap,
  flattenAttributes,
  fromParsedJson,
  isObject,
  MAX_ATTRIBUTES,
  MAX_DEPTH,
  parseJson,
  type DropCounter,
} from '../../../src/core/otlp/attributes.js';
import type { AnyValue, KeyValue } from '../../../src/core/otlp/wire.js';
import { attrs } from './wire-builders.js';

const counter = (): DropCounter => ({ dropped: 0 });

/** Levels of nested arrays/maps in a JSON value, the value itself included. */
function depthOf(v: unknown): number {
  if (typeof v !== 'object' || v === null) return 0;
  return 1 + Math.max(0, ...Object.values(v).map(depthOf));
}

/** A kvlist nested `levels` deep, the innermost holding `leaf: "x"`. */
function nestedKvlist(levels: number): AnyValue {
  let v: AnyValue = { stringValue: 'x' };
  for (let i = 0; i < levels; i++) v = { kvlistValue: { values: [{ key: 'leaf', value: v }] } };
  return v;
}

t.test('every AnyValue member maps to JSON', async (t) => {
  const c = counter();
  const out = flattenAttributes(
    [
      ...attrs({
        'gen_ai.system': 'openai',
        'gen_ai.request.temperature': 0.2,
        'gen_ai.usage.input_tokens': 12,
        stream: false,
      }),
      { key: 'empty', value: { stringValue: '' } },
      {
        key: 'gen_ai.response.finish_reasons',
        value: { arrayValue: { values: [{ stringValue: 'stop' }, { intValue: 3 }] } },
      },
      { key: 'llm.invocation_parameters', value: { kvlistValue: { values: attrs({ top_p: 1, seed: 7 }) } } },
      { key: 'huge', value: { intValue: '18446744073709551615' } },
      { key: 'ratio', value: { doubleValue: '0.25' } },
      { key: 'nan', value: { doubleValue: 'NaN' } },
      { key: 'inf', value: { doubleValue: 'Infinity' } },
      { key: 'neg_inf', value: { doubleValue: -Infinity } },
      { key: 'nan_number', value: { doubleValue: NaN } },
      { key: 'blob', value: { bytesValue: Uint8Array.from([104, 105]) } },
      { key: 'blob_json', value: { bytesValue: 'aGk=' } },
      { key: 'unset', value: {} },
      { key: 'no_value' },
      { key: 'odd_value', value: 'text' as unknown as AnyValue },
      { key: 'no_values', value: { arrayValue: {} } },
      { key: 'no_pairs', value: { kvlistValue: { values: null } } },
    ],
    c,
  );
  t.same(JSON.parse(JSON.stringify(out)), {
    'gen_ai.system': 'openai',
    'gen_ai.request.temperature': 0.2,
    'gen_ai.usage.input_tokens': 12,
    stream: false,
    empty: '',
    'gen_ai.response.finish_reasons': ['stop', 3],
    'llm.invocation_parameters': { top_p: 1, seed: 7 },
    huge: '18446744073709551615',
    ratio: 0.25,
    nan: 'NaN',
    inf: 'Infinity',
    neg_inf: '-Infinity',
    nan_number: 'NaN',
    blob: 'aGk=',
    blob_json: 'aGk=',
    unset: null,
    no_value: null,
    odd_value: null,
    no_values: [],
    no_pairs: {},
  });
  t.equal(c.dropped, 0);
});

t.test('int64 beyond 2^53 becomes exact text, safe ones stay numbers', async (t) => {
  const out = flattenAttributes(
    [
      { key: 'big', value: { intValue: '9007199254740993' } },
      { key: 'long', value: { intValue: { low: 1, high: 0x200000, unsigned: false } } },
      { key: 'safe', value: { intValue: 9007199254740991n } },
    ],
    counter(),
  );
  t.equal(out.big, '9007199254740993');
  t.equal(out.long, '9007199254740993');
  t.equal(out.safe, 9007199254740991);
});

t.test('protobufjs messages: unset oneof members are null on the prototype', async (t) => {
  class ProtoAnyValue {
    constructor(fields: Partial<Record<keyof AnyValue, unknown>>) {
      Object.assign(this, fields);
    }
  }
  for (const k of ['stringValue', 'boolValue', 'intValue', 'doubleValue', 'arrayValue', 'kvlistValue', 'bytesValue']) {
    (ProtoAnyValue.prototype as unknown as Record<string, null>)[k] = null;
  }
  const v = (f: Partial<Record<keyof AnyValue, unknown>>) => new ProtoAnyValue(f) as AnyValue;
  const out = flattenAttributes(
    [
      { key: 'n', value: v({ intValue: { low: 5, high: 0, unsigned: false } }) },
      { key: 'b', value: v({ boolValue: false }) },
      { key: 's', value: v({ stringValue: '' }) },
      { key: 'bytes', value: v({ bytesValue: Buffer.from('hi') }) },
    ],
    counter(),
  );
  t.same({ ...out }, { n: 5, b: false, s: '', bytes: 'aGk=' });
});

t.test('a __proto__ key stays data and pollutes nothing', async (t) => {
  const out = flattenAttributes(
    [
      {
        key: '__proto__',
        value: {
          kvlistValue: {
            values: [
              { key: 'polluted', value: { boolValue: true } },
              { key: '__proto__', value: { stringValue: 'inner' } },
            ],
          },
        },
      },
      { key: 'constructor', value: { stringValue: 'c' } },
    ],
    counter(),
  );
  t.equal(Object.getPrototypeOf(out), null);
  t.same(Object.keys(out), ['__proto__', 'constructor']);
  const inner = out['__proto__'] as Record<string, unknown>;
  t.equal(inner.polluted, true);
  t.equal(inner['__proto__'], 'inner');
  t.equal(Object.getPrototypeOf(inner), null);
  t.equal(({} as Record<string, unknown>).polluted, undefined);
  t.equal(JSON.stringify(out), '{"__proto__":{"polluted":true,"__proto__":"inner"},"constructor":"c"}');
});

t.test(`nesting is capped at ${MAX_DEPTH} levels`, async (t) => {
  const atCap = counter();
  const kept = flattenAttributes([{ key: 'deep', value: nestedKvlist(MAX_DEPTH - 1) }], atCap);
  t.equal(depthOf(kept), MAX_DEPTH, 'the attribute map plus 63 nested maps is kept whole');
  t.equal(atCap.dropped, 0);
  t.match(JSON.stringify(kept), /"leaf":"x"/);

  const over = counter();
  const cut = flattenAttributes([{ key: 'deep', value: nestedKvlist(1000) }], over);
  t.equal(depthOf(cut), MAX_DEPTH);
  t.equal(over.dropped, 1, 'one subtree cut');
  t.notMatch(JSON.stringify(cut), /"x"/);

  let arrays: AnyValue = { stringValue: 'x' };
  for (let i = 0; i < 200; i++) arrays = { arrayValue: { values: [arrays] } };
  const arrayCounter = counter();
  t.equal(depthOf(flattenAttributes([{ key: 'a', value: arrays }], arrayCounter)), MAX_DEPTH);
  t.equal(arrayCounter.dropped, 1);
});

t.test(`at most ${MAX_ATTRIBUTES} keys per map; the rest are counted`, async (t) => {
  const list: KeyValue[] = Array.from({ length: MAX_ATTRIBUTES + 6 }, (_, i) => ({
    key: `k${i}`,
    value: { intValue: i },
  }));
  list.push({ key: 'k0', value: { stringValue: 'last wins' } });
  const c = counter();
  const out = flattenAttributes(list, c);
  t.equal(Object.keys(out).length, MAX_ATTRIBUTES);
  t.equal(c.dropped, 6);
  t.equal(out[`k${MAX_ATTRIBUTES - 1}`], MAX_ATTRIBUTES - 1);
  t.equal(out[`k${MAX_ATTRIBUTES}`], undefined);
  t.equal(out.k0, 'last wins', 'a repeated key is no new key, even at the cap');
});

t.test('malformed entries are dropped and counted; a non-list is empty', async (t) => {
  const c = counter();
  const out = flattenAttributes(
    [null, { value: { stringValue: 'no key' } }, { key: 7 }, 'x', ...attrs({ ok: 'yes' })],
    c,
  );
  t.same({ ...out }, { ok: 'yes' });
  t.equal(c.dropped, 4);
  t.same({ ...flattenAttributes(undefined, c) }, {});
  t.same({ ...flattenAttributes({ key: 'a' }, c) }, {});
});

t.test('anyValueToJson reads one value at a given depth', async (t) => {
  const c = counter();
  t.equal(anyValueToJson({ kvlistValue: { values: [] } }, MAX_DEPTH, c), null);
  t.equal(c.dropped, 1);
  t.same(anyValueToJson({ arrayValue: { values: [] } }, MAX_DEPTH - 1, c), []);
});

t.test('bytesToBase64 honours the view of a larger buffer', async (t) => {
  const whole = Uint8Array.from([0, 104, 105, 0]);
  t.equal(bytesToBase64(whole.subarray(1, 3)), 'aGk=');
});

t.test('parseJson re-homes parsed JSON under the attribute caps', async (t) => {
  const c = counter();
  const parsed = parseJson('{"__proto__":{"polluted":true},"list":[1,{"a":null}]}', c) as Record<string, unknown>;
  t.equal(Object.getPrototypeOf(parsed), null);
  t.same(Object.keys(parsed), ['__proto__', 'list']);
  t.equal(({} as Record<string, unknown>).polluted, undefined);
  t.equal(Object.getPrototypeOf((parsed.list as unknown[])[1]), null);
  t.equal(parseJson('not json', c), undefined);
  t.equal(parseJson('"text"', c), 'text');
  t.equal(parseJson('3', c), 3);

  const deep = counter();
  t.equal(depthOf(parseJson('['.repeat(5000) + ']'.repeat(5000), deep)), MAX_DEPTH);
  t.equal(deep.dropped, 1);

  const wide = counter();
  const many = Object.fromEntries(Array.from({ length: MAX_ATTRIBUTES + 2 }, (_, i) => [`k${i}`, i]));
  t.equal(Object.keys(fromParsedJson(many, 0, wide) as object).length, MAX_ATTRIBUTES);
  t.equal(wide.dropped, 2);
});

t.test('small helpers', async (t) => {
  t.equal(Object.getPrototypeOf(emptyMap()), null);
  t.same(asArray([1]), [1]);
  t.same(asArray('abc'), []);
  t.ok(isObject([]));
  t.notOk(isObject(null));
  t.notOk(isObject('x'));
});

t.test('a repeated key keeps its first place and its last value', async (t) => {
  const c = counter();
  const out = flattenAttributes(
    [
      { key: 'a', value: { stringValue: 'first' } },
      { key: 'b', value: { intValue: '1' } },
      { key: '__proto__', value: { stringValue: 'p1' } },
      { key: 'a', value: { stringValue: 'last' } },
      { key: '7', value: { boolValue: true } },
      { key: '__proto__', value: { stringValue: 'p2' } },
    ],
    c,
  );
  t.same(
    Object.keys(out),
    ['7', 'a', 'b', '__proto__'],
    'integer keys first, as in any JS object; then first-seen order',
  );
  t.same([out.a, out.b, out['__proto__'], out['7']], ['last', 1, 'p2', true]);
  t.equal(Object.getPrototypeOf(out), null);
  t.equal(c.dropped, 0);
});

t.test('past the cap, malformed entries are still dropped and counted', async (t) => {
  const list: unknown[] = Array.from({ length: MAX_ATTRIBUTES + 1 }, (_, i) => ({
    key: `k${i}`,
    value: { boolValue: true },
  }));
  list.splice(3, 0, null, { key: 5 });
  const c = counter();
  const out = flattenAttributes(list, c);
  t.equal(Object.keys(out).length, MAX_ATTRIBUTES);
  t.equal(c.dropped, 3, 'two malformed entries and one key over the cap');
  t.equal(out[`k${MAX_ATTRIBUTES - 1}`], true);
});

t.test('values of every integer shape, through the fast paths and around them', async (t) => {
  const out = flattenAttributes(
    [
      { key: 'small', value: { intValue: '1234' } },
      { key: 'negative', value: { intValue: '-42' } },
      { key: 'negZero', value: { intValue: '-0' } },
      { key: 'fifteen', value: { intValue: '999999999999999' } },
      { key: 'sixteen', value: { intValue: '9007199254740991' } },
      { key: 'unsafe', value: { intValue: '9007199254740992' } },
      { key: 'number', value: { intValue: -0 } },
      { key: 'plus', value: { intValue: '+5' } },
      { key: 'padded', value: { intValue: ' 6 ' } },
      { key: 'sign', value: { intValue: '-' } },
    ],
    counter(),
  );
  t.same(
    { ...out },
    {
      small: 1234,
      negative: -42,
      negZero: 0,
      fifteen: 999999999999999,
      sixteen: 9007199254740991,
      unsafe: '9007199254740992',
      number: 0,
      plus: 5,
      padded: 6,
      sign: '-',
    },
  );
  t.ok(Object.is(out.negZero, 0) && Object.is(out.number, 0), '-0 reads as 0');
});
