/**
 * native-bench/search: latency of typical searches through the gateway against the same SQL run
 * directly on DuckDB, in the same run, over 1M spans (125k traces of 8 spans over the last 6 days).
 *
 *   npm run build && node dist/native-bench/search.js [--spans 1000000] [--runs 15]
 *
 * The store is filled with SQL (not through ingestion) to keep the bench about search. Gateway
 * timings are client-side HTTP round trips; raw timings run the identical statement (built by the
 * same store function with the same compiled filter) on a DuckDB opened in this process.
 */
import { rmSync } from 'node:fs';
import { compileFilter, parseFilter } from '../src/core/filter/index.js';
import { resolveWindow } from '../src/core/window.js';
import { Database } from '../src/store/db.js';
import { firstFilterParam, searchSpans, searchTraces, type SearchQuery } from '../src/store/spans/search.js';
import { PARTS_FROM_SPANS_SQL } from '../src/store/spans/traceParts.js';
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
  const nowNs = BigInt(Date.now()) * 1_000_000n;
  await db.exec(
    `INSERT INTO spans
     SELECT $1, $2, $3,
            md5((i // 8)::VARCHAR) AS trace_id, substr(md5(i::VARCHAR), 1, 16) AS span_id,
            CASE WHEN i % 8 = 0 THEN NULL ELSE substr(md5((i - i % 8)::VARCHAR), 1, 16) END,
            CASE WHEN i % 8 = 0 THEN 'support-agent' WHEN i % 8 IN (1, 4) THEN 'chat' WHEN i % 8 = 2 THEN 'lookup_account' ELSE 'vector-search' END,
            CASE WHEN i % 8 IN (1, 4) THEN 'GENERATION' ELSE 'SPAN' END,
            CASE WHEN i % 8 = 0 THEN 'agent' WHEN i % 8 IN (1, 4) THEN 'llm' WHEN i % 8 = 2 THEN 'tool' ELSE 'retrieval' END,
            CASE WHEN hash(i // 8) % 50 = 0 THEN 'ERROR' ELSE 'OK' END, NULL,
            ($4::BIGINT - (i // 8) * 4000000000 + (i % 8) * 1000000) AS start_ns,
            ($4::BIGINT - (i // 8) * 4000000000 + (i % 8) * 1000000 + (hash(i) % 3000)::BIGINT * 1000000) AS end_ns,
            CASE WHEN i % 8 IN (1, 4) THEN ['gpt-4o-mini', 'gpt-4o', 'claude-3-5-sonnet-20241022', 'gemini-1.5-flash'][1 + (hash(i) % 4)::BIGINT] END,
            CASE WHEN i % 8 = 1 THEN 'support-answer' END, 'support-bot',
            CASE WHEN i % 8 IN (1, 4) THEN (200 + hash(i) % 2000)::INTEGER END, CASE WHEN i % 8 IN (1, 4) THEN (20 + hash(i) % 400)::INTEGER END, NULL,
            CASE WHEN i % 8 IN (1, 4) THEN (220 + hash(i) % 2400)::INTEGER END,
            CASE WHEN i % 8 IN (1, 4) THEN (hash(i) % 1000) / 100000.0 END,
            'How do I reset my password?', 'Open Settings, then Security.', NULL, NULL, NULL, NULL,
            'session-' || ((i // 8) % 20000), 'user-' || ((i // 8) % 5000), NULL, [],
            '{"customer":"customer-' || ((i // 8) % 100) || '","tier":"' || ['gold','silver','bronze'][1 + ((i // 8) % 3)::BIGINT] || '"}',
            NULL, '{"gen_ai.system":"openai"}', '{"service.name":"support-bot"}', 'bench', '1.0.0'
       FROM range(${SPANS}) r(i)`,
    [scope.tenantId, scope.appId, scope.environmentId, nowNs - 60_000_000_000n],
  );
  // Summary parts, as ingestion writes them (the migration's backfill statement).
  await db.exec(PARTS_FROM_SPANS_SQL);
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
const raw: number[] = [];
for (const s of searches) {
  const q: SearchQuery = { scope, ...resolveWindow(undefined, undefined, Date.now()), limit: 50, offset: 0, sortBy: 'start', sortOrder: 'desc', format: 'json' };
  const compiled = compileFilter(s.filter ? parseFilter(s.filter, s.resource) : [], s.resource, firstFilterParam(scope));
  const run = () => (s.resource === 'traces' ? searchTraces(db, q, compiled) : searchSpans(db, q, compiled));
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
