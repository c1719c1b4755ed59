/**
 * The settled trace keys: a KeyFilter (core/keyFilter.ts) over the `trace_key` of every merged
 * summary that starts before a cutoff, a few minutes behind now. Finding the merged rows of the
 * traces whose parts wait (a list's, the merge's) then reads the keys of the summaries that start
 * after the cutoff — the newest row groups: the merge appends in about time order, and DuckDB's
 * zone maps on `start_ns` skip the rest — and, only for the keys the filter may hold, every key.
 *
 * Exact as long as the key of every merged row that starts before the cutoff is in the filter:
 * - the filter is built from the rows before its first cutoff before it is published;
 * - the cutoff moves (`advanceSettledKeys`, the store thread's background work, never beside a
 *   merge) only after the keys of the rows between the old cutoff and the new are added;
 * - the merge adds the keys of the rows it writes that start before the cutoff before it commits
 *   (`noteMergedKeys`), to the filter readers may still hold too;
 * - a reader takes the filter and its cutoff before it opens its snapshot, so a row it sees that
 *   starts before that cutoff was merged before the cutoff was published, or after it and added.
 * Until the filter is built (in the background after the start), every key is read, as before.
 */
import { KeyFilter } from '../../core/keyFilter.js';
import type { Database } from '../db.js';

export interface SettledKeys {
  filter: KeyFilter;
  /** Merged rows that start before this (ns) have their keys in `filter`. */
  cutoffNs: bigint;
}

/** How far behind now the cutoff is kept: a trace whose parts still arrive later than this after its start costs a read of every key. */
export const SETTLE_AFTER_NS = 10n * 60n * 1_000_000_000n;
/** A key in this many never added answers "maybe" (and its merged row is looked for among all). */
const FALSE_POSITIVES = 1e-5;
/** The filter is made for half as many keys again as there are summaries, and made again once it holds that many. */
const HEADROOM = 1.5;
const MIN_CAPACITY = 1_000_000;

interface State {
  current: SettledKeys | null;
  /** The filter before the last rebuild: readers that took it may still be reading. */
  previous: KeyFilter | null;
}
const states = new WeakMap<Database, State>();
const stateOf = (db: Database): State => {
  let s = states.get(db);
  if (!s) states.set(db, (s = { current: null, previous: null }));
  return s;
};

/** The filter and its cutoff to read with, or null while there is none (read every key). */
export function settledKeys(db: Database): SettledKeys | null {
  return states.get(db)?.current ?? null;
}

/**
 * The keys whose merged rows may start before the cutoff, of those given as the columns of
 * `keyHalvesSql` (high and low halves, as `Transaction.columns` answers them).
 */
export function mayBeSettled(settled: SettledKeys, columns: unknown[][]): bigint[] {
  const found: bigint[] = [];
  const [highs, lows] = halvesOf(columns);
  for (let i = 0; i < highs.length; i++)
    if (settled.filter.mayHave(highs[i]!, lows[i]!)) found.push((BigInt(highs[i]!) << 32n) | BigInt(lows[i]!));
  return found;
}

/** The two columns of `keyHalvesSql` (none when the answer had no rows). */
function halvesOf([high, low]: unknown[][]): [number[], number[]] {
  return [(high ?? []) as number[], (low ?? []) as number[]];
}

/** A key column's two halves, for `mayBeSettled`: `SELECT ${keyHalvesSql('k')} FROM …`. */
export const keyHalvesSql = (key: string) => `(${key} >> 32)::UINTEGER AS high, (${key} & 4294967295)::UINTEGER AS low`;

/**
 * The merge's rows that start before the cutoff (their keys as `keyHalvesSql`'s columns): into
 * the filter, and the previous one, before the merge commits.
 */
export function noteMergedKeys(db: Database, columns: unknown[][]): void {
  const s = states.get(db);
  if (!s?.current) return;
  const [highs, lows] = halvesOf(columns);
  for (let i = 0; i < highs.length; i++) {
    s.current.filter.add(highs[i]!, lows[i]!);
    s.previous?.add(highs[i]!, lows[i]!);
  }
}

/**
 * Moves the cutoff to `nowNs - SETTLE_AFTER_NS`, adding the keys of the rows it passes; builds the
 * filter first when there is none or the one there is holds more keys than it was made for. Run by
 * the store thread's background work, never beside a merge (which adds keys itself).
 */
export async function advanceSettledKeys(db: Database, nowNs: bigint): Promise<void> {
  const s = stateOf(db);
  const cutoffNs = nowNs - SETTLE_AFTER_NS;
  const current = s.current;
  if (current && current.filter.added <= current.filter.capacity) {
    if (cutoffNs <= current.cutoffNs) return;
    await addKeys(db, current.filter, current.cutoffNs, cutoffNs);
    s.current = { filter: current.filter, cutoffNs };
    return;
  }
  const [row] = await db.query<{ n: number }>('SELECT count(*)::BIGINT::DOUBLE AS n FROM traces');
  const filter = new KeyFilter(Math.max(MIN_CAPACITY, HEADROOM * Number(row?.n ?? 0)), FALSE_POSITIVES);
  await addKeys(db, filter, null, cutoffNs);
  s.previous = current?.filter ?? null;
  s.current = { filter, cutoffNs };
}

/** Adds the keys of the merged rows that start in [fromNs, toNs) (from the first row when null). */
async function addKeys(db: Database, filter: KeyFilter, fromNs: bigint | null, toNs: bigint): Promise<void> {
  await db.streamColumns(
    `SELECT ${keyHalvesSql('trace_key')} FROM traces
      WHERE start_ns < $1 ${fromNs === null ? '' : 'AND start_ns >= $2'}`,
    fromNs === null ? [toNs] : [toNs, fromNs],
    (columns, rows) => {
      const [high, low] = halvesOf(columns);
      for (let i = 0; i < rows; i++) filter.add(high[i]!, low[i]!);
    },
  );
}
