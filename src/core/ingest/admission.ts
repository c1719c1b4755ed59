/**
 * Admission of span rows before they are logged: the per-trace bound and idempotent replays
 * decided in one place for every compute thread, so two workers cannot both take
 * the same span or both take a trace's last free place.
 *
 * The index remembers the span ids of the most recently active traces, up to `capacity` ids in all
 * (least recently active traces are forgotten first). Within it, a span already taken (same scope,
 * trace and span id) is a duplicate and a trace's span count is exact. A trace that falls out of
 * the index and later receives more spans starts counting again, and re-sent copies of its old
 * spans are not recognised (docs/decisions.md, "Ingestion").
 *
 * Admission is provisional until the worker has made the rows durable: a ticket records what it
 * added so that a request that then fails can be taken back.
 *
 * The index lives on the HTTP thread and holds a million span ids by default. Kept as strings in a
 * Set per trace it took far more memory and much of that thread's scavenge time
 * (native-bench/RESULTS.md, "admission"); here every id is numbers in typed arrays, which the garbage collector
 * never walks. Ids are lowercase hex (map.ts refuses any other), so a span id is
 * exactly two 32-bit words and a trace id four. Traces are records in one table, found through
 * chained hash buckets and kept in order of recency by links through the records; a trace's span
 * ids sit together in a block of its own (a small open-addressing table in one shared slab), so
 * the spans of a request's trace are looked up in a few cache lines, and forgetting a trace frees
 * one block.
 */

export interface AdmissionRequest {
  /** Tenant, app and environment: span ids are unique within one scope. */
  scope: string;
  /** The request's distinct trace ids. */
  traceIds: readonly string[];
  /** Per row, in mapping order: the index of its trace in `traceIds`, and its span id. */
  traceOf: readonly number[];
  spanIds: readonly string[];
}

export interface Admission {
  /** Rows refused, by index: duplicates and rows over the bound. */
  drop: number[];
  duplicates: number;
  overBound: number;
  /** Pass to `settle` once the outcome of the request is known. */
  ticket: number;
}

/** No trace record, no block: offset 0 of the trace table and of the slab is never used. */
const NONE = 0;
/** Trace records beyond the capacity: a request's new traces are added before the oldest go. */
const SLACK_TRACES = 4096;
/** A block's fewest slots (a power of two); it holds at most half as many span ids. */
const MIN_BLOCK_SLOTS = 4;

// A trace's record: its scope (NONE when the record is free), the four words of its id, its span
// count, its neighbours in recency (the oldest is `oldest`), the next record in its hash bucket (or
// on the free list), its block of span ids (NONE until its first span) and the block's slots, and
// a generation that changes when the record is freed (a ticket naming a trace evicted meanwhile
// then no longer matches it).
const T_SCOPE = 0;
const T_ID = 1;
const T_COUNT = 5;
const T_OLDER = 6;
const T_NEWER = 7;
const T_NEXT = 8;
const T_BLOCK = 9;
const T_SLOTS = 10;
const T_GEN = 11;
const T_STRIDE = 12;

/** Words of a span's ids in `rememberWords`: four of the trace id, two of the span id. */
export const ID_WORDS = 6;

export class AdmissionIndex {
  private readonly scopes = new Map<string, number>();
  /** Per ticket, what it added: (trace record, its generation, span id's two words) a span. */
  private readonly tickets = new Map<number, Int32Array>();
  private spans = 0;
  private nextTicket = 1;
  /** The words of the id being looked up. */
  private readonly words = new Int32Array(4);

  // Sized for the capacity at the start, zeroed: a page is the system's until something on it is
  // first used, and nothing is copied as the index fills (grown by doubling, the HTTP thread ran
  // more major collections: native-bench/RESULTS.md, "Figures behind the code"). Records are
  // numbered by the index of their first word; `traceTop` is the first never used.
  private traces: Int32Array;
  private readonly traceBuckets: Int32Array;
  private traceTop = T_STRIDE;
  private freeTrace = NONE;
  private oldest = NONE;
  private newest = NONE;

