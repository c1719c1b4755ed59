import t from 'tap';
import { AdmissionIndex } from '../../../src/core/ingest/admission.js';
import { ReferenceAdmissionIndex } from '../../helpers/admissionReference.js';
import { seededRandom } from '../../helpers/random.js';

/** Ids as the server has them: lowercase hex, 16 digits a span id and 32 a trace id. */
const traceId = (name: string) => name.padStart(32, '0');
const spanId = (name: string) => name.padStart(16, '0');

const HEX_DIGITS = [...'0123456789abcdef'];

const req = (scope: string, spans: [string, string][]) => {
  const traceIds = [...new Set(spans.map(([tr]) => traceId(tr)))];
  return {
    scope,
    traceIds,
    traceOf: spans.map(([tr]) => traceIds.indexOf(traceId(tr))),
    spanIds: spans.map(([, s]) => spanId(s)),
  };
};

t.test('duplicates and the per-trace bound, within a request and across requests', async (t) => {
  const index = new AdmissionIndex(3, 1000);
  const a = index.admit(
    req('s', [
      ['e1', 'a'],
      ['e1', 'b'],
      ['e1', 'a'],
      ['e2', 'f'],
    ]),
  );
  t.same(a.drop, [2], 'the second copy of a span in one request is a duplicate');
  t.equal(a.duplicates, 1);
  t.equal(a.overBound, 0);
  index.settle(a.ticket, true);
  const b = index.admit(
    req('s', [
      ['e1', 'a'],
      ['e1', 'c'],
      ['e1', 'd'],
      ['e2', 'ff'],
    ]),
  );
  t.same(b.drop, [0, 2], 'a replayed span and the span past the bound');
  t.equal(b.duplicates, 1);
  t.equal(b.overBound, 1);
  t.equal(index.size, 5, 'e1: a b c, e2: f ff');
  const other = index.admit(req('other-scope', [['e1', 'a']]));
  t.same(other.drop, [], 'span ids are unique per scope only');
  const otherTrace = index.admit(req('s', [['e3', 'a']]));
  t.same(otherTrace.drop, [], 'and per trace');
});

t.test('a ticket that fails is taken back; a durable one stays', async (t) => {
  const index = new AdmissionIndex(10, 1000);
  const failed = index.admit(
    req('s', [
      ['e', 'a'],
      ['e', 'b'],
    ]),
  );
  index.settle(failed.ticket, false);
  t.equal(index.size, 0);
  const retry = index.admit(
    req('s', [
      ['e', 'a'],
      ['e', 'b'],
    ]),
  );
  t.same(retry.drop, [], 'the retry of a failed request is not a replay');
  index.settle(retry.ticket, true);
  index.settle(retry.ticket, false);
  t.equal(index.size, 2, 'a ticket settles once; later settles change nothing');
  t.same(index.admit(req('s', [['e', 'a']])).drop, [0]);
  const partly = index.admit(
    req('s', [
      ['e', 'c'],
      ['f', 'a'],
    ]),
  );
  index.settle(partly.ticket, false);
  t.equal(index.size, 2, 'a failed ticket takes back only what it added');
  t.same(
    index.admit(
      req('s', [
        ['e', 'a'],
        ['e', 'b'],
        ['e', 'c'],
        ['f', 'a'],
      ]),
    ).drop,
    [0, 1],
  );
});

