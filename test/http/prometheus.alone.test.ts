/**
 * Integration: the Prometheus operations metrics (`--metrics-listen`). The exposition is parsed by
 * a Prometheus text-format parser, and its figures checked against what the test did: requests by
 * route and status with latency histograms, spans ingested and refused, queues, store task
 * latency, segments, database size, process memory. The API port never serves it unless told to.
 */
import t from 'tap';
import parsePrometheusTextFormat, { type PromFamily } from 'parse-prometheus-text-format';
import { exportRequest, hex } from '../helpers/otlp.js';
import { tracerProvider } from '../helpers/otel.js';
import { opsMetric } from '../helpers/opsMetrics.js';
import { call, createKey, rootCredentials, serverFor, type TestServer } from '../helpers/server.js';
import { until } from '../helpers/until.js';
import { exportSpans } from '../helpers/exportSpans.js';

async function scrape(
  url: string,
): Promise<{ status: number; type: string | null; families: Map<string, PromFamily>; text: string }> {
  const res = await fetch(url);
  const text = await res.text();
  // The parser refuses any line that is not valid text format (it throws), so parsing is the check.
  return {
    status: res.status,
    type: res.headers.get('content-type'),
    families: new Map(parsePrometheusTextFormat(text).map((f) => [f.name, f])),
    text,
  };
}

/**
 * One series of a labelled histogram: the parser folds histograms into one unlabelled sample (its
 * flattening knows no labels besides `le`), so the series are read from the lines it accepted.
 */
function histogramSeries(text: string, name: string, labels: string): { count: number; sum: number; inf: number } {
  const read = (suffix: string, extra = '') => {
    const line = text
      .split('\n')
      .find((l) => l.startsWith(`${name}_${suffix}{`) && l.includes(labels) && l.includes(extra));
    return line === undefined ? NaN : Number(line.slice(line.lastIndexOf(' ') + 1));
  };
  return { count: read('count'), sum: read('sum'), inf: read('bucket', 'le="+Inf"') };
}

/** The value of the sample whose labels include `labels` (0 when there is none). */
function value(families: Map<string, PromFamily>, name: string, labels: Record<string, string> = {}): number {
  const family = families.get(name);
  const sample = family?.metrics.find((m) => Object.entries(labels).every(([k, v]) => m.labels?.[k] === v));
  return sample ? Number(sample.value ?? sample.count) : 0;
}

async function metricsPort(server: TestServer): Promise<number> {
  return (await server.waitForLog((l) => l.msg === 'metrics listening')).port as number;
}

