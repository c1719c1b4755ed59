/**
 * src/ingest/protoDecode.ts: the hand-written OTLP trace decoder, message by message and field by
 * field — values, proto3 defaults (a default on the wire removes the field), wrong wire types and
 * unknown fields skipped, singular messages merged, the AnyValue oneof, the depth limit, and malformed
 * input. Its agreement with protobufjs on generated and random input is test/ingest/protoDecode.test.ts.
 */
import t from 'tap';
import { decodeTraceRequest, MAX_MESSAGE_DEPTH } from '../../../src/ingest/protoDecode.js';
import {
  ALL_MESSAGES,
  doubleField,
  extract,
  f64,
  fixed64Field,
  I32,
  I64,
  LEN,
  lenField,
  REPEATED,
  SAMPLES,
  SCALARS,
  tag,
  UNKNOWN_FIELDS,
  utf8,
  VARINT,
  varint,
  varintField,
  wrap,
  type OtlpMessage,
} from '../../helpers/wire.js';

type Msg = OtlpMessage;

const decode = (msg: Msg, fields: readonly number[]) => extract(msg, decodeTraceRequest(wrap(msg, fields)));

t.test('scalar fields: the value; a default on the wire removes it; the wrong wire type is skipped', async (t) => {
  for (const [msg, name, field, kind] of SCALARS) {
    const s = SAMPLES[kind];
    t.same(decode(msg, s.value(field))[name], s.decoded, `${msg}.${name}`);
    t.notOk(name in decode(msg, s.zero(field)), `${msg}.${name}: a default is absent`);
    t.notOk(
      name in decode(msg, [...s.value(field), ...s.zero(field)]),
      `${msg}.${name}: a later default removes the value`,
    );
    t.same(decode(msg, [...s.zero(field), ...s.value(field)])[name], s.decoded, `${msg}.${name}: the last value wins`);
    const wrongType = s.wireType === LEN ? varintField(field, 1) : lenField(field, [1]);
    t.notOk(name in decode(msg, wrongType), `${msg}.${name}: sent with the wrong wire type, skipped`);
  }
});

t.test('repeated message fields: appended in order; absent when empty; the wrong wire type is skipped', async (t) => {
  for (const [msg, name, field] of REPEATED) {
    const two = decode(msg, [...lenField(field, []), ...UNKNOWN_FIELDS, ...lenField(field, [])]);
    t.equal((two[name] as unknown[]).length, 2, `${msg}.${name}: two elements`);
    t.notOk(name in decode(msg, []), `${msg}.${name}: absent`);
    t.notOk(name in decode(msg, varintField(field, 1)), `${msg}.${name}: a varint is skipped`);
  }
  const r = decodeTraceRequest(
    Uint8Array.from([...lenField(1, lenField(3, utf8('a'))), ...lenField(1, lenField(3, utf8('b')))]),
  );
  t.same(
    r.resourceSpans?.map((rs) => rs.schemaUrl),
    ['a', 'b'],
    'in wire order',
  );
});

t.test('unknown fields of every wire type are skipped in every message', async (t) => {
  for (const msg of ALL_MESSAGES) {
    const with_ = decodeTraceRequest(wrap(msg, [...UNKNOWN_FIELDS, ...UNKNOWN_FIELDS]));
    const without = decodeTraceRequest(wrap(msg, []));
    t.same(with_, without, msg);
  }
  t.same(decodeTraceRequest(Uint8Array.from(UNKNOWN_FIELDS)), {}, 'around nothing, in the request');
});

t.test('singular messages sent twice are merged', async (t) => {
  const kv = (key: string) => lenField(1, lenField(1, utf8(key)));
  const resource = decode('ResourceSpans', [
    ...lenField(1, [...kv('a'), ...varintField(2, 3)]),
    ...lenField(1, [...kv('b'), ...varintField(2, 4)]),
  ]).resource;
  t.same(
    resource,
    { attributes: [{ key: 'a' }, { key: 'b' }], droppedAttributesCount: 4 },
    'resource: repeated fields append, scalars overwrite',
  );
  const scope = decode('ScopeSpans', [
    ...lenField(1, lenField(1, utf8('lib'))),
    ...lenField(1, lenField(2, utf8('1.0'))),
  ]).scope;
  t.same(scope, { name: 'lib', version: '1.0' }, 'scope');
  const status = decode('Span', [
    ...lenField(15, varintField(3, 2)),
    ...lenField(15, lenField(2, utf8('boom'))),
  ]).status;
  t.same(status, { code: 2, message: 'boom' }, 'status');
  const cleared = decode('Span', [...lenField(15, varintField(3, 2)), ...lenField(15, varintField(3, 0))]).status;
  t.same(cleared, {}, 'a default in the second copy clears the first');
});

