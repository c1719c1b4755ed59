/**
 * The admission index as it was written first: span ids as strings in a Set per
 * trace, traces in a Map whose order is their recency. Plain enough to be read as the definition
 * of what admission answers; the typed-array index in src/core/ingest/admission.ts must answer
 * like it (test/core/ingest/admission.test.ts), and native-bench/admission.ts measures the two.
 */
import type { Admission, AdmissionRequest } from '../../src/core/ingest/admission.js';

interface TraceEntry {
  key: string;
  spans: Set<string>;
}

export class ReferenceAdmissionIndex {
  private readonly traces = new Map<string, TraceEntry>();
  private readonly tickets = new Map<number, [TraceEntry, string][]>();
  private spans = 0;
  private nextTicket = 1;

  constructor(
    private readonly maxSpansPerTrace: number,
    private readonly capacity: number,
  ) {}

  get size(): number {
    return this.spans;
  }

  admit(req: AdmissionRequest): Admission {
    const drop: number[] = [];
    const added: [TraceEntry, string][] = [];
    let duplicates = 0;
    let overBound = 0;
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