t.test('--metrics-listen on a port of its own', async (t) => {
  const server = await serverFor(t, { args: ['--metrics-listen', '0', '--compaction-interval-ms', '0'] });
  const port = await metricsPort(server);
  const url = `http://127.0.0.1:${port}/metrics`;
  const root = rootCredentials(server);
  const sdk = await createKey(server, root, { name: 'sdk', role: 'SDK' });

  // Spans through the SDK, one export with a span whose id is not hex (refused), and some reads.
  const { provider, tracer } = tracerProvider(server, sdk, 'proto', 'prom-test');
  for (let i = 0; i < 3; i++)
    tracer.startActiveSpan(`op-${i}`, (s) => {
      tracer.startSpan('child').end();
      s.end();
    });
  await provider.forceFlush();
  await provider.shutdown();
  const bad = exportRequest([
    { traceId: hex(16), name: 'fine' },
    { traceId: hex(16), spanId: 'not-hex!', name: 'broken' },
  ]);
  const partial = await call(server, 'POST', '/v1/traces', {
    rawBody: JSON.stringify(bad),
    headers: { authorization: sdk.key, 'x-service-app-id': sdk.appId, 'content-type': 'application/json' },
  });
  t.equal(partial.status, 200);
  t.equal(partial.body.partialSuccess?.rejectedSpans, '1');
  for (let i = 0; i < 4; i++) t.equal((await call(server, 'GET', '/v1/traces', { auth: root })).status, 200);
  t.equal((await call(server, 'GET', '/v1/traces')).status, 401);
  t.equal((await call(server, 'GET', '/v1/nowhere', { auth: root })).status, 404);

  const { status, type, families, text } = await scrape(url);
  t.equal(status, 200);
  t.match(type, /^text\/plain; version=0\.0\.4/);
  t.equal(
    value(families, 'tracelake_http_requests_total', { method: 'GET', route: '/v1/traces', status: '200' }),
    4,
    'requests by route pattern and status',
  );
  t.equal(value(families, 'tracelake_http_requests_total', { method: 'GET', route: '/v1/traces', status: '401' }), 1);
  t.equal(
    value(families, 'tracelake_http_requests_total', { method: 'GET', route: 'unmatched', status: '404' }),
    1,
    'unknown paths share one label',
  );
  t.ok(
    value(families, 'tracelake_http_requests_total', { method: 'POST', route: '/v1/traces', status: '200' }) >= 2,
    'exports',
  );
  const latency = families.get('tracelake_http_request_duration_seconds')!;
  t.equal(latency.type, 'HISTOGRAM');
  const listed = histogramSeries(
    text,
    'tracelake_http_request_duration_seconds',
    'method="GET",route="/v1/traces",status="200"',
  );
  t.equal(listed.count, 4, 'a latency histogram per route and status');
  t.equal(listed.inf, 4);
  t.ok(listed.sum > 0);
  t.equal(
    value(families, 'tracelake_spans_ingested_total'),
    7,
    'six spans through the SDK and the good one of the hand-made export',
  );
  t.equal(value(families, 'tracelake_spans_refused_total', { reason: 'invalid' }), 1);
  t.equal(value(families, 'tracelake_spans_refused_total', { reason: 'quota' }), 0);
  t.equal(families.get('tracelake_queue_depth')!.metrics.length, 2, 'a queue depth for each pool');
  t.equal(value(families, 'tracelake_queue_depth', { pool: 'store' }), 0);
  t.equal(value(families, 'tracelake_queue_rejections_total', { pool: 'compute' }), 0);
  t.equal(
    value(families, 'tracelake_queue_abandoned_total', { pool: 'store' }),
    0,
    'no task dropped unrun while every client waited',
  );
  t.equal(value(families, 'tracelake_queue_shed_total', { pool: 'store' }), 0, 'nor for waiting too long');
  t.equal(families.get('tracelake_store_task_duration_seconds')?.type, 'HISTOGRAM');
  t.ok(
    histogramSeries(text, 'tracelake_store_task_duration_seconds', 'task="searchTraces",outcome="ok"').count >= 4,
    'store task latency, by task',
  );
  // Every export is timed in each phase of its way to the answer.
  const exports = value(families, 'tracelake_http_requests_total', {
    method: 'POST',
    route: '/v1/traces',
    status: '200',
  });
  const phases = Object.fromEntries(
    ['check', 'admission', 'log_sync'].map((p) => [
      p,
      histogramSeries(text, 'tracelake_ingest_phase_seconds', `phase="${p}"`),
    ]),
  );
  for (const [phase, series] of Object.entries(phases))
    t.equal(series.count, exports, `ingest phase ${phase}: one observation an export`);
  t.ok(phases.log_sync!.sum > 0 && phases.check!.sum > 0, 'the check and the fdatasync take time');
  const exportLatency = histogramSeries(
    text,
    'tracelake_http_request_duration_seconds',
    'method="POST",route="/v1/traces",status="200"',
  );
  t.ok(
    Object.values(phases).reduce((n, p) => n + p.sum, 0) <= exportLatency.sum,
    "the phases fit in the exports' answer times",
  );
  t.ok(value(families, 'tracelake_segments', { level: '0' }) >= 1, 'segments by level');
  t.ok(value(families, 'tracelake_segment_rows', { level: '0' }) >= 7);
  t.ok(value(families, 'tracelake_database_bytes', { file: 'database' }) > 0, 'the database file size');
  t.equal(value(families, 'tracelake_compacted_segments_total'), 0, 'compaction is off in this test');
  t.equal(value(families, 'tracelake_ingest_replay_failures_total'), 0, 'no worker ended, no replay failed');
  t.ok(value(families, 'process_resident_memory_bytes') > 10 * 1024 * 1024, 'process memory');
  t.ok(families.has('nodejs_heap_size_used_bytes'));
  for (const f of families.values()) t.ok(f.help.length > 0, `${f.name} has help`);

  const again = await scrape(url);
  t.equal(
    value(again.families, 'tracelake_spans_ingested_total'),
    7,
    'counters read from elsewhere do not grow by being scraped',
  );
  t.equal((await fetch(`http://127.0.0.1:${port}/`)).status, 404, 'only /metrics');
  t.equal((await fetch(url, { method: 'POST' })).status, 405);
  t.equal((await call(server, 'GET', '/metrics')).status, 404, 'never on the API port without a setting');
});

t.test('--metrics-listen api serves it on the API port, unauthenticated', async (t) => {
  const server = await serverFor(t, { args: ['--metrics-listen', 'api'] });
  t.notOk(
    server.logs.some((l) => l.msg === 'metrics listening'),
    'no port of its own',
  );
  await call(server, 'GET', '/health');
  const { status, families } = await scrape(`${server.url}/metrics`);
  t.equal(status, 200);
  t.equal(value(families, 'tracelake_http_requests_total', { method: 'GET', route: '/health', status: '200' }), 1);
});