t.test('AnyValue: members have presence, the last one wins, a member sent twice merges', async (t) => {
  const value = (fields: number[]) => decode('AnyValue', fields);
  t.strictSame(value(lenField(1, [])), { stringValue: '' }, 'an empty string stays');
  t.strictSame(value(varintField(2, 0)), { boolValue: false });
  t.strictSame(value(varintField(2, 1)), { boolValue: true });
  t.strictSame(value(varintField(3, 0)), { intValue: '0' });
  t.strictSame(value(varintField(3, -5n)), { intValue: '-5' });
  t.strictSame(value(doubleField(4, 0)), { doubleValue: 0 });
  t.ok(Object.is(value([...tag(4, I64), ...f64(-0)]).doubleValue, -0), '-0 kept');
  t.same(value(lenField(7, [])), { bytesValue: new Uint8Array(0) });
  t.same(value(lenField(5, [])), { arrayValue: {} }, 'an empty array');
  t.same(value(lenField(6, [])), { kvlistValue: {} }, 'an empty kvlist');
  t.strictSame(value([]), {}, 'no member');
  t.strictSame(value([...lenField(1, utf8('s')), ...varintField(3, 5)]), { intValue: '5' }, 'the last member wins');
  t.strictSame(
    value([...lenField(1, utf8('a')), ...lenField(1, utf8('b'))]),
    { stringValue: 'b' },
    'the same member twice: the last value',
  );
  t.same(
    value([...lenField(5, lenField(1, varintField(2, 1))), ...lenField(5, lenField(1, lenField(1, utf8('b'))))]),
    { arrayValue: { values: [{ boolValue: true }, { stringValue: 'b' }] } },
    'arrays merge',
  );
  t.same(
    value([...lenField(6, lenField(1, lenField(1, utf8('x')))), ...lenField(6, lenField(1, lenField(1, utf8('y'))))]),
    { kvlistValue: { values: [{ key: 'x' }, { key: 'y' }] } },
    'kvlists merge',
  );
  t.strictSame(value([...lenField(5, []), ...varintField(2, 1)]), { boolValue: true });

  // KeyValue.value sent twice: the second AnyValue merges into the first.
  const kv = (fields: number[]) => decode('KeyValue', fields).value;
  t.strictSame(
    kv([...lenField(2, lenField(1, utf8('a'))), ...lenField(2, varintField(3, 1))]),
    { intValue: '1' },
    'another member replaces the first copy’s',
  );
  t.strictSame(
    kv([...lenField(2, lenField(1, utf8('a'))), ...lenField(2, [])]),
    { stringValue: 'a' },
    'an empty second copy keeps it',
  );
  t.strictSame(
    kv([...lenField(2, []), ...lenField(2, varintField(2, 1))]),
    { boolValue: true },
    'a first copy without a member',
  );
  t.same(
    kv([
      ...lenField(2, lenField(5, lenField(1, varintField(3, 1)))),
      ...lenField(2, lenField(5, lenField(1, varintField(3, 2)))),
    ]),
    { arrayValue: { values: [{ intValue: '1' }, { intValue: '2' }] } },
  );
});

t.test('attribute keys', async (t) => {
  const attrs = decode('Span', [
    ...lenField(9, lenField(1, utf8('k'))),
    ...lenField(9, lenField(1, utf8('k'))),
    ...lenField(9, lenField(1, [])),
    ...lenField(9, lenField(1, utf8('ключ'))),
  ]).attributes;
  t.same(attrs, [{ key: 'k' }, { key: 'k' }, {}, { key: 'ключ' }], 'repeated, empty (absent) and non-ASCII keys');
  t.same(decode('KeyValue', [...lenField(1, utf8('a')), ...lenField(1, [])]), {}, 'a later empty key removes the key');
});

t.test('depth: refused past 100 messages below the request', async (t) => {
  t.equal(MAX_MESSAGE_DEPTH, 100);
  /** A resource attribute (AnyValue at depth 4) holding `levels` nested arrays around a string. */
  const nestedArrays = (levels: number) => {
    let v = lenField(1, utf8('x'));
    for (let i = 0; i < levels; i++) v = lenField(5, lenField(1, v));
    return Uint8Array.from(lenField(1, lenField(1, lenField(1, lenField(2, v)))));
  };
  const nestedKvlists = (levels: number) => {
    let v = lenField(1, utf8('x'));
    for (let i = 0; i < levels; i++) v = lenField(6, lenField(1, lenField(2, v)));
    return Uint8Array.from(lenField(1, lenField(1, lenField(1, lenField(2, v)))));
  };
  const nestedValue = (levels: number) => {
    let v = lenField(1, utf8('x'));
    for (let i = 0; i < levels; i++) v = lenField(5, lenField(1, v));
    return v;
  };
  // The innermost AnyValue sits at 4 + 2·levels (arrays) or 4 + 3·levels (kvlists).
  t.doesNotThrow(() => decodeTraceRequest(nestedArrays(48)), 'arrays: the innermost value at depth 100');
  t.throws(() => decodeTraceRequest(nestedArrays(49)), { message: 'messages nested deeper than 100' });
  t.doesNotThrow(() => decodeTraceRequest(nestedKvlists(32)), 'kvlists: at depth 100');
  t.throws(() => decodeTraceRequest(nestedKvlists(33)), { message: 'messages nested deeper than 100' });
  // Refused by whichever message crosses the limit: 49 arrays put an ArrayValue at 101, 33 kvlists a
  // KeyValueList; under a span attribute (one level deeper) 48 arrays put the innermost AnyValue there.
  t.throws(() => decodeTraceRequest(wrap('KeyValue', lenField(2, nestedValue(48)))), {
    message: 'messages nested deeper than 100',
  });
  t.doesNotThrow(() => decodeTraceRequest(wrap('KeyValue', lenField(2, nestedValue(47)))));
});

