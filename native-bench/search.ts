/**
 * native-bench/search: latency of reads through the gateway against the same SQL run directly on
 * DuckDB over the same files, in the same run: the latest page of traces, one trace by id with its
 * spans, a trace id that does not exist, and typical searches, over `--spans` spans (default 1M:
 * traces of 8 spans, 4 s apart, going back in time from now).
 *
 *   npm run build && node dist/native-bench/search.js [--spans 1000000] [--runs 15]
 *
 * The store is filled with segments written by SQL (one sorted file per day, as compaction leaves
 * them) and their merged summaries, to keep the bench about reads. Gateway timings are client-side
 * HTTP round trips; raw timings call the store's own function (the identical statements and
 * parameters) on a DuckDB opened in this process on a copy of the database and the same segment
 * files, alternating with the gateway's.
 */
import { copyFileSync, rmSync, symlinkSync } from 'node:fs';
import { join } from 'node:path';
import { parseFilter } from '../src/core/filter/index.js';
import { resolveWindow } from '../src/core/window.js';
import { Database } from '../src/store/db.js';
import { DATABASE_FILE, storeDirs } from '../src/store/layout.js';
import { traceWithSpans } from '../src/store/spans/reads.js';
import { searchSpans, searchTraces, type SearchQuery } from '../src/store/spans/search.js';
import { LocalSegmentStore } from '../src/store/spans/segmentStore.js';
import { traceHints } from '../src/store/spans/traceHints.js';
import { startServer, tempDir } from '../test/helpers/server.js';
import { spreadTrace, syntheticTraceId } from './synthetic.js';
import { arg } from './args.js';
import { syntheticStore } from './syntheticStore.js';

const SPANS = arg('spans', 1_000_000);
const RUNS = arg('runs', 15);
const KEY = 'sk_service_' + 'Search'.repeat(7);
const DAY = 86_400_000;

const { dataDir, scope, dbOptions, now } = await syntheticStore('search', KEY, SPANS);

interface Read {
  name: string;
  path: (i: number) => string;
  raw: (src: { db: Database; segments: LocalSegmentStore }, i: number) => Promise<unknown>;
  /** The answer's status (200 unless named). */
  status?: number;
}

const traces = Math.floor(SPANS / 8);
/** A different trace each run, spread over the whole store. */
const traceOf = (i: number) => syntheticTraceId(spreadTrace(i, traces));
/** An id no synthetic trace has (those are numbers' MD5s). */
const missingTraceOf = (i: number) => syntheticTraceId(-1 - i);
const day = `start_date=${new Date(now - DAY).toISOString()}&end_date=${new Date(now + 60_000).toISOString()}`;

function search(name: string, resource: 'traces' | 'spans', filter: string, window = ''): Read {
  return {
    name,
    path: () =>
      `/v1/${resource}?limit=50${window ? `&${window}` : ''}${filter ? `&filter=${encodeURIComponent(filter)}` : ''}`,
    raw: (src) => {
      const range = window
        ? resolveWindow(
            { start_date: new Date(now - DAY).toISOString(), end_date: new Date(now + 60_000).toISOString() },
            Date.now(),
          )
        : resolveWindow({}, Date.now());
      const q: SearchQuery = {
        scope: { ...scope, environmentId: null },
        ...range,
        limit: 50,
        offset: 0,
        sortBy: 'start',
        sortOrder: 'desc',
        format: 'json',
      };
      const ast = parseFilter(filter, resource);
      return resource === 'traces' ? searchTraces(src, q, ast) : searchSpans(src, q, ast);
    },
  };
}

