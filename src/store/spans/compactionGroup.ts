/**
 * Which small segments the next compacted file takes (compaction.ts picks the app and day; this
 * picks the files). Small segments of a day come from every compute worker at once, so their time
 * ranges overlap in pairs; a compacted file that ends inside such a pair overlaps the next one, and
 * every trace (or window) in the overlap is read from both files. Taking the files in order of
 * their start times, and ending the file where it overlaps the files left least, keeps a day's
 * compacted files nearly disjoint: on a peers load of 1M spans, traces whose range touched two
 * compacted files went from 29.7% to 0.6% (simulated on that load's small segments;
 * native-bench/README, "Compacted files that barely overlap").
 */

/** What the choice needs of a small segment. */
export interface SmallSegment {
  rows: number;
  minStartNs: bigint;
  maxStartNs: bigint;
}

/**
 * How many of `files` (small segments of one app and day, ordered by start time) the next
 * compacted file takes. At most as many as fit in `targetRows`, and at least two when there are
 * two (one file alone is rewritten only when it is all there is); among the counts whose rows reach
 * half the target (or the largest, if none does), the one whose file overlaps the first file left
 * by the least time, the larger count on a tie.
 */
export function compactionCut(files: readonly SmallSegment[], targetRows: number): number {
  let fit = 0;
  let rows = 0;
  for (const f of files) {
    if (fit >= 2 && rows + f.rows > targetRows) break;
    rows += f.rows;
    fit++;
  }
  let best = fit;
  let bestOverlap: bigint | null = null;
  let taken = 0;
  let maxStart: bigint | null = null;
  for (let k = 1; k <= fit; k++) {
    const f = files[k - 1]!;
    taken += f.rows;
    if (maxStart === null || f.maxStartNs > maxStart) maxStart = f.maxStartNs;
    const candidate = k === fit || (k >= 2 && 2 * taken >= targetRows);
    if (!candidate) continue;
    const next = files[k];
    const overlap = next === undefined || next.minStartNs > maxStart ? 0n : maxStart - next.minStartNs;
    if (bestOverlap === null || overlap <= bestOverlap) {
      best = k;
      bestOverlap = overlap;
    }
  }
  return best;
}
