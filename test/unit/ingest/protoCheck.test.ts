/**
 * src/ingest/protoCheck.ts: the main thread's check of an OTLP protobuf body. On every input built
 * here — every field of every message, defaults, wrong wire types, unknown fields, invalid UTF-8,
 * over-long varints, truncations, the depth limit — it throws exactly when the decoder throws, and
 * its skeleton holds the span fields the decoder gives (ids, times, one entry per event). Its
 * agreement on generated, mutated and random input is test/ingest/protoDecode.test.ts.
 */
import t, { type Test } from 'tap';
import type { ExportTraceServiceRequest, Span } from '../../../src/core/otlp/wire.js';
import { checkTraceRequest } from '../../../src/ingest/protoCheck.js';
import { decodeTraceRequest } from '../../../src/ingest/protoDecode.js';
import {
  ALL_MESSAGES,
  doubleField,
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
} from '../../helpers/wire.js';

/** What the checker keeps of a decoded request: spans with ids, times and events (as empty objects). */
function skeleton(request: ExportTraceServiceRequest): unknown {
  const keep = <T>(list: T[] | null | undefined, f: (x: T) => unknown) => (list ? { items: list.map(f) } : null);
  const out: Record<string, unknown> = {};
  const rs = keep(request.resourceSpans, (r) => {
    const m: Record<string, unknown> = {};
    const ss = keep(r.scopeSpans, (s) => {
      const n: Record<string, unknown> = {};
      const spans = keep(s.spans, (span: Span) => {
        const o: Record<string, unknown> = {};
        for (const k of ['traceId', 'spanId', 'parentSpanId', 'startTimeUnixNano', 'endTimeUnixNano'] as const) {
          const v: unknown = span[k];
          // Times as the bigints the check reads them as (the mapper reads either alike).
          if (v !== undefined) o[k] = v instanceof Uint8Array ? [...v] : BigInt(v as string);
        }
        if (span.events) o.events = span.events.map(() => ({}));
        return o;
      });
      if (spans) n.spans = spans.items;
      return n;
    });
    if (ss) m.scopeSpans = ss.items;
    return m;
  });
  if (rs) out.resourceSpans = rs.items;
  return out;
}

/** The checker's skeleton with its id views as plain arrays, comparable with {@link skeleton}. */
function checked(bytes: Uint8Array): unknown {
  const plain = (v: unknown): unknown => {
    if (v instanceof Uint8Array) return [...v];
    if (Array.isArray(v)) return v.map(plain);
    if (v !== null && typeof v === 'object')
      return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, plain(x)]));
    return v;
  };
  return plain(checkTraceRequest(bytes));
}

/** Both throw, or the checker's skeleton is the decoded request's. */
function agree(t: Test, bytes: readonly number[] | Uint8Array, why: string): void {
  const input = Uint8Array.from(bytes);
  let decoded: ExportTraceServiceRequest | undefined;
  try {
    decoded = decodeTraceRequest(input);
  } catch {
    t.throws(() => checkTraceRequest(input), Error, `${why}: refused by both`);
    return;
  }
  t.same(checked(input), skeleton(decoded), `${why}: accepted, with the decoder's span fields`);
}

t.test(
  'scalar fields: values, defaults, repeats and wrong wire types are taken as the decoder takes them',
  async (t) => {
    for (const [msg, name, field, kind] of SCALARS) {
      const s = SAMPLES[kind];
      agree(t, wrap(msg, s.value(field)), `${msg}.${name}`);
      agree(t, wrap(msg, s.zero(field)), `${msg}.${name} default`);
      agree(t, wrap(msg, [...s.value(field), ...s.zero(field)]), `${msg}.${name} then its default`);
      agree(t, wrap(msg, [...s.zero(field), ...s.value(field)]), `${msg}.${name} after its default`);
      agree(
        t,
        wrap(msg, s.wireType === LEN ? varintField(field, 1) : lenField(field, [1])),
        `${msg}.${name} with the wrong wire type`,
      );
      if (kind === 'string') {
        agree(t, wrap(msg, lenField(field, [0x61, 0xff])), `${msg}.${name}: invalid UTF-8, short`);
        agree(
          t,
          wrap(msg, lenField(field, [...utf8('a long enough ascii text'), 0xc3])),
          `${msg}.${name}: invalid UTF-8, long`,
        );
        agree(t, wrap(msg, lenField(field, utf8('a long enough ascii text'))), `${msg}.${name}: long ASCII`);
        agree(t, wrap(msg, lenField(field, utf8('ünïcödé and more'))), `${msg}.${name}: long, not ASCII`);
        agree(t, wrap(msg, lenField(field, [0xed, 0xa0, 0x80])), `${msg}.${name}: a lone surrogate`);
      }
      if (kind === 'uint32' || kind === 'int32')
        agree(
          t,
          wrap(msg, [...tag(field, VARINT), ...new Array(10).fill(0xff), 0x01]),
          `${msg}.${name}: a varint over 10 bytes`,
        );
      if (kind === 'fixed64') agree(t, wrap(msg, [...tag(field, I64), 1, 2, 3]), `${msg}.${name}: cut short`);
      if (kind === 'fixed32') agree(t, wrap(msg, [...tag(field, I32), 1]), `${msg}.${name}: cut short`);
    }
  },
);

t.test('repeated message fields, unknown fields and wrong wire types in every message', async (t) => {
  for (const [msg, name, field] of REPEATED) {
    agree(
      t,
      wrap(msg, [...lenField(field, []), ...UNKNOWN_FIELDS, ...lenField(field, [])]),
      `${msg}.${name}: two elements`,
    );
    agree(t, wrap(msg, varintField(field, 1)), `${msg}.${name}: a varint is skipped`);
  }
  for (const msg of ALL_MESSAGES) agree(t, wrap(msg, [...UNKNOWN_FIELDS, ...UNKNOWN_FIELDS]), `${msg}: unknown fields`);
});