t.test('a realistic request', async (t) => {
  const span = [
    ...lenField(1, new Array(16).fill(0xab)),
    ...lenField(2, new Array(8).fill(0xcd)),
    ...lenField(5, utf8('chat gpt-4o')),
    ...varintField(6, 3),
    ...fixed64Field(7, 1_700_000_000_000_000_000n),
    ...fixed64Field(8, 1_700_000_001_500_000_000n),
    ...lenField(9, [...lenField(1, utf8('gen_ai.system')), ...lenField(2, lenField(1, utf8('openai')))]),
    ...lenField(9, [...lenField(1, utf8('gen_ai.usage.input_tokens')), ...lenField(2, varintField(3, 12))]),
    ...lenField(11, [...fixed64Field(1, 1_700_000_000_500_000_000n), ...lenField(2, utf8('token'))]),
    ...lenField(15, varintField(3, 1)),
  ];
  const request = Uint8Array.from(
    lenField(1, [
      ...lenField(1, lenField(1, [...lenField(1, utf8('service.name')), ...lenField(2, lenField(1, utf8('svc')))])),
      ...lenField(2, [...lenField(1, lenField(1, utf8('openinference'))), ...lenField(2, span)]),
    ]),
  );
  t.same(decodeTraceRequest(request), {
    resourceSpans: [
      {
        resource: { attributes: [{ key: 'service.name', value: { stringValue: 'svc' } }] },
        scopeSpans: [
          {
            scope: { name: 'openinference' },
            spans: [
              {
                traceId: new Uint8Array(16).fill(0xab),
                spanId: new Uint8Array(8).fill(0xcd),
                name: 'chat gpt-4o',
                kind: 3,
                startTimeUnixNano: '1700000000000000000',
                endTimeUnixNano: '1700000001500000000',
                attributes: [
                  { key: 'gen_ai.system', value: { stringValue: 'openai' } },
                  { key: 'gen_ai.usage.input_tokens', value: { intValue: '12' } },
                ],
                events: [{ timeUnixNano: '1700000000500000000', name: 'token' }],
                status: { code: 1 },
              },
            ],
          },
        ],
      },
    ],
  });
  t.same(decodeTraceRequest(new Uint8Array(0)), {}, 'an empty request');
  const view = new Uint8Array(request.length + 4);
  view.set(request, 2);
  t.same(
    decodeTraceRequest(view.subarray(2, 2 + request.length)),
    decodeTraceRequest(request),
    'a view into a larger buffer',
  );
});

t.test('malformed input throws an Error', async (t) => {
  const cases: Array<[string, number[], RegExp]> = [
    ['a truncated tag', [0x80], /truncated/],
    ['a truncated length', [...tag(1, LEN), 0x80], /truncated/],
    ['a length past the end', [...tag(1, LEN), 5, 0], /runs past the end/],
    [
      'a length past the end of the enclosing message',
      lenField(1, [...tag(3, LEN), 9, 0x61]),
      /runs past the end of its message/,
    ],
    ['a truncated varint in a span', [...wrap('Span', [...tag(6, VARINT), 0x80])], /truncated/],
    ['a fixed64 cut short', [...wrap('Span', [...tag(7, I64), 1, 2, 3])], /truncated/],
    ['a fixed32 cut short', [...wrap('Span', [...tag(16, I32), 1])], /truncated/],
    ['a double cut short', [...wrap('AnyValue', [...tag(4, I64), 1])], /truncated/],
    ['invalid UTF-8', [...wrap('Span', lenField(5, [0x61, 0xff]))], /./],
    ['field number 0', [0x00, 0x00], /field number 0/],
    ['field number 0 in a span', [...wrap('Span', [0x02, 0x00])], /field number 0/],
    ['a group in a message', [...wrap('Event', [...tag(50, 3), ...tag(50, 4)])], /invalid wire type 3/],
    ['wire type 6', [...tag(1, 6), 0], /invalid wire type 6/],
    [
      'a bool over 10 bytes',
      [...wrap('AnyValue', [...tag(2, VARINT), ...new Array(10).fill(0x80), 0])],
      /invalid varint/,
    ],
    [
      'an int64 over 10 bytes',
      [...wrap('AnyValue', [...tag(3, VARINT), ...new Array(10).fill(0xff), 0x01])],
      /invalid varint/,
    ],
    ['a tag over 32 bits', [...varint(2n ** 35n)], /invalid tag/],
  ];
  for (const [why, bytes, message] of cases)
    t.throws(() => decodeTraceRequest(Uint8Array.from(bytes)), { message }, why);
});
