/**
 * native-bench/search: latency of typical searches through the gateway against the same SQL run
 * directly on DuckDB, in the same run, over 1M spans (125k traces of 8 spans over the last 6 days).
 *
 *   npm run build && node dist/native-bench/search.js [--spans 1000000] [--runs 15]
 *
 * The store is filled with segments written by SQL (not through ingestion) to keep the bench about search. Gateway
 * timings are client-side HTTP round trips; raw timings run the identical statement (built by the
 * same store function with the same compiled filter) on a DuckDB opened in this process.
 */
import { rmSync } from 'node:fs';
import { compileFilter, parseFilter } from '../src/core/filter/index.js';
import { resolveWindow } from '../src/core/window.js';
import { Database, storeDirs } from '../src/store/db.js';
import { firstFilterParam, searchSpans, searchTraces, type SearchQuery } from '../src/store/spans/search.js';
import { LocalSegmentStore } from '../src/store/spans/segmentStore.js';
import { loadSynthetic } from './synthetic.js';
import { startServer, tempDir } from '../test/helpers/server.js';

const arg = (name: string, fallback: number) => {
  const i = process.argv.indexOf(`--${name}`);
  return i > 0 ? Number(process.argv[i + 1]) : fallback;
};
const SPANS = arg('spans', 1_000_000);
const RUNS = arg('runs', 15);
const key = 'sk_service_' + 'Search'.repeat(7);

const dataDir = tempDir('tracelake-search-bench-');
const boot = await startServer({ dataDir, env: { TRACELAKE_BOOTSTRAP_KEY: key } });
const scope = { tenantId: boot.bootstrap!.tenant_id as string, appId: boot.bootstrap!.app_id as string, environmentId: boot.bootstrap!.environment_id as string };
await boot.stop('SIGTERM');

const dbOptions = { dataDir, threads: 2, memoryLimit: '4GiB', queryTimeoutMs: 600_000 };
{
  const db = await Database.open(dbOptions);
  const t0 = performance.now();
  await loadSynthetic(db, dataDir, scope, SPANS, Date.now());
  await db.checkpoint();
  db.close();
  console.log(`loaded ${SPANS.toLocaleString('en-US')} spans in ${((performance.now() - t0) / 1000).toFixed(1)} s`);
}

const searches: { name: string; resource: 'traces' | 'spans'; filter: string; path: string }[] = ([
  { name: 'latest page of traces', resource: 'traces', filter: '', path: '/v1/traces?limit=50' },
  { name: 'traces, 3 predicates', resource: 'traces', filter: 'status = ERROR and cost > 0.001 and model = gpt-4o' },
  { name: 'traces, metadata predicate', resource: 'traces', filter: 'metadata.customer = customer-42' },
  { name: 'traces, OR-group', resource: 'traces', filter: '(user_id = user-7 or session_id = session-99) and status = OK' },
  { name: 'spans, 3 predicates', resource: 'spans', filter: 'model = gpt-4o and tokens > 1500 and status = OK' },
  { name: 'spans, metadata predicate', resource: 'spans', filter: 'metadata.tier = gold and span_kind = llm' },
] as { name: string; resource: 'traces' | 'spans'; filter: string; path?: string }[]).map((s) => ({ ...s, path: s.path ?? `/v1/${s.resource}?limit=50&filter=${encodeURIComponent(s.filter)}` }));

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

const server = await startServer({ dataDir, args: ['--duckdb-threads', '2', '--duckdb-memory', '4GiB'] });
const headers = { authorization: key, 'x-service-app-id': scope.appId };
const gateway: number[] = [];
for (const s of searches) {
  const times: number[] = [];
  for (let i = 0; i < RUNS + 2; i++) {
    const t0 = performance.now();
    const r = await fetch(`${server.url}${s.path}`, { headers });
    await r.arrayBuffer();
    if (r.status !== 200) throw new Error(`${s.name}: ${r.status}`);
    if (i >= 2) times.push(performance.now() - t0); // two warm-up runs
  }
  gateway.push(median(times));
}
await server.stop('SIGTERM');

const db = await Database.open(dbOptions);
const src = { db, segments: new LocalSegmentStore(storeDirs(dataDir).segments) };
const raw: number[] = [];
for (const s of searches) {
  const q: SearchQuery = { scope, ...resolveWindow(undefined, undefined, Date.now()), limit: 50, offset: 0, sortBy: 'start', sortOrder: 'desc', format: 'json' };
  const compiled = compileFilter(s.filter ? parseFilter(s.filter, s.resource) : [], s.resource, firstFilterParam(scope));
  const run = () => (s.resource === 'traces' ? searchTraces(src, q, compiled) : searchSpans(src, q, compiled));
  const times: number[] = [];
  for (let i = 0; i < RUNS + 2; i++) {
    const t0 = performance.now();
    await run();
    if (i >= 2) times.push(performance.now() - t0);
  }
  raw.push(median(times));
}
db.close();
rmSync(dataDir, { recursive: true, force: true });

console.log(`search over ${SPANS.toLocaleString('en-US')} spans, median of ${RUNS} runs (ms)`);
console.log('  search                          gateway      raw   ratio   budget (1.3×raw+5)');
searches.forEach((s, i) => {
  const budget = 1.3 * raw[i]! + 5;
  console.log(`  ${s.name.padEnd(30)} ${gateway[i]!.toFixed(1).padStart(8)} ${raw[i]!.toFixed(1).padStart(8)} ${(gateway[i]! / raw[i]!).toFixed(2).padStart(6)}×  ${budget.toFixed(1).padStart(7)} ${gateway[i]! <= budget ? 'ok' : 'OVER'}`);
});