t.test('AnyValue: every member, and the ones that can be malformed', async (t) => {
  const cases: Array<[string, number[]]> = [
    ['string', lenField(1, utf8('s'))],
    ['bool', varintField(2, 1)],
    ['int', varintField(3, -5n)],
    ['double', doubleField(4, 1.5)],
    ['array', lenField(5, lenField(1, varintField(2, 1)))],
    ['kvlist', lenField(6, lenField(1, lenField(1, utf8('k'))))],
    ['bytes', lenField(7, [1, 2])],
    ['a bool over 10 bytes', [...tag(2, VARINT), ...new Array(10).fill(0x80), 0]],
    ['an int over 10 bytes', [...tag(3, VARINT), ...new Array(10).fill(0xff), 0x01]],
    ['a double cut short', [...tag(4, I64), 1]],
    ['a kvlist with a bad key', lenField(6, lenField(1, lenField(1, [0xff])))],
  ];
  for (const [why, fields] of cases) agree(t, wrap('AnyValue', fields), why);
});

t.test('depth: refused past 100 messages below the request, where the decoder refuses', async (t) => {
  const nested = (levels: number, wrapper: (v: number[]) => number[]) => {
    let v = lenField(1, utf8('x'));
    for (let i = 0; i < levels; i++) v = wrapper(v);
    return Uint8Array.from(lenField(1, lenField(1, lenField(1, lenField(2, v)))));
  };
  const arrays = (v: number[]) => lenField(5, lenField(1, v));
  const kvlists = (v: number[]) => lenField(6, lenField(1, lenField(2, v)));
  for (const levels of [48, 49]) agree(t, nested(levels, arrays), `${levels} arrays`);
  for (const levels of [32, 33]) agree(t, nested(levels, kvlists), `${levels} kvlists`);
  t.throws(() => checkTraceRequest(nested(49, arrays)), { message: 'messages nested deeper than 100' });
});

t.test('malformed input', async (t) => {
  const cases: Array<[string, number[]]> = [
    ['a truncated tag', [0x80]],
    ['a truncated length', [...tag(1, LEN), 0x80]],
    ['a length past the end', [...tag(1, LEN), 5, 0]],
    ['a length past the end of the enclosing message', lenField(1, [...tag(3, LEN), 9, 0x61])],
    ['field number 0', [0x00, 0x00]],
    ['field number 0 in a span', [...wrap('Span', [0x02, 0x00])]],
    ['a group in an event', [...wrap('Event', [...tag(50, 3), ...tag(50, 4)])]],
    ['wire type 6', [...tag(1, 6), 0]],
    ['a tag over 32 bits', [...varint(2n ** 35n)]],
    ['a truncated id', [...wrap('Span', [...tag(1, LEN), 16, 1, 2])]],
  ];
  for (const [why, bytes] of cases) {
    agree(t, bytes, why);
    t.throws(() => checkTraceRequest(Uint8Array.from(bytes)), Error, why);
  }
});

t.test('a realistic request: the skeleton, and ids that are views of the body', async (t) => {
  const span = (id: number, events: number) => [
    ...lenField(1, new Array(16).fill(0xab)),
    ...lenField(2, new Array(8).fill(id)),
    ...lenField(4, new Array(8).fill(9)),
    ...lenField(5, utf8('chat gpt-4o')),
    ...varintField(6, 3),
    ...fixed64Field(7, 1_700_000_000_000_000_000n),
    ...fixed64Field(8, 1_700_000_001_500_000_000n),
    ...lenField(9, [...lenField(1, utf8('gen_ai.system')), ...lenField(2, lenField(1, utf8('openai')))]),
    ...Array.from({ length: events }, () =>
      lenField(11, [...fixed64Field(1, 1n), ...lenField(2, utf8('token'))]),
    ).flat(),
    ...lenField(13, [...lenField(1, new Array(16).fill(1)), ...lenField(2, new Array(8).fill(2))]),
    ...lenField(15, varintField(3, 1)),
  ];
  const request = Uint8Array.from(
    lenField(1, [
      ...lenField(1, lenField(1, lenField(1, utf8('service.name')))),
      ...lenField(2, [
        ...lenField(1, lenField(1, utf8('lib'))),
        ...lenField(2, span(1, 2)),
        ...lenField(2, span(2, 0)),
      ]),
    ]),
  );
  const result = checkTraceRequest(request);
  t.same(checked(request), {
    resourceSpans: [
      {
        scopeSpans: [
          {
            spans: [
              {
                traceId: new Array(16).fill(0xab),
                spanId: new Array(8).fill(1),
                parentSpanId: new Array(8).fill(9),
                startTimeUnixNano: 1_700_000_000_000_000_000n,
                endTimeUnixNano: 1_700_000_001_500_000_000n,
                events: [{}, {}],
              },
              {
                traceId: new Array(16).fill(0xab),
                spanId: new Array(8).fill(2),
                parentSpanId: new Array(8).fill(9),
                startTimeUnixNano: 1_700_000_000_000_000_000n,
                endTimeUnixNano: 1_700_000_001_500_000_000n,
              },
            ],
          },
        ],
      },
    ],
  });
  agree(t, request, 'the same as the decoder');
  const id = result.resourceSpans![0]!.scopeSpans![0]!.spans![0]!.spanId as Uint8Array;
  t.equal(id.buffer, request.buffer, 'ids are views of the body, not copies');
  t.same(checkTraceRequest(new Uint8Array(0)), {}, 'an empty request');
});
