/**
 * What a benchmark's server acknowledged, and whether its store holds all of it: every trace of
 * every request answered 200, with all its spans. The requests' ids are unique (bodies.ts: the
 * first 4 bytes are the request's, the rest its template's), so the expected trace ids are built
 * in SQL from the requests' prefixes and their templates' traces and joined with the spans the
 * store's live segment files hold, read in this process with the server stopped.
 */
import { listValue } from '../src/store/duckdb.js';
import { Database } from '../src/store/db.js';
import { storeDirs } from '../src/store/layout.js';
import { segmentsFor, spansFrom } from '../src/store/spans/manifest.js';
import { LocalSegmentStore } from '../src/store/spans/segmentStore.js';
import type { ReadScope } from '../src/store/scope.js';
import type { Bodies } from './bodies.js';

export interface Holding {
  traces: number;
  spans: number;
  foundTraces: number;
  foundSpans: number;
  /** Acknowledged traces absent or with fewer spans than were sent. */
  incompleteTraces: number;
}

export class Acknowledged {
  private readonly requests: number[] = [];
  spans = 0;

  constructor(private readonly bodies: Bodies) {}

  add(request: number): void {
    this.requests.push(request);
    for (const t of this.bodies.tracesOf(request)) this.spans += t.spans;
  }

  get count(): number {
    return this.requests.length;
  }

  /** What the store in `dataDir` (no server running on it) holds of what was acknowledged. */
  async heldIn(dataDir: string, scope: ReadScope): Promise<Holding> {
    // The server is gone by now: its memory is free for a count of every acknowledged trace's spans.
    const db = await Database.open({ dataDir, threads: 2, memoryLimit: '8GiB', queryTimeoutMs: 3_600_000 });
    try {
      const files = await segmentsFor(db, new LocalSegmentStore(storeDirs(dataDir).segments), scope, null, null);
      const traces = this.bodies.templateTraces().flatMap((list, t) => list.map((trace) => ({ t, ...trace })));
      const [row] = await db.query<Record<keyof Holding, number>>(
        `WITH acked AS (SELECT unnest($1::VARCHAR[]) AS prefix, unnest($2::VARCHAR[])::INTEGER AS template),
              template_traces AS (SELECT unnest($3::VARCHAR[])::INTEGER AS template, unnest($4::VARCHAR[]) AS suffix,
                                         unnest($5::VARCHAR[])::INTEGER AS spans),
              expected AS (SELECT acked.prefix || template_traces.suffix AS trace_id, template_traces.spans
                             FROM acked JOIN template_traces USING (template)),
              found AS (SELECT trace_id, count(DISTINCT span_id) AS spans FROM ${spansFrom(files)}
                         WHERE trace_id IN (SELECT trace_id FROM expected) GROUP BY trace_id)
         SELECT count(*)::DOUBLE AS traces, coalesce(sum(e.spans), 0)::DOUBLE AS spans,
                count(f.trace_id)::DOUBLE AS "foundTraces",
                coalesce(sum(least(f.spans, e.spans)), 0)::DOUBLE AS "foundSpans",
                (count(*) FILTER (WHERE f.spans IS NULL OR f.spans < e.spans))::DOUBLE AS "incompleteTraces"
           FROM expected e LEFT JOIN found f USING (trace_id)`,
        [
          listValue(this.requests.map((r) => this.bodies.idPrefix(r))),
          listValue(this.requests.map((r) => String(this.bodies.templateIndex(r)))),
          listValue(traces.map((t) => String(t.t))),
          listValue(traces.map((t) => t.suffix)),
          listValue(traces.map((t) => String(t.spans))),
        ],
      );
      return row!;
    } finally {
      db.close();
    }
  }
}