  /**
   * Blocks of span ids: a block of 2^k slots is 2^(k+1) words, a slot (0, 0) empty (an all-zero
   * span id is invalid in OTLP and refused by map.ts). Freed blocks wait on a list by size.
   */
  private slab: Int32Array;
  private slabTop = 2;
  private readonly freeBlocks = new Int32Array(32);

  constructor(
    private readonly maxSpansPerTrace: number,
    private readonly capacity: number,
  ) {
    const traces = capacity + SLACK_TRACES + 1;
    this.traces = new Int32Array(traces * T_STRIDE);
    this.traceBuckets = new Int32Array(2 ** Math.ceil(Math.log2(traces * 2)));
    // Four words a span id: blocks at most half full, in traces of 8 spans or more.
    this.slab = new Int32Array((capacity + SLACK_TRACES) * 4);
  }

  /** Span ids remembered. */
  get size(): number {
    return this.spans;
  }

  admit(req: AdmissionRequest): Admission {
    const drop: number[] = [];
    const added = new Int32Array(req.spanIds.length * 4);
    let n = 0;
    let duplicates = 0;
    let overBound = 0;
    const scope = this.scopeOf(req.scope);
    // One lookup per trace, not per span: a request holds whole traces more often than not.
    const traces = req.traceIds.map((traceId) => this.touch(scope, traceId));
    const w = this.words;
    for (let i = 0; i < req.spanIds.length; i++) {
      const trace = traces[req.traceOf[i]!]!;
      idWords(req.spanIds[i]!, w, 2);
      if (this.findSpan(trace, w[0]!, w[1]!) >= 0) {
        duplicates++;
        drop.push(i);
      } else if (this.traces[trace + T_COUNT]! >= this.maxSpansPerTrace) {
        overBound++;
        drop.push(i);
      } else {
        this.addSpan(trace, w[0]!, w[1]!);
        added[n++] = trace;
        added[n++] = this.traces[trace + T_GEN]!;
        added[n++] = w[0]!;
        added[n++] = w[1]!;
      }
    }
    const ticket = this.nextTicket++;
    this.tickets.set(ticket, added.subarray(0, n));
    this.evict();
    // A trace left without spans answers nothing a fresh one would not: its record goes now.
    for (const trace of traces)
      if (this.traces[trace + T_SCOPE] !== NONE && this.traces[trace + T_COUNT] === 0) this.dropTrace(trace);
    return { drop, duplicates, overBound, ticket };
  }

  /**
   * Ends a ticket: `durable` keeps what it added; otherwise the spans are forgotten, so that the
   * client's retry of a failed request is not taken for a replay.
   */
  settle(ticket: number, durable: boolean): void {
    const added = this.tickets.get(ticket);
    if (!added) return;
    this.tickets.delete(ticket);
    if (durable) return;
    for (let k = 0; k < added.length; k += 4) {
      const trace = added[k]!;
      // A span whose trace was evicted meanwhile is gone with it (the record's generation moved on).
      if (this.traces[trace + T_GEN] !== added[k + 1]) continue;
      this.removeSpan(trace, added[k + 2]!, added[k + 3]!);
      if (this.traces[trace + T_COUNT] === 0) this.dropTrace(trace);
    }
  }

  /** Records spans already stored (a log replayed at start), without judging them. */
  remember(scopeKey: string, traceIds: readonly string[], spanIds: readonly string[]): void {
    const scope = this.scopeOf(scopeKey);
    const w = this.words;
    for (let i = 0; i < spanIds.length; i++) {
      const trace = this.touch(scope, traceIds[i]!);
      idWords(spanIds[i]!, w, 2);
      if (this.findSpan(trace, w[0]!, w[1]!) < 0) this.addSpan(trace, w[0]!, w[1]!);
    }
    this.evict();
  }

