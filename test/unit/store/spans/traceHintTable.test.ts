/**
 * src/store/spans/traceHintTable.ts: a trace's hint is its range in whole seconds, widened by every
 * note; a pair of slots keeps the two traces that ended last, in whatever order they come; apps do not
 * see each other's hints.
 */
import t from 'tap';
import type { PartRow } from '../../../../src/ingest/summaryParts.js';
import { TraceHints } from '../../../../src/store/spans/traceHintTable.js';

const S = 1_000_000_000n;
const [tenant, app, other] = ['tenant-1', 'app-1', 'app-2'];

t.test('a range is kept in whole seconds that cover it, and widened by later notes', async (t) => {
  const hints = new TraceHints(1024);
  t.equal(hints.rangeOf(tenant, app, 'a'), null, 'nothing noted, no hint');
  hints.note(tenant, app, 'a', 1_500_000_000n, 3n * S);
  t.same(
    hints.rangeOf(tenant, app, 'a'),
    { fromNs: 1n * S, toNs: 3n * S },
    'start rounded down, an end on a second kept',
  );
  hints.note(tenant, app, 'a', 2n * S, 3n * S + 1n);
  t.same(
    hints.rangeOf(tenant, app, 'a'),
    { fromNs: 1n * S, toNs: 4n * S },
    'a later part past the end widens it, rounded up',
  );
  hints.noteSeconds(tenant, app, 'a', 0, 2);
  t.same(
    hints.rangeOf(tenant, app, 'a'),
    { fromNs: 0n, toNs: 4n * S },
    'an earlier part widens the start, never narrows the end',
  );
  t.equal(hints.rangeOf(tenant, other, 'a'), null, 'another app has no hint for the same trace id');
  t.equal(hints.rangeOf('tenant-2', app, 'a'), null, 'nor another tenant');
});

t.test('times a slot cannot hold are not noted', async (t) => {
  const hints = new TraceHints(1024);
  hints.note(tenant, app, 'before-1970', -1n, 5n * S);
  hints.noteSeconds(tenant, app, 'backwards', 10, 9);
  hints.noteSeconds(tenant, app, 'after-2106', 10, 2 ** 32);
  for (const id of ['before-1970', 'backwards', 'after-2106']) t.equal(hints.rangeOf(tenant, app, id), null, id);
  hints.noteSeconds(tenant, app, 'last-second', 2 ** 32 - 2, 2 ** 32 - 1);
  t.same(hints.rangeOf(tenant, app, 'last-second'), { fromNs: BigInt(2 ** 32 - 2) * S, toNs: BigInt(2 ** 32 - 1) * S });
});

t.test('a pair of slots keeps the two traces that ended last', async (t) => {
  const hints = new TraceHints(2); // one pair: every trace hashes to it
  hints.noteSeconds(tenant, app, 'a', 1, 10);
  hints.noteSeconds(tenant, app, 'b', 1, 20);
  t.same(
    [hints.rangeOf(tenant, app, 'a')?.toNs, hints.rangeOf(tenant, app, 'b')?.toNs],
    [10n * S, 20n * S],
    'the first two take the empty slots',
  );
  hints.noteSeconds(tenant, app, 'b', 5, 25);
  t.same(
    hints.rangeOf(tenant, app, 'b'),
    { fromNs: 1n * S, toNs: 25n * S },
    'a trace in the second slot is widened in place',
  );
  hints.noteSeconds(tenant, app, 'c', 1, 30);
  t.equal(
    hints.rangeOf(tenant, app, 'a'),
    null,
    'a third takes the slot of the one that ended first (a, in the first slot)',
  );
  t.ok(hints.rangeOf(tenant, app, 'b') && hints.rangeOf(tenant, app, 'c'), 'b and c are kept');
  hints.noteSeconds(tenant, app, 'c', 1, 31);
  t.equal(hints.rangeOf(tenant, app, 'c')?.toNs, 31n * S, 'a trace in the first slot is widened in place');
  hints.noteSeconds(tenant, app, 'd', 1, 40);
  t.equal(hints.rangeOf(tenant, app, 'b'), null, 'then b, in the second slot, ended first');
  t.same([hints.rangeOf(tenant, app, 'c')?.toNs, hints.rangeOf(tenant, app, 'd')?.toNs], [31n * S, 40n * S]);
  hints.noteSeconds(tenant, app, 'old', 1, 30);
  t.equal(
    hints.rangeOf(tenant, app, 'old'),
    null,
    'a trace that ended before both takes no slot (the fill notes traces in any order)',
  );
  t.ok(hints.rangeOf(tenant, app, 'c') && hints.rangeOf(tenant, app, 'd'), 'c and d are kept');
  hints.noteSeconds(tenant, app, 'e', 1, 36);
  t.equal(hints.rangeOf(tenant, app, 'c'), null, 'one that ended after the first of them takes its slot');
});

t.test('the table has a power of two slots, at least two', async (t) => {
  const one = new TraceHints(0);
  one.noteSeconds(tenant, app, 'a', 1, 2);
  one.noteSeconds(tenant, app, 'b', 1, 3);
  t.ok(one.rangeOf(tenant, app, 'a') && one.rangeOf(tenant, app, 'b'), 'a table asked for no slots still has a pair');
  const five = new TraceHints(5); // four slots
  const ids = Array.from({ length: 64 }, (_, i) => `trace-${i}`);
  for (const [i, id] of ids.entries()) five.noteSeconds(tenant, app, id, 1, 100 + i);
  t.equal(ids.filter((id) => five.rangeOf(tenant, app, id) !== null).length, 4, 'five slots asked, four kept');
});

t.test('apps past the seeds cache are hashed again, alike', async (t) => {
  const hints = new TraceHints(1 << 16);
  hints.noteSeconds(tenant, app, 'a', 7, 8);
  for (let i = 0; i < 4100; i++) hints.noteSeconds(tenant, `app-${i}`, 'x', 1, 2);
  t.same(
    hints.rangeOf(tenant, app, 'a'),
    { fromNs: 7n * S, toNs: 8n * S },
    'the first app finds its hint after the cache started over',
  );
});

t.test("a summary part notes its trace's range in its app", async (t) => {
  const hints = new TraceHints(1024);
  const part = (traceId: string, appId: string, startNs: bigint, endNs: bigint) =>
    [
      tenant,
      appId,
      'environment-1',
      traceId,
      startNs,
      endNs,
      0,
      0n,
      'root',
      null,
      null,
      0,
      0,
      1,
      0,
      1,
      [],
      null,
      null,
      null,
      null,
      null,
      null,
      null,
    ] as PartRow;
  hints.noteParts([part('a', app, 2n * S, 3n * S), part('a', app, 1n * S, 2n * S), part('b', other, 7n * S, 9n * S)]);
  t.same(
    hints.rangeOf(tenant, app, 'a'),
    { fromNs: 1n * S, toNs: 3n * S },
    "both parts of a's, by its tenant, app and trace id",
  );
  t.same(hints.rangeOf(tenant, other, 'b'), { fromNs: 7n * S, toNs: 9n * S });
  t.equal(hints.rangeOf(tenant, app, 'b'), null, 'not in the other app');
});
