/**
 * Admission of span rows before they are logged: the per-trace bound and idempotent replays
 * (ARCHITECTURE §9) decided in one place for every compute worker, so two workers cannot both take
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
 * Set per trace it was ~150–350 MiB and a fifth of what that thread's scavenges promoted
 * (native-bench/README, twenty-fifth session); here every id is numbers in typed arrays — records
 * with stable indices, chained hash buckets, the traces' recency and spans as linked lists through
 * the records — which the garbage collector never walks. Ids are lowercase hex (map.ts refuses any
 * other), so a span id is exactly two 32-bit words and a trace id four.
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

/** No record: record 0 of each table is never used, so zeroed memory is empty buckets and lists. */
const NONE = 0;
/** Records beyond the capacity: a request's new spans are added before the oldest are evicted. */
const SLACK_RECORDS = 4096;

// A trace's record: its scope (NONE when the record is free), the four words of its id, its span
// count, its neighbours in recency (the oldest is `oldest`), the next record in its hash bucket (or
// on the free list) and the first of its spans.
const T_SCOPE = 0;
const T_ID = 1;
const T_COUNT = 5;
const T_OLDER = 6;
const T_NEWER = 7;
const T_NEXT = 8;
const T_FIRST = 9;
const T_STRIDE = 10;

// A span's record, eight words (one record never straddles two 64-byte cache lines): its trace's
// record (NONE when free), the two words of its id, the next record in its hash bucket (or on the
// free list), its neighbours among its trace's spans, and a generation that changes when the
// record is freed (a ticket's reference to a span evicted meanwhile then no longer matches).
const S_TRACE = 0;
const S_ID = 1;
const S_NEXT = 3;
const S_PREV = 4;
const S_AFTER = 5;
const S_GEN = 6;
const S_STRIDE = 8;

export class AdmissionIndex {
  private readonly scopes = new Map<string, number>();
  private readonly tickets = new Map<number, number[]>();
  private spans = 0;
  private nextTicket = 1;
  /** The words of the id being looked up. */
  private readonly words = new Int32Array(4);

  // The tables are sized for the capacity at the start, zeroed: a page is the system's until a
  // record on it is first used (at the default 1M, 85 MiB reserved; with 100k span ids held, ~30
  // MiB resident, the 16 MiB of hash buckets touched at random), and nothing is copied as the index
  // fills (grown by doubling, the HTTP thread ran 8–15 major collections in `threads`' 20 s, against
  // 5–9). Records are numbered by the index of their first word; `*Top` is the first never used.
  private traces: Int32Array;
  private traceBuckets: Int32Array;
  private traceTop = T_STRIDE;
  private freeTrace = NONE;
  private oldest = NONE;
  private newest = NONE;

  private spanRecords: Int32Array;
  private spanBuckets: Int32Array;
  private spanTop = S_STRIDE;
  private freeSpan = NONE;

  constructor(
    private readonly maxSpansPerTrace: number,
    private readonly capacity: number,
  ) {
    const records = capacity + SLACK_RECORDS + 1;
    this.traces = new Int32Array(records * T_STRIDE);
    this.traceBuckets = new Int32Array(bucketsFor(records));
    this.spanRecords = new Int32Array(records * S_STRIDE);
    this.spanBuckets = new Int32Array(bucketsFor(records));
  }

  /** Span ids remembered. */
  get size(): number {
    return this.spans;
  }