  /**
   * `remember`, for ids already read as their words (`ID_WORDS` a span: the trace id's four, then
   * the span id's two), as the start reads the recent spans of a large store without making a
   * string of each id.
   */
  rememberWords(scopeKey: string, words: Int32Array): void {
    const scope = this.scopeOf(scopeKey);
    const w = this.words;
    for (let at = 0; at + ID_WORDS <= words.length; at += ID_WORDS) {
      w.set(words.subarray(at, at + 4));
      const trace = this.touchWords(scope);
      const hi = words[at + 4]!;
      const lo = words[at + 5]!;
      if (this.findSpan(trace, hi, lo) < 0) this.addSpan(trace, hi, lo);
    }
    this.evict();
  }

  /** Scopes are few (a store's environments) and kept for the index's life; numbered from 1 (0 is NONE). */
  private scopeOf(key: string): number {
    let scope = this.scopes.get(key);
    if (scope === undefined) this.scopes.set(key, (scope = this.scopes.size + 1));
    return scope;
  }

  /** The trace's record, made the most recently active (created when absent). */
  private touch(scope: number, traceId: string): number {
    idWords(traceId, this.words, 4);
    return this.touchWords(scope);
  }

  /** `touch`, for the trace id whose words are in `this.words`. */
  private touchWords(scope: number): number {
    const w = this.words;
    const bucket = traceHash(scope, w, 0) & (this.traceBuckets.length - 1);
    const found = this.traces;
    for (let t = this.traceBuckets[bucket]!; t !== NONE; t = found[t + T_NEXT]!) {
      if (
        found[t + T_SCOPE] === scope &&
        found[t + T_ID] === w[0] &&
        found[t + T_ID + 1] === w[1] &&
        found[t + T_ID + 2] === w[2] &&
        found[t + T_ID + 3] === w[3]
      ) {
        if (t !== this.newest) {
          this.unlinkRecency(t);
          this.linkNewest(t);
        }
        return t;
      }
    }
    const t = this.newTrace();
    const r = this.traces;
    r[t + T_SCOPE] = scope;
    r.set(w, t + T_ID);
    r[t + T_COUNT] = 0;
    r[t + T_BLOCK] = NONE;
    r[t + T_SLOTS] = 0;
    r[t + T_NEXT] = this.traceBuckets[bucket]!;
    this.traceBuckets[bucket] = t;
    this.linkNewest(t);
    return t;
  }

  private newTrace(): number {
    const t = this.freeTrace;
    if (t !== NONE) {
      this.freeTrace = this.traces[t + T_NEXT]!;
      return t;
    }
    if (this.traceTop === this.traces.length) {
      // Past the capacity and its slack (a request of more new traces than the slack): half as
      // many records again. The buckets keep their size and their chains (offsets do not move).
      const r = new Int32Array(Math.ceil((this.traces.length / T_STRIDE) * 1.5) * T_STRIDE);
      r.set(this.traces);
      this.traces = r;
    }
    this.traceTop += T_STRIDE;
    return this.traceTop - T_STRIDE;
  }

  /** The slab offset of the slot holding the span id (hi, lo) in the trace's block, or -1. */
  private findSpan(trace: number, hi: number, lo: number): number {
    const block = this.traces[trace + T_BLOCK]!;
    if (block === NONE) return -1;
    const mask = this.traces[trace + T_SLOTS]! - 1;
    const ids = this.slab;
    let slot = slotHash(hi, lo) & mask;
    // A block is at most half full: an empty slot ends every run.
    while ((ids[block + 2 * slot]! | ids[block + 2 * slot + 1]!) !== 0) {
      if (ids[block + 2 * slot] === hi && ids[block + 2 * slot + 1] === lo) return block + 2 * slot;
      slot = (slot + 1) & mask;
    }
    return -1;
  }