const reads: Read[] = [
  search('latest page of traces (24 h)', 'traces', '', day),
  {
    name: 'one trace by id, with spans',
    path: (i) => `/v1/traces/${traceOf(i)}`,
    raw: (src, i) => traceWithSpans(src, { ...scope, environmentId: null }, traceOf(i)),
  },
  {
    // A client polling for a trace that has not arrived yet reads this again and again.
    name: 'a trace id that does not exist',
    path: (i) => `/v1/traces/${missingTraceOf(i)}`,
    raw: (src, i) => traceWithSpans(src, { ...scope, environmentId: null }, missingTraceOf(i)),
    status: 404,
  },
  search('latest page of traces (7 d)', 'traces', ''),
  search('traces, 3 predicates', 'traces', 'status = ERROR and cost > 0.001 and model = gpt-4o'),
  search('traces, metadata predicate', 'traces', 'metadata.customer = customer-42'),
  search('traces, OR-group', 'traces', '(user_id = user-7 or session_id = session-99) and status = OK'),
  search('spans, 3 predicates', 'spans', 'model = gpt-4o and tokens > 1500 and status = OK'),
  search('spans, metadata predicate', 'spans', 'metadata.tier = gold and span_kind = llm'),
];

const sorted = (xs: number[]) => [...xs].sort((a, b) => a - b);
const median = (xs: number[]) => sorted(xs)[Math.floor(xs.length / 2)]!;
const p99 = (xs: number[]) => sorted(xs)[Math.min(xs.length - 1, Math.floor(xs.length * 0.99))]!;

// Raw DuckDB reads a copy of the database file (the server holds the original's lock) and the very
// same segment files (a link), so both run in one loop, alternating: load from the other work on
// this shared machine then weighs on both alike (run one after the other, their ratios swung by
// ±30% between runs).
const rawDir = tempDir('tracelake-search-raw-');
copyFileSync(join(dataDir, DATABASE_FILE), join(rawDir, DATABASE_FILE));
symlinkSync(storeDirs(dataDir).segments, storeDirs(rawDir).segments);
const db = await Database.open({ ...dbOptions, dataDir: rawDir });
// With trace hints, as the gateway's store thread reads (its summary and spans at once).
const src = { db, segments: new LocalSegmentStore(storeDirs(rawDir).segments), hints: traceHints(db) };

const server = await startServer({
  dataDir,
  args: ['--duckdb-threads', '2', '--duckdb-memory', '4GiB', '--compaction-interval-ms', '0'],
});
const headers = { authorization: KEY, 'x-service-app-id': scope.appId };
const gateway: number[][] = [];
const raw: number[][] = [];
for (const r of reads) {
  const g: number[] = [];
  const w: number[] = [];
  // A warm-up pass over the same reads first (files opened, caches filled), then the timed pass.
  for (let pass = 0; pass < 2; pass++) {
    for (let i = 0; i < RUNS; i++) {
      let t0 = performance.now();
      const res = await fetch(`${server.url}${r.path(i)}`, { headers });
      await res.arrayBuffer();
      if (res.status !== (r.status ?? 200)) throw new Error(`${r.name}: ${res.status}`);
      if (pass === 1) g.push(performance.now() - t0);
      t0 = performance.now();
      await r.raw(src, i);
      if (pass === 1) w.push(performance.now() - t0);
    }
  }
  gateway.push(g);
  raw.push(w);
}
await server.stop('SIGTERM');
db.close();
rmSync(dataDir, { recursive: true, force: true });
rmSync(rawDir, { recursive: true, force: true });

console.log(
  `reads over ${SPANS.toLocaleString('en-US')} spans (${traces.toLocaleString('en-US')} traces), ${RUNS} runs (ms)`,
);
console.log('  read                              gateway p50   p99     raw p50   ratio   budget (1.3×raw+5)');
reads.forEach((r, i) => {
  const g = median(gateway[i]!);
  const w = median(raw[i]!);
  const budget = 1.3 * w + 5;
  console.log(
    `  ${r.name.padEnd(32)} ${g.toFixed(1).padStart(8)} ${p99(gateway[i]!).toFixed(1).padStart(7)} ${w.toFixed(1).padStart(9)} ${(g / w).toFixed(2).padStart(6)}×  ${budget.toFixed(1).padStart(7)} ${g <= budget ? 'ok' : 'OVER'}`,
  );
});