  admit(req: AdmissionRequest): Admission {
    const drop: number[] = [];
    const added: number[] = [];
    let duplicates = 0;
    let overBound = 0;
    const scope = this.scopeOf(req.scope);
    // One lookup per trace, not per span: a request holds whole traces more often than not.
    const traces = req.traceIds.map((traceId) => this.touch(scope, traceId));
    for (let i = 0; i < req.spanIds.length; i++) {
      const trace = traces[req.traceOf[i]!]!;
      idWords(req.spanIds[i]!, this.words, 2);
      if (this.findSpan(trace) !== NONE) {
        duplicates++;
        drop.push(i);
      } else if (this.traces[trace + T_COUNT]! >= this.maxSpansPerTrace) {
        overBound++;
        drop.push(i);
      } else {
        const span = this.addSpan(trace);
        added.push(span, this.spanRecords[span + S_GEN]!);
      }
    }
    const ticket = this.nextTicket++;
    this.tickets.set(ticket, added);
    this.evict();
    // A trace left without spans answers nothing a fresh one would not: its record goes now.
    for (const trace of traces) if (this.traces[trace + T_SCOPE] !== NONE && this.traces[trace + T_COUNT] === 0) this.dropTrace(trace);
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
    for (let k = 0; k < added.length; k += 2) {
      const span = added[k]!;
      // A span whose trace was evicted meanwhile is gone: its record was freed (and its generation moved on).
      if (this.spanRecords[span + S_GEN] !== added[k + 1]) continue;
      const trace = this.spanRecords[span + S_TRACE]!;
      this.removeSpan(span);
      if (this.traces[trace + T_COUNT] === 0) this.dropTrace(trace);
    }
  }