  /** Adds the span id (hi, lo), known to be absent, to the trace's block (grown when half full). */
  private addSpan(trace: number, hi: number, lo: number): void {
    const r = this.traces;
    const count = r[trace + T_COUNT]! + 1;
    if (2 * count > r[trace + T_SLOTS]!) this.growBlock(trace, Math.max(MIN_BLOCK_SLOTS, 2 * r[trace + T_SLOTS]!));
    put(this.slab, r[trace + T_BLOCK]!, r[trace + T_SLOTS]! - 1, hi, lo);
    r[trace + T_COUNT] = count;
    this.spans++;
  }

  /**
   * Takes the span id (hi, lo) out of the trace's block. It is there: a ticket's span leaves only
   * with its trace (the generation then differs) or by that ticket's one settle.
   */
  private removeSpan(trace: number, hi: number, lo: number): void {
    let hole = this.findSpan(trace, hi, lo);
    const ids = this.slab;
    const block = this.traces[trace + T_BLOCK]!;
    const mask = this.traces[trace + T_SLOTS]! - 1;
    // Linear probing's deletion: later ids of the run whose home is not between the hole and
    // them move back into it, so every id stays reachable from its home without tombstones.
    for (let slot = ((hole - block) / 2 + 1) & mask; ; slot = (slot + 1) & mask) {
      const at = block + 2 * slot;
      const h = ids[at]!;
      const l = ids[at + 1]!;
      if ((h | l) === 0) break;
      const home = slotHash(h, l) & mask;
      const holeSlot = (hole - block) / 2;
      const distanceToHole = (holeSlot - home) & mask;
      const distanceToHere = (slot - home) & mask;
      if (distanceToHole < distanceToHere) {
        ids[hole] = h;
        ids[hole + 1] = l;
        hole = at;
      }
    }
    ids[hole] = 0;
    ids[hole + 1] = 0;
    this.traces[trace + T_COUNT]!--;
    this.spans--;
  }

  /** Moves the trace's span ids into a new block of `slots` slots. */
  private growBlock(trace: number, slots: number): void {
    const r = this.traces;
    const block = this.allocateBlock(slots);
    const old = r[trace + T_BLOCK]!;
    const oldSlots = r[trace + T_SLOTS]!;
    const ids = this.slab;
    for (let at = old; at < old + 2 * oldSlots; at += 2) {
      if ((ids[at]! | ids[at + 1]!) !== 0) put(ids, block, slots - 1, ids[at]!, ids[at + 1]!);
    }
    if (old !== NONE) this.freeBlock(old, oldSlots);
    r[trace + T_BLOCK] = block;
    r[trace + T_SLOTS] = slots;
  }

  private allocateBlock(slots: number): number {
    const size = Math.log2(slots);
    let block = this.freeBlocks[size]!;
    if (block !== NONE) {
      this.freeBlocks[size] = this.slab[block]!;
      this.slab.fill(0, block, block + 2 * slots);
      return block;
    }
    block = this.slabTop;
    if (block + 2 * slots > this.slab.length) {
      // Past what was reserved (traces of a span or two, or a request past the slack): half as
      // much again, or what the block needs.
      const grown = new Int32Array(Math.max(Math.ceil(this.slab.length * 1.5), block + 2 * slots));
      grown.set(this.slab);
      this.slab = grown;
    }
    this.slabTop += 2 * slots;
    return block;
  }

  private freeBlock(block: number, slots: number): void {
    const size = Math.log2(slots);
    this.slab[block] = this.freeBlocks[size]!;
    this.freeBlocks[size] = block;
  }

  /** Forgets a trace and its spans. */
  private dropTrace(t: number): void {
    const r = this.traces;
    if (r[t + T_BLOCK] !== NONE) this.freeBlock(r[t + T_BLOCK]!, r[t + T_SLOTS]!);
    this.spans -= r[t + T_COUNT]!;
    this.unlinkRecency(t);
    const bucket = traceHash(r[t + T_SCOPE]!, r, t + T_ID) & (this.traceBuckets.length - 1);
    let cur = this.traceBuckets[bucket]!;
    if (cur === t) this.traceBuckets[bucket] = r[t + T_NEXT]!;
    else {
      while (r[cur + T_NEXT] !== t) cur = r[cur + T_NEXT]!;
      r[cur + T_NEXT] = r[t + T_NEXT]!;
    }
    r[t + T_SCOPE] = NONE;
    r[t + T_GEN] = (r[t + T_GEN]! + 1) | 0;
    r[t + T_NEXT] = this.freeTrace;
    this.freeTrace = t;
  }