t.test("a failed ticket's spans leave the trace's other spans known, however they were placed", async (t) => {
  // 400 span ids in one trace's block: taking 200 back leaves holes in the middle of runs of ids.
  const index = new AdmissionIndex(10_000, 1_000_000);
  const random = seededRandom(42);
  const ids = Array.from({ length: 400 }, () =>
    Array.from({ length: 16 }, () => HEX_DIGITS[Math.floor(random() * 16)]!).join(''),
  );
  const rows = (from: number, to: number) => ({
    scope: 's',
    traceIds: [traceId('e')],
    traceOf: ids.slice(from, to).map(() => 0),
    spanIds: ids.slice(from, to),
  });
  const kept = index.admit(rows(0, 200));
  index.settle(kept.ticket, true);
  // The ids taken back sat among the kept ones, in the same runs of the block.
  const failed = index.admit(rows(200, 400));
  index.settle(failed.ticket, false);
  t.equal(index.size, 200);
  const again = index.admit(rows(0, 400));
  t.same(
    again.drop,
    Array.from({ length: 200 }, (_, i) => i),
    'every kept id is still a duplicate; every one taken back is new',
  );
  index.settle(again.ticket, false);
  // A ticket of both kinds: the odd ids, half of them kept (duplicates), the other half new.
  const odd = ids.filter((_, i) => i % 2 === 1);
  const both = index.admit({ scope: 's', traceIds: [traceId('e')], traceOf: odd.map(() => 0), spanIds: odd });
  t.equal(both.duplicates, 100);
  index.settle(both.ticket, false);
  t.same(
    index.admit(rows(0, 400)).drop,
    Array.from({ length: 200 }, (_, i) => i),
    'and after a ticket of both kinds was taken back',
  );
});

t.test('the least recently active traces are forgotten past the capacity', async (t) => {
  const index = new AdmissionIndex(100, 4);
  const first = index.admit(
    req('s', [
      ['01d', '1'],
      ['01d', '2'],
    ]),
  );
  index.settle(first.ticket, true);
  const touch = index.admit(
    req('s', [
      ['cee', '1'],
      ['cee', '2'],
    ]),
  );
  index.settle(touch.ticket, true);
  t.equal(index.size, 4);
  const third = index.admit(req('s', [['0e0', '1']]));
  t.equal(index.size, 3, 'the oldest trace went');
  t.same(index.admit(req('s', [['01d', '1']])).drop, [], 'a forgotten trace counts again from nothing');
  t.same(index.admit(req('s', [['cee', '1']])).drop, [0], 'a remembered one does not');
  // Taking back a ticket whose trace was evicted meanwhile leaves the total right.
  const big = new AdmissionIndex(100, 2);
  const pending = big.admit(req('s', [['a', '1']]));
  big.admit(
    req('s', [
      ['b', '1'],
      ['b', '2'],
    ]),
  );
  big.settle(pending.ticket, false);
  t.equal(big.size, 2);
  t.same(big.admit(req('s', [['b', '2']])).drop, [0], 'the trace that evicted it is whole');
  index.settle(third.ticket, true);
});

t.test('remember: spans replayed from the log at start are known, without judging them', async (t) => {
  const index = new AdmissionIndex(1, 1000);
  index.remember('s', [traceId('e'), traceId('e'), traceId('e')], [spanId('a'), spanId('b'), spanId('a')]);
  t.equal(index.size, 2, 'the bound is not applied to what is already stored');
  const again = index.admit(
    req('s', [
      ['e', 'a'],
      ['e', 'c'],
    ]),
  );
  t.same(again.drop, [0, 1]);
  t.equal(again.duplicates, 1);
  t.equal(again.overBound, 1);
  const small = new AdmissionIndex(10, 1);
  small.remember('s', [traceId('d'), traceId('e')], [spanId('1'), spanId('2')]);
  t.equal(small.size, 1, 'remembering also keeps to the capacity');
  const tiny = new AdmissionIndex(10, 1);
  tiny.admit(
    req('s', [
      ['e', 'a'],
      ['e', 'b'],
    ]),
  );
  t.equal(tiny.size, 0, 'a trace larger than the whole capacity is not kept at all');
});

