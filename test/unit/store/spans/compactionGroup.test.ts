/**
 * src/store/spans/compactionGroup.ts: a compacted file takes as many small segments (by start time)
 * as fit in the target, at least two, and ends where it overlaps the files left least, keeping at
 * least half the target.
 */
import t from 'tap';
import { compactionCut, type SmallSegment } from '../../../../src/store/spans/compactionGroup.js';

/** A small segment of `rows` rows starting in [from, to] (seconds, as nanoseconds). */
const seg = (rows: number, from: number, to: number): SmallSegment => ({ rows, minStartNs: BigInt(from) * 1_000_000_000n, maxStartNs: BigInt(to) * 1_000_000_000n });

t.test('files that do not overlap: as many as fit in the target', async (t) => {
  const files = [seg(40, 0, 9), seg(40, 10, 19), seg(40, 20, 29), seg(40, 30, 39)];
  t.equal(compactionCut(files, 100), 2, 'two fit in 100 rows, a third would not');
  t.equal(compactionCut(files, 160), 4, 'all fit');
  t.equal(compactionCut(files, 1000), 4, 'fewer than the target: all of them');
});

t.test('at least two files, even past the target; one only when it is all there is', async (t) => {
  t.equal(compactionCut([seg(500, 0, 9), seg(500, 10, 19), seg(500, 20, 29)], 100), 2);
  t.equal(compactionCut([seg(500, 0, 9)], 100), 1, 'a day\'s last small file alone');
  t.equal(compactionCut([], 100), 0, 'nothing to take');
});

t.test('two workers\' files overlap in pairs: the file ends between pairs, not inside one', async (t) => {
  // Pairs (a, b) of one window each, the second worker's a little later; pairs overlap a little.
  const files = [seg(30, 0, 100), seg(30, 2, 102), seg(30, 101, 200), seg(30, 103, 202), seg(30, 201, 300), seg(30, 203, 302)];
  // Fitting alone would end after the fifth file, inside the third pair (97 s of overlap with the
  // sixth); ending after the fourth overlaps the fifth by 1 s.
  t.equal(compactionCut(files, 150), 4);
  t.equal(compactionCut(files, 180), 6, 'when everything fits, nothing is left to overlap');
});

t.test('the cut keeps at least half the target, and prefers the larger file on a tie', async (t) => {
  // Ending after the first pair would overlap nothing, but is under half of the target.
  const files = [seg(20, 0, 10), seg(20, 1, 11), seg(100, 20, 100), seg(100, 21, 101), seg(100, 50, 150)];
  t.equal(compactionCut(files, 250), 4, 'the cut inside the pairs that reach half the target, least overlap');
  const disjoint = [seg(60, 0, 9), seg(60, 10, 19), seg(60, 20, 29)];
  t.equal(compactionCut(disjoint, 200), 3, 'no overlap anywhere: the largest count');
});

t.test('when no count reaches half the target, the largest that fits is taken', async (t) => {
  // Two files fit (the minimum), under half of the target: the cut is the fit, whatever it overlaps.
  const files = [seg(10, 0, 100), seg(10, 1, 101), seg(1000, 50, 150)];
  t.equal(compactionCut(files, 1000), 2);
});