  private evict(): void {
    while (this.spans > this.capacity && this.oldest !== NONE) this.dropTrace(this.oldest);
  }

  private linkNewest(t: number): void {
    const r = this.traces;
    r[t + T_OLDER] = this.newest;
    r[t + T_NEWER] = NONE;
    if (this.newest !== NONE) r[this.newest + T_NEWER] = t;
    else this.oldest = t;
    this.newest = t;
  }

  private unlinkRecency(t: number): void {
    const r = this.traces;
    const older = r[t + T_OLDER]!;
    const newer = r[t + T_NEWER]!;
    if (older !== NONE) r[older + T_NEWER] = newer;
    else this.oldest = newer;
    if (newer !== NONE) r[newer + T_OLDER] = older;
    else this.newest = older;
  }
}

/** Puts the span id (hi, lo) in the first empty slot from its home in the block. */
function put(ids: Int32Array, block: number, mask: number, hi: number, lo: number): void {
  let slot = slotHash(hi, lo) & mask;
  while ((ids[block + 2 * slot]! | ids[block + 2 * slot + 1]!) !== 0) slot = (slot + 1) & mask;
  ids[block + 2 * slot] = hi;
  ids[block + 2 * slot + 1] = lo;
}

/** A span id's home in its block, before the mask. */
function slotHash(hi: number, lo: number): number {
  return mix(lo ^ Math.imul(hi, 0x9e3779b1));
}

/** Hex digit values by character code; -1 for any other character. */
const HEX = new Int8Array(128).fill(-1);
for (let c = 0; c < 16; c++) HEX['0123456789abcdef'.charCodeAt(c)] = c;

/**
 * The id's `count` words: its hex digits, eight a word, when it is `count * 8` lowercase hex digits
 * — always, in the server. Any other text (nothing the server admits) is hashed into the words
 * rather than refused, so the index still answers for it, exactly up to a collision of the hash
 * (for a span id, one in 2^64 within its trace).
 */
function idWords(id: string, out: Int32Array, count: number): void {
  if (id.length === count * 8) {
    let valid = true;
    for (let k = 0; k < count && valid; k++) {
      let word = 0;
      for (let i = k * 8; i < k * 8 + 8; i++) {
        const c = id.charCodeAt(i);
        const digit = c < 128 ? HEX[c]! : -1;
        if (digit < 0) {
          valid = false;
          break;
        }
        word = (word << 4) | digit;
      }
      out[k] = word;
    }
    if (valid) return;
  }
  for (let k = 0; k < count; k++) {
    // FNV-1a, each word from its own offset basis.
    let h = (0x811c9dc5 ^ Math.imul(k + 1, 0x9e3779b9)) >>> 0;
    for (let i = 0; i < id.length; i++) h = Math.imul(h ^ id.charCodeAt(i), 0x01000193);
    out[k] = h;
  }
}

/** murmur3's finaliser: every bit of the input moves every bit of the result. */
function mix(h: number): number {
  h = Math.imul(h ^ (h >>> 16), 0x85ebca6b);
  h = Math.imul(h ^ (h >>> 13), 0xc2b2ae35);
  return (h ^ (h >>> 16)) >>> 0;
}

/** The hash of a trace id (four words of `w` from `at`) in a scope. */
function traceHash(scope: number, w: Int32Array, at: number): number {
  return mix(w[at]! ^ mix(w[at + 1]! ^ mix(w[at + 2]! ^ mix(w[at + 3]! ^ Math.imul(scope, 0x9e3779b1)))));
}
