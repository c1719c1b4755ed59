/**
 * Trace hints: where a trace's spans probably are, known before its summary is read, so a trace by
 * id reads its summary and its spans at once (two statements on two connections) instead of one
 * after the other (store/spans/reads.ts, `readTrace`).
 *
 * A hint is the trace's time range in whole seconds, in a fixed table of typed arrays (12 bytes a
 * slot, nothing for the GC to walk): a hash of app and trace id picks a pair of slots, which keeps
 * the two traces that ended last. It is only a hint: a newer trace may take its slot, and a hint
 * may be stale; the reader checks the summary's range against it and, when the hint does not cover
 * it, reads the spans again in the summary's range. Answers never depend on it, and the table's
 * size is its slot count whatever the store holds.
 */
import type { PartRow } from './traceParts.js';

/** A hint's range: spans of the trace start in [fromNs, toNs] if the hint is current. */
export interface HintedRange {
  fromNs: bigint;
  toNs: bigint;
}

/**
 * Slots of a table by default: 2^21, 24 MiB, which keeps the hints of most traces of a 10M-span store
 * and of every recent one (native-bench/RESULTS.md, "Figures behind the code").
 */
export const DEFAULT_TRACE_HINT_SLOTS = 2 ** 21;

const NS_PER_SECOND = 1_000_000_000n;
/** Seconds are kept as unsigned 32-bit numbers: times outside [1970, 2106) are not hinted. */
const MAX_SECOND = 0xffff_ffff;

/** 32-bit FNV-1a of `text`, from `seed`. */
function fnv(text: string, seed: number): number {
  let h = seed >>> 0;
  for (let i = 0; i < text.length; i++) h = Math.imul(h ^ text.charCodeAt(i), 0x0100_0193);
  return h >>> 0;
}

/** The seeds of an app's hashes: one trace id has its own slot and fingerprint in each app. */
interface AppSeeds {
  slot: number;
  check: number;
}

/** Apps whose seeds are kept; past it the cache starts over (seeds cost two hashes to remake). */
const SEEDS_KEPT = 4096;

export class TraceHints {
  private readonly checks: Uint32Array;
  private readonly starts: Uint32Array;
  private readonly ends: Uint32Array;
  /** Masks a hash to the first slot of a pair (an even index). */
  private readonly pairMask: number;
  private readonly seeds = new Map<string, AppSeeds>();

  /** `slots` is rounded down to a power of two (at least 2). */
  constructor(slots: number) {
    const size = 2 ** Math.floor(Math.log2(Math.max(2, slots)));
    this.pairMask = size - 2;
    this.checks = new Uint32Array(size);
    this.starts = new Uint32Array(size);
    this.ends = new Uint32Array(size);
  }

  /**
   * Records that the trace's spans start within [startSecond, endSecond], widening its current hint.
   * A trace may sit in either slot of its pair; a new one takes an empty slot, else the slot of
   * the one that ended first, if it ended before the new one: a pair keeps the two traces that
   * ended last, whatever order they were noted in (recent traces are the ones read most).
   */
  noteSeconds(tenantId: string, appId: string, traceId: string, startSecond: number, endSecond: number): void {
    if (!(startSecond >= 0 && endSecond >= startSecond && endSecond <= MAX_SECOND)) return;
    const { pair, check, slot } = this.find(tenantId, appId, traceId);
    if (slot >= 0) {
      this.starts[slot] = Math.min(this.starts[slot]!, startSecond);
      this.ends[slot] = Math.max(this.ends[slot]!, endSecond);
      return;
    }
    const free =
      this.checks[pair] === 0 || (this.checks[pair + 1] !== 0 && this.ends[pair]! <= this.ends[pair + 1]!)
        ? pair
        : pair + 1;
    if (this.checks[free] !== 0 && this.ends[free]! > endSecond) return;
    this.checks[free] = check;
    this.starts[free] = startSecond;
    this.ends[free] = endSecond;
  }

  /** The trace's pair of slots, its fingerprint, and the slot holding it (-1: neither). */
  private find(tenantId: string, appId: string, traceId: string): { pair: number; check: number; slot: number } {
    const seeds = this.seedsOf(tenantId, appId);
    const pair = fnv(traceId, seeds.slot) & this.pairMask;
    const check = (fnv(traceId, seeds.check) | 1) >>> 0; // never 0, which marks an empty slot
    return { pair, check, slot: this.checks[pair] === check ? pair : this.checks[pair + 1] === check ? pair + 1 : -1 };
  }

  private seedsOf(tenantId: string, appId: string): AppSeeds {
    const key = `${tenantId}/${appId}`;
    let seeds = this.seeds.get(key);
    if (!seeds) {
      if (this.seeds.size >= SEEDS_KEPT) this.seeds.clear();
      this.seeds.set(key, (seeds = { slot: fnv(key, 0x811c_9dc5), check: fnv(key, 0x2f6b_3a1d) }));
    }
    return seeds;
  }

  /** Records a trace's range in nanoseconds (a summary part's or a summary's). */
  note(tenantId: string, appId: string, traceId: string, startNs: bigint, endNs: bigint): void {
    this.noteSeconds(tenantId, appId, traceId, secondsDown(startNs), secondsUp(endNs));
  }

  /** Records the ranges of summary parts (a committed generation's). */
  noteParts(parts: readonly PartRow[]): void {
    for (const [tenantId, appId, , traceId, startNs, endNs] of parts)
      this.note(tenantId, appId, traceId, startNs, endNs);
  }

  /** The hinted range of a trace, or null when the table holds none for it. */
  rangeOf(tenantId: string, appId: string, traceId: string): HintedRange | null {
    const { slot } = this.find(tenantId, appId, traceId);
    if (slot < 0) return null;
    return { fromNs: BigInt(this.starts[slot]!) * NS_PER_SECOND, toNs: BigInt(this.ends[slot]!) * NS_PER_SECOND };
  }
}

/** Whole seconds of a time, rounded down; negative times give -1, which `noteSeconds` refuses. */
function secondsDown(ns: bigint): number {
  return ns < 0n ? -1 : Number(ns / NS_PER_SECOND);
}

/** Whole seconds of a time, rounded up. */
function secondsUp(ns: bigint): number {
  const s = ns / NS_PER_SECOND;
  return Number(s * NS_PER_SECOND < ns ? s + 1n : s);
}
