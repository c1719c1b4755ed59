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

interface TraceEntry {
  key: string;
  spans: Set<string>;
}

export class AdmissionIndex {
  private readonly traces = new Map<string, TraceEntry>();
  private readonly tickets = new Map<number, [TraceEntry, string][]>();
  private spans = 0;
  private nextTicket = 1;

  constructor(
    private readonly maxSpansPerTrace: number,
    private readonly capacity: number,
  ) {}

  /** Span ids remembered. */
  get size(): number {
    return this.spans;
  }

  admit(req: AdmissionRequest): Admission {
    const drop: number[] = [];
    const added: [TraceEntry, string][] = [];
    let duplicates = 0;
    let overBound = 0;
    // One lookup per trace, not per span: a request holds whole traces more often than not.
    const entries = req.traceIds.map((traceId) => this.touch(`${req.scope}/${traceId}`));
    for (let i = 0; i < req.spanIds.length; i++) {
      const entry = entries[req.traceOf[i]!]!;
      const span = req.spanIds[i]!;
      if (entry.spans.has(span)) {
        duplicates++;
        drop.push(i);
      } else if (entry.spans.size >= this.maxSpansPerTrace) {
        overBound++;
        drop.push(i);
      } else {
        entry.spans.add(span);
        added.push([entry, span]);
      }
    }
    this.spans += added.length;
    const ticket = this.nextTicket++;
    this.tickets.set(ticket, added);
    this.evict();
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
    for (const [entry, span] of added) {
      // An entry evicted meanwhile no longer counts towards the total.
      if (entry.spans.delete(span) && this.traces.get(entry.key) === entry) this.spans--;
    }
  }

  /** Records spans already stored (a log replayed at start), without judging them. */
  remember(scope: string, traceIds: readonly string[], spanIds: readonly string[]): void {
    for (let i = 0; i < spanIds.length; i++) {
      const entry = this.touch(`${scope}/${traceIds[i]}`);
      if (!entry.spans.has(spanIds[i]!)) {
        entry.spans.add(spanIds[i]!);
        this.spans++;
      }
    }
    this.evict();
  }

  /** The trace's entry, moved to the most recently active end. */
  private touch(key: string): TraceEntry {
    let entry = this.traces.get(key);
    if (entry) this.traces.delete(key);
    else entry = { key, spans: new Set() };
    this.traces.set(key, entry);
    return entry;
  }

  private evict(): void {
    for (const [key, entry] of this.traces) {
      if (this.spans <= this.capacity) return;
      this.traces.delete(key);
      this.spans -= entry.spans.size;
    }
  }
}