  /** Records spans already stored (a log replayed at start), without judging them. */
  remember(scopeKey: string, traceIds: readonly string[], spanIds: readonly string[]): void {
    const scope = this.scopeOf(scopeKey);
    for (let i = 0; i < spanIds.length; i++) {
      const trace = this.touch(scope, traceIds[i]!);
      idWords(spanIds[i]!, this.words, 2);
      if (this.findSpan(trace) === NONE) this.addSpan(trace);
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
    const w = this.words;
    idWords(traceId, w, 4);
    const hash = traceHash(scope, w, 0);
    const found = this.traces;
    for (let t = this.traceBuckets[hash & (this.traceBuckets.length - 1)]!; t !== NONE; t = found[t + T_NEXT]!) {
      if (found[t + T_SCOPE] === scope && found[t + T_ID] === w[0] && found[t + T_ID + 1] === w[1] && found[t + T_ID + 2] === w[2] && found[t + T_ID + 3] === w[3]) {
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
    r[t + T_FIRST] = NONE;
    const bucket = hash & (this.traceBuckets.length - 1);
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
    if (this.traceTop === this.traces.length) this.growTraces();
    this.traceTop += T_STRIDE;
    return this.traceTop - T_STRIDE;
  }

  /** The span with the id in `words` among the trace's, or NONE. */
  private findSpan(trace: number): number {
    const w = this.words;
    const r = this.spanRecords;
    for (let s = this.spanBuckets[spanHash(trace, w, 0) & (this.spanBuckets.length - 1)]!; s !== NONE; s = r[s + S_NEXT]!) {
      if (r[s + S_ID] === w[0] && r[s + S_ID + 1] === w[1] && r[s + S_TRACE] === trace) return s;
    }
    return NONE;
  }

  /** Adds the span with the id in `words` to the trace (known to be absent); returns its record. */
  private addSpan(trace: number): number {
    const s = this.newSpan();
    const w = this.words;
    const r = this.spanRecords;
    r[s + S_TRACE] = trace;
    r[s + S_ID] = w[0]!;
    r[s + S_ID + 1] = w[1]!;
    const bucket = spanHash(trace, w, 0) & (this.spanBuckets.length - 1);
    r[s + S_NEXT] = this.spanBuckets[bucket]!;
    this.spanBuckets[bucket] = s;
    const first = this.traces[trace + T_FIRST]!;
    r[s + S_PREV] = NONE;
    r[s + S_AFTER] = first;
    if (first !== NONE) r[first + S_PREV] = s;
    this.traces[trace + T_FIRST] = s;
    this.traces[trace + T_COUNT]!++;
    this.spans++;
    return s;
  }

  private newSpan(): number {
    const s = this.freeSpan;
    if (s !== NONE) {
      this.freeSpan = this.spanRecords[s + S_NEXT]!;
      return s;
    }
    if (this.spanTop === this.spanRecords.length) this.growSpans();
    this.spanTop += S_STRIDE;
    return this.spanTop - S_STRIDE;
  }

  private removeSpan(s: number): void {
    const r = this.spanRecords;
    const trace = r[s + S_TRACE]!;
    this.unlinkSpanBucket(s);
    const prev = r[s + S_PREV]!;
    const after = r[s + S_AFTER]!;
    if (prev === NONE) this.traces[trace + T_FIRST] = after;
    else r[prev + S_AFTER] = after;
    if (after !== NONE) r[after + S_PREV] = prev;
    this.traces[trace + T_COUNT]!--;
    this.spans--;
    this.releaseSpan(s);
  }

  private unlinkSpanBucket(s: number): void {
    const r = this.spanRecords;
    const bucket = spanHash(r[s + S_TRACE]!, r, s + S_ID) & (this.spanBuckets.length - 1);
    let cur = this.spanBuckets[bucket]!;
    if (cur === s) {
      this.spanBuckets[bucket] = r[s + S_NEXT]!;
      return;
    }
    while (r[cur + S_NEXT] !== s) cur = r[cur + S_NEXT]!;
    r[cur + S_NEXT] = r[s + S_NEXT]!;
  }

  private releaseSpan(s: number): void {
    const r = this.spanRecords;
    r[s + S_TRACE] = NONE;
    r[s + S_GEN] = (r[s + S_GEN]! + 1) | 0;
    r[s + S_NEXT] = this.freeSpan;
    this.freeSpan = s;
  }

  /** Forgets a trace and its spans. */
  private dropTrace(t: number): void {
    const r = this.traces;
    for (let s = r[t + T_FIRST]!; s !== NONE; ) {
      const after = this.spanRecords[s + S_AFTER]!;
      this.unlinkSpanBucket(s);
      this.releaseSpan(s);
      s = after;
    }
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

  /**
   * Past the capacity and its slack (a request larger than the slack): half as many records again.
   * Grown only once every record is taken, so each one is live and joins the new buckets.
   */
  private growTraces(): void {
    const r = grown(this.traces, T_STRIDE);
    this.traces = r;
    this.traceBuckets = new Int32Array(bucketsFor(r.length / T_STRIDE));
    const mask = this.traceBuckets.length - 1;
    for (let t = T_STRIDE; t < r.length; t += T_STRIDE) {
      const bucket = traceHash(r[t + T_SCOPE]!, r, t + T_ID) & mask;
      r[t + T_NEXT] = this.traceBuckets[bucket]!;
      this.traceBuckets[bucket] = t;
    }
  }

  private growSpans(): void {
    const r = grown(this.spanRecords, S_STRIDE);
    this.spanRecords = r;
    this.spanBuckets = new Int32Array(bucketsFor(r.length / S_STRIDE));
    const mask = this.spanBuckets.length - 1;
    for (let s = S_STRIDE; s < r.length; s += S_STRIDE) {
      const bucket = spanHash(r[s + S_TRACE]!, r, s + S_ID) & mask;
      r[s + S_NEXT] = this.spanBuckets[bucket]!;
      this.spanBuckets[bucket] = s;
    }
  }
}

/** A table of records of `stride` words with room for half as many again, the records copied. */
function grown(records: Int32Array, stride: number): Int32Array {
  const to = new Int32Array(Math.ceil((records.length / stride) * 1.5) * stride);
  to.set(records);
  return to;
}

/** A power of two at least twice `records`: most lookups of an absent id find an empty bucket. */
function bucketsFor(records: number): number {
  return 2 ** Math.ceil(Math.log2(records * 2));
}

/** Hex digit values by character code; -1 for any other character. */
const HEX = new Int8Array(128).fill(-1);
for (let c = 0; c < 16; c++) HEX['0123456789abcdef'.charCodeAt(c)] = c;

/**
 * The id's `count` words: its hex digits, eight a word, when it is `count * 8` lowercase hex digits
 * — always, in the server. Any other text (nothing the server admits) is hashed into the words
 * rather than refused, so the index still answers for it, exactly up to a 64-bit hash collision
 * within one trace.
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

/** The hash of a span id (two words of `w` from `at`) in a trace's record. */
function spanHash(trace: number, w: Int32Array, at: number): number {
  return mix(w[at]! ^ mix(w[at + 1]! ^ Math.imul(trace + 1, 0x9e3779b1)));
}