t.test('ids that are not lowercase hex of their length still decide (nothing the server admits)', async (t) => {
  const index = new AdmissionIndex(10, 1000);
  const odd = {
    scope: 's',
    traceIds: ['t1', 'T'.repeat(32)],
    traceOf: [0, 0, 0, 1, 1],
    spanIds: ['a', 'b', 'a', 'A'.repeat(16), 'z'.repeat(16)],
  };
  const a = index.admit(odd);
  t.same(a.drop, [2], 'a repeated odd id is a duplicate; distinct ones are distinct');
  index.settle(a.ticket, true);
  t.same(index.admit(odd).drop, [0, 1, 2, 3, 4], 'and all of them are known afterwards');
  t.same(
    index.admit({ scope: 's', traceIds: ['t1', 't2'], traceOf: [1, 0, 0], spanIds: ['a', 'é', `${'0'.repeat(15)}é`] })
      .drop,
    [],
    'other traces, characters past ASCII',
  );
});

/** Random operations on both indexes, compared after each; returns the first difference. */
function differential(
  seed: number,
  o: {
    capacity: number;
    maxSpans: number;
    traces: number;
    spanPool: number;
    ops: number;
    maxRows: number;
    tracesPerRequest?: number;
  },
) {
  const random = seededRandom(seed);
  const pick = <T>(xs: readonly T[]): T => xs[Math.floor(random() * xs.length)]!;
  const hex = (digits: number) => Array.from({ length: digits }, () => pick(HEX_DIGITS)).join('');
  const traces = Array.from({ length: o.traces }, () => hex(32));
  // A pool shared by the traces, so one span id recurs in several traces and scopes.
  const spans = Array.from({ length: o.spanPool }, () => hex(16));
  const scopes = ['tenant/app/prod', 'tenant/app/dev', 'other/app/prod'];
  const fresh = new AdmissionIndex(o.maxSpans, o.capacity);
  const reference = new ReferenceAdmissionIndex(o.maxSpans, o.capacity);
  const pending: [number, number][] = [];
  const seen = { duplicates: 0, overBound: 0, failed: 0, evicted: 0, remembered: 0 };
  const rows = () => {
    const chosen = Array.from({ length: 1 + Math.floor(random() * (o.tracesPerRequest ?? 4)) }, () => pick(traces));
    return Array.from({ length: 1 + Math.floor(random() * o.maxRows) }, () => [pick(chosen), pick(spans)] as const);
  };
  for (let op = 0; op < o.ops; op++) {
    const roll = random();
    const before = reference.size;
    let what: string;
    if (roll < 0.55) {
      const picked = rows();
      const traceIds = [...new Set(picked.map(([tr]) => tr))];
      // The coordinator names a trace whose rows the store already holds and admits none of them.
      if (random() < 0.1) traceIds.push(pick(traces.filter((tr) => !traceIds.includes(tr))));
      const r = {
        scope: pick(scopes),
        traceIds,
        traceOf: picked.map(([tr]) => traceIds.indexOf(tr)),
        spanIds: picked.map(([, s]) => s),
      };
      const want = reference.admit(r);
      const got = fresh.admit(r);
      what = `admit ${JSON.stringify(r)}`;
      if (
        JSON.stringify([got.drop, got.duplicates, got.overBound]) !==
        JSON.stringify([want.drop, want.duplicates, want.overBound])
      )
        return { op, what, got, want };
      pending.push([want.ticket, got.ticket]);
      seen.duplicates += want.duplicates;
      seen.overBound += want.overBound;
      if (reference.size < before + picked.length - want.drop.length) seen.evicted++;
    } else if (roll < 0.9 && pending.length > 0) {
      const [ref, mine] = pending.splice(Math.floor(random() * pending.length), 1)[0]!;
      const durable = random() < 0.6;
      reference.settle(ref, durable);
      fresh.settle(mine, durable);
      // Now and then a ticket settles twice, as a caller's second thought would.
      if (random() < 0.1) {
        reference.settle(ref, !durable);
        fresh.settle(mine, !durable);
      }
      if (!durable) seen.failed++;
      what = `settle ${mine} ${durable}`;
    } else {
      const picked = rows();
      const scope = pick(scopes);
      reference.remember(
        scope,
        picked.map(([tr]) => tr),
        picked.map(([, s]) => s),
      );
      fresh.remember(
        scope,
        picked.map(([tr]) => tr),
        picked.map(([, s]) => s),
      );
      seen.remembered++;
      what = 'remember';
    }
    if (fresh.size !== reference.size) return { op, what, got: fresh.size, want: reference.size };
  }
  return { difference: null, seen };
}