t.test('off by default', async (t) => {
  const server = await serverFor(t);
  t.notOk(server.logs.some((l) => l.msg === 'metrics listening'));
  const r = await call(server, 'GET', '/metrics');
  t.equal(r.status, 404);
  t.equal(r.body.error.code, 'not_found');
});

t.test('summary parts are merged once committed, and an idle store runs no merge', async (t) => {
  const server = await serverFor(t, { args: ['--metrics-listen', 'api'] });
  const root = rootCredentials(server);
  const metric = (name: string) => opsMetric(server, name);
  const send = () => exportSpans(server, root, [{ traceId: hex(16) }]);
  t.equal((await send()).status, 200);
  t.ok(
    await until(async () => (await metric('tracelake_summary_parts_merged_total')) >= 1),
    'the committed part is merged',
  );
  const merges = await metric('tracelake_summary_merges_total');
  // The priority sweep runs once a second: three of them outlast a merge's interval (2 s).
  const sweeps = await metric('tracelake_priority_sweeps_total');
  t.ok(await until(async () => (await metric('tracelake_priority_sweeps_total')) >= sweeps + 3), 'three seconds pass');
  t.equal(await metric('tracelake_summary_merges_total'), merges, 'no merge while nothing was committed');
  t.equal((await send()).status, 200);
  t.ok(
    await until(async () => (await metric('tracelake_summary_parts_merged_total')) >= 2),
    'a new commit: its part merged',
  );
  t.ok((await metric('tracelake_summary_merges_total')) > merges);
});

t.test("the background's time by job, the parts waiting, DuckDB's memory by instance", async (t) => {
  const server = await serverFor(t, {
    args: ['--metrics-listen', 'api', '--compaction-interval-ms', '100', '--compaction-age-ms', '0'],
  });
  const root = rootCredentials(server);
  const metric = (series: string) => opsMetric(server, series);
  // Two exports, two segments: compaction (any two small files, at once) makes one of them.
  for (let i = 0; i < 2; i++) t.equal((await exportSpans(server, root, [{ traceId: hex(16) }])).status, 200);
  t.ok(await until(async () => (await metric('tracelake_compacted_segments_total')) >= 2), 'the two compacted');
  t.ok(await until(async () => (await metric('tracelake_summary_parts_merged_total')) >= 2), 'both parts merged');
  t.equal(await metric('tracelake_summary_parts_waiting'), 0, 'no part waits once merged');
  // Every job runs in the first tick after the start; merge and compaction ran again for these exports.
  for (const job of ['verify', 'checkpoint', 'merge', 'settle', 'compaction', 'rollup', 'retention', 'purge', 'prune'])
    t.ok((await metric(`tracelake_background_seconds_total{job="${job}"}`)) > 0, `${job}: its time counted`);
  const { families } = await scrape(`${server.url}/metrics`);
  const memory = families.get('tracelake_duckdb_memory_bytes')!.metrics;
  const held = memory.filter((m) => m.labels?.instance === 'store').reduce((n, m) => n + Number(m.value), 0);
  t.ok(held > 0, "the store's DuckDB holds memory");
  t.notOk(
    memory.some((m) => m.labels?.instance === 'compaction' && m.labels.tag === 'external_file_cache'),
    "compaction keeps no copy of the files it read (what it holds is reported as the store's is: test/store/spans/fileEngine.test.ts)",
  );
  t.ok(
    memory.every((m) => /^[a-z_]+$/.test(m.labels?.tag ?? '') && Number(m.value) > 0),
    'by tag, the tags holding any',
  );
});

t.test('the way to readable: each generation by stage, each request from its answer', async (t) => {
  const server = await serverFor(t, { args: ['--metrics-listen', 'api', '--flush-interval-ms', '60000'] });
  const root = rootCredentials(server);
  const send = (wait: string) => exportSpans(server, root, [{ traceId: hex(16) }], { 'x-tracelake-wait': wait });
  // One worker, generations cut only on request: the third export's wait cuts the one generation
  // that holds all three, so all three are readable when it is answered.
  for (const wait of ['', '', 'visible']) t.equal((await send(wait)).status, 200);
  const { text } = await scrape(`${server.url}/metrics`);
  const visible = (suffix: string) =>
    Number(
      text
        .split('\n')
        .find((l) => l.startsWith(`tracelake_ingest_visible_seconds_${suffix}`))
        ?.split(' ')
        .pop(),
    );
  t.equal(visible('count'), 3, 'every request kept, from its answer to readable');
  t.ok(visible('sum') > 0);
  for (const stage of ['open', 'write', 'queue', 'commit']) {
    const series = histogramSeries(text, 'tracelake_generation_seconds', `stage="${stage}"`);
    t.equal(series.count, 1, `one generation, timed in stage ${stage}`);
    t.ok(series.sum >= 0);
  }
});
