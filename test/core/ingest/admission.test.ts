import t from 'tap';
import { AdmissionIndex } from '../../../src/core/ingest/admission.js';

const req = (scope: string, spans: [string, string][]) => {
  const traceIds = [...new Set(spans.map(([tr]) => tr))];
  return { scope, traceIds, traceOf: spans.map(([tr]) => traceIds.indexOf(tr)), spanIds: spans.map(([, s]) => s) };
};

t.test('duplicates and the per-trace bound, within a request and across requests', async (t) => {
  const index = new AdmissionIndex(3, 1000);
  const a = index.admit(req('s', [['t1', 'a'], ['t1', 'b'], ['t1', 'a'], ['t2', 'x']]));
  t.same(a.drop, [2], 'the second copy of a span in one request is a duplicate');
  t.equal(a.duplicates, 1);
  t.equal(a.overBound, 0);
  index.settle(a.ticket, true);
  const b = index.admit(req('s', [['t1', 'a'], ['t1', 'c'], ['t1', 'd'], ['t2', 'y']]));
  t.same(b.drop, [0, 2], 'a replayed span and the span past the bound');
  t.equal(b.duplicates, 1);
  t.equal(b.overBound, 1);
  t.equal(index.size, 5, 't1: a b c, t2: x y');
  const other = index.admit(req('other-scope', [['t1', 'a']]));
  t.same(other.drop, [], 'span ids are unique per scope only');
});

t.test('a ticket that fails is taken back; a durable one stays', async (t) => {
  const index = new AdmissionIndex(10, 1000);
  const failed = index.admit(req('s', [['t', 'a'], ['t', 'b']]));
  index.settle(failed.ticket, false);
  t.equal(index.size, 0);
  const retry = index.admit(req('s', [['t', 'a'], ['t', 'b']]));
  t.same(retry.drop, [], 'the retry of a failed request is not a replay');
  index.settle(retry.ticket, true);
  index.settle(retry.ticket, false);
  t.equal(index.size, 2, 'a ticket settles once; later settles change nothing');
  t.same(index.admit(req('s', [['t', 'a']])).drop, [0]);
});

t.test('the least recently active traces are forgotten past the capacity', async (t) => {
  const index = new AdmissionIndex(100, 4);
  const first = index.admit(req('s', [['old', '1'], ['old', '2']]));
  index.settle(first.ticket, true);
  const touch = index.admit(req('s', [['keep', '1'], ['keep', '2']]));
  index.settle(touch.ticket, true);
  t.equal(index.size, 4);
  const third = index.admit(req('s', [['new', '1']]));
  t.equal(index.size, 3, 'the oldest trace went');
  t.same(index.admit(req('s', [['old', '1']])).drop, [], 'a forgotten trace counts again from nothing');
  t.same(index.admit(req('s', [['keep', '1']])).drop, [0], 'a remembered one does not');
  // Taking back a ticket whose trace was evicted meanwhile leaves the total right.
  const big = new AdmissionIndex(100, 2);
  const pending = big.admit(req('s', [['x', '1']]));
  big.admit(req('s', [['y', '1'], ['y', '2']]));
  big.settle(pending.ticket, false);
  t.equal(big.size, 2);
  index.settle(third.ticket, true);
});

t.test('remember: spans replayed from the log at start are known, without judging them', async (t) => {
  const index = new AdmissionIndex(1, 1000);
  index.remember('s', ['t', 't', 't'], ['a', 'b', 'a']);
  t.equal(index.size, 2, 'the bound is not applied to what is already stored');
  const again = index.admit(req('s', [['t', 'a'], ['t', 'c']]));
  t.same(again.drop, [0, 1]);
  t.equal(again.duplicates, 1);
  t.equal(again.overBound, 1);
  index.remember('s', ['u'], ['z']);
  const small = new AdmissionIndex(10, 1);
  small.remember('s', ['p', 'q'], ['1', '2']);
  t.equal(small.size, 1, 'remembering also keeps to the capacity');
  const tiny = new AdmissionIndex(10, 1);
  tiny.admit(req('s', [['t', 'a'], ['t', 'b']]));
  t.equal(tiny.size, 0, 'a trace larger than the whole capacity is not kept at all');
});