t.test('the index answers as the reference index does, over random operations', async (t) => {
  const shapes = [
    // Small: constant eviction, the bound often reached, tickets failing across evictions.
    { capacity: 40, maxSpans: 5, traces: 30, spanPool: 12, ops: 4000, maxRows: 12 },
    // Many live traces, their blocks grown to 64 and 128 slots, trace buckets with chains.
    { capacity: 6000, maxSpans: 50, traces: 3000, spanPool: 400, ops: 3000, maxRows: 60 },
    // Many traces of a few spans each.
    { capacity: 3000, maxSpans: 2, traces: 5000, spanPool: 50, ops: 4000, maxRows: 4 },
    // Requests larger than the capacity: blocks of thousands of slots, taken back and evicted.
    { capacity: 8, maxSpans: 1500, traces: 4, spanPool: 5000, ops: 60, maxRows: 3000 },
    // Requests of more new traces than the capacity and its slack: the trace table and the slab grow.
    { capacity: 8, maxSpans: 2, traces: 20000, spanPool: 3, ops: 30, maxRows: 9000, tracesPerRequest: 9000 },
  ];
  for (const [i, shape] of shapes.entries()) {
    for (const seed of [1, 2, 3]) {
      const result = differential(seed * 7919 + i, shape);
      t.same(result, { difference: null, seen: result.seen }, `shape ${i}, seed ${seed}: no difference`);
      if (!('seen' in result) || !result.seen) continue;
      const s = result.seen;
      t.ok(
        s.duplicates > 0 && s.failed > 0 && s.evicted > 0 && s.remembered > 0 && (i === 1 || s.overBound > 0),
        `shape ${i}, seed ${seed}: every case occurred ${JSON.stringify(s)}`,
      );
    }
  }
});

t.test('ids remembered as words are the same ids remembered as text', async (t) => {
  // What the start reads from DuckDB: each id cut into eight-digit words, as unsigned integers.
  const words = (id: string) =>
    Array.from({ length: id.length / 8 }, (_, k) => Number.parseInt(id.slice(k * 8, k * 8 + 8), 16) | 0);
  const random = seededRandom(53);
  const hex = (n: number) => Array.from({ length: n }, () => HEX_DIGITS[Math.floor(random() * 16)]).join('');
  const spans = Array.from({ length: 500 }, (_, i) => ({
    trace: i % 7 === 0 ? 'ffffffff' + hex(24) : hex(32),
    span: hex(16),
  }));
  const asText = new AdmissionIndex(10_000, 10_000);
  asText.remember(
    's',
    spans.map((s) => s.trace),
    spans.map((s) => s.span),
  );
  const asWords = new AdmissionIndex(10_000, 10_000);
  asWords.rememberWords('s', Int32Array.from(spans.flatMap((s) => [...words(s.trace), ...words(s.span)])));
  t.equal(asWords.size, asText.size, 'as many spans remembered');
  t.equal(asWords.size, 500);
  const resent = {
    scope: 's',
    traceIds: [...new Set(spans.map((s) => s.trace))],
    traceOf: [] as number[],
    spanIds: spans.map((s) => s.span),
  };
  resent.traceOf = spans.map((s) => resent.traceIds.indexOf(s.trace));
  t.equal(asWords.admit(resent).duplicates, 500, 'every re-sent span is known from its words');
  t.equal(asText.admit(resent).duplicates, 500, 'and from its text');
  t.equal(asWords.admit(req('other', [['a', '1']])).drop.length, 0, 'in their own scope only');
});
