/**
 * Tracelake in the peer comparison, two ways over the same store:
 * - "Tracelake over HTTP": a real server (child process, fresh data dir) takes the dataset as OTLP
 *   exports over 8 keep-alive connections; ingest is timed until every span is readable; the
 *   queries are the API's (`GET /v1/traces`, `/v1/spans`, `/v1/traces/{id}`,
 *   `/v1/scores/aggregations`, `/v1/sessions/{id}/traces`, `/v1/metrics` twice — cost and tokens by
 *   model, then generations' latency quantiles — and `/v1/spans?format=parquet` read to its end).
 * - "raw DuckDB": the same segment files and summary tables, the store's own query functions (the
 *   identical SQL) called in this process on a DuckDB opened on the stopped server's files — what
 *   the API costs on top of the engine. Its export writes the Parquet file (as the store thread does
 *   for the API) and removes it.
 *
 * Both sets of query functions take only `QueryParams`, so other benches can drive them over any
 * store this runner's dataset filled (`tracelakeHttpQueries`, `openRawDuckDb`).
 *
 * Scores are written with SQL once the spans are in (created_at as the dataset has it), as
 * native-bench/scores does: the API stamps scores with the time they arrive.
 */
import { execFileSync } from 'node:child_process';
import { closeSync, openSync, readSync, rmSync, writeSync } from 'node:fs';
import { join } from 'node:path';
import { parseFilter } from '../../src/core/filter/index.js';
import { planMetrics, type MetricsRequest } from '../../src/core/metrics/plan.js';
import { queryMetrics, type MetricsRow } from '../../src/store/metrics/metrics.js';
import { GROWTH } from '../../src/store/spans/rollups.js';
import { exportSpans } from '../../src/store/spans/spanExport.js';
import { planAggregation } from '../../src/core/scores/selection.js';
import { Database } from '../../src/store/db.js';
import { storeDirs } from '../../src/store/layout.js';
import { aggregateScores } from '../../src/store/scores/scores.js';
import { traceWithSpans, tracesWhere, type SpanSource } from '../../src/store/spans/reads.js';
import type { ReadScope } from '../../src/store/scope.js';
import { searchSpans, searchTraces, type SearchQuery } from '../../src/store/spans/search.js';
import { LocalSegmentStore } from '../../src/store/spans/segmentStore.js';
import { startServer, type TestServer } from '../../test/helpers/server.js';
import { segmentDetail, settled } from '../gateway.js';
import { firstPassDone } from '../serverMetrics.js';
import { closedLoop, encodeRequest } from '../loadClient.js';
import {
  exportWindow,
  metricsByDay,
  METADATA_FILTER,
  PAGE_SIZE,
  SPAN_SEARCH,
  windows,
  type Answers,
  type DayLatency,
  type DayUsage,
  type LoadResult,
  type PeerStore,
  type QueryFns,
  type QueryParams,
  type SpanSummary,
  type TraceSummary,
} from './common.js';
import type { DatasetBatch } from './dataset.js';
import { writeScores } from './scoresSql.js';

const KEY = 'sk_service_' + 'Peers'.repeat(8);
/** How the peers bench runs its server (the scale benches too, so that their figures compare). */
export const SERVER_ARGS = [
  '--workers',
  '2',
  '--duckdb-threads',
  '2',
  '--duckdb-memory',
  '4GiB',
  '--compaction-age-ms',
  '10000',
  // For `firstPassDone` (serverMetrics.ts).
  '--metrics-listen',
  'api',
];

const isoUs = (us: number) => new Date(Math.floor(us / 1000)).toISOString();
const usOf = (iso: string) => Date.parse(iso) * 1000;

type Json = Record<string, unknown>;

function traceOf(t: Json): TraceSummary {
  const start = usOf(t.start as string);
  const end = usOf(t.end as string);
  return {
    id: t.id as string,
    name: (t.name as string | null) ?? null,
    status: t.status as TraceSummary['status'],
    start_us: start,
    end_us: end,
    latency_ms: t.latency_ms as number,
    cost: t.cost as number,
    tokens: t.tokens as number,
    span_count: t.span_count as number,
  };
}

function spanOf(s: Json): SpanSummary {
  return {
    trace_id: s.trace_id as string,
    span_id: s.id as string,
    parent_id: (s.parent_id as string | null) ?? null,
    name: s.name as string,
    type: s.type as string,
    span_kind: s.span_kind as string,
    status: s.status as string,
    start_us: usOf(s.timestamp as string),
    end_us: usOf(s.end_time as string),
    model: (s.model as string | null) ?? null,
    input_tokens: (s.input_tokens as number | null) ?? null,
    output_tokens: (s.output_tokens as number | null) ?? null,
    tokens: (s.tokens as number | null) ?? null,
    cost: (s.cost as number | null) ?? null,
    session_id: (s.session_id as string | null) ?? null,
    user_id: (s.user_id as string | null) ?? null,
    metadata: s.metadata,
  };
}

/** `metricsByDay` as `GET /v1/metrics` requests (spans view, daily buckets), with their filters. */
export const METRICS_REQUESTS = {
  usage: {
    request: { view: 'spans', bucket: 'day', measures: 'cost,total_tokens', group_by: 'model', group_limit: 100 },
    filter: null,
  },
  latency: {
    request: { view: 'spans', bucket: 'day', measures: 'latency_p50,latency_p95' },
    filter: 'type = GENERATION',
  },
} as const satisfies Record<string, { request: MetricsRequest; filter: string | null }>;

const usageOf = (r: MetricsRow): DayUsage => ({
  day: r.bucket,
  model: (r.model as string | null) ?? null,
  cost: Number(r.cost),
  tokens: Number(r.total_tokens),
});
const latencyOf = (r: MetricsRow): DayLatency => ({
  day: r.bucket,
  p50: Number(r.latency_p50),
  p95: Number(r.latency_p95),
});

/** Every model must be a group of the answer, or the peers' (ungrouped-limit) rows would not compare. */
function allGroups(groups: number): void {
  if (groups > METRICS_REQUESTS.usage.request.group_limit)
    throw new Error(`metrics: ${groups} models, more than the group limit`);
}

const SPAN_FILTER = `model = ${SPAN_SEARCH.model} and tokens > ${SPAN_SEARCH.minTokens} and status = ${SPAN_SEARCH.status}`;
const METADATA = `metadata.${METADATA_FILTER.key} = ${METADATA_FILTER.value}`;

/** The latency histogram's bucket of a duration in ms (store/spans/rollups.ts), its percentiles' resolution. */
const histogramBucket = (ms: number) => Math.ceil(Math.log(ms * 1e6) / Math.log(GROWTH));

/**
 * What Tracelake answers that the peers' rows do not hold (span events as JSON, the full input and
 * output on a trace read): `traceById` is compared on the span summary fields, and times on
 * milliseconds, the API's resolution; latency percentiles on the histogram's buckets (Tracelake reads
 * them from a histogram, within 1%). The runner applies this to every store's answers when
 * Tracelake is in the comparison.
 */
export function comparable(a: Partial<Answers>): Partial<Answers> {
  const ms = (us: number) => us - (us % 1000);
  const span = (s: SpanSummary): SpanSummary => ({ ...s, start_us: ms(s.start_us), end_us: ms(s.end_us) });
  const trace = (t: TraceSummary): TraceSummary => ({ ...t, start_us: ms(t.start_us), end_us: ms(t.end_us) });
  return {
    ...a,
    ...(a.latestTraces ? { latestTraces: { ...a.latestTraces, traces: a.latestTraces.traces.map(trace) } } : {}),
    ...(a.metricsByDay
      ? {
          metricsByDay: {
            ...a.metricsByDay,
            latency: a.metricsByDay.latency.map((d) => ({
              ...d,
              p50: histogramBucket(d.p50),
              p95: histogramBucket(d.p95),
            })),
          },
        }
      : {}),
    ...(a.sessionById ? { sessionById: { ...a.sessionById, traces: a.sessionById.traces.map(trace) } } : {}),
    ...(a.spanSearch ? { spanSearch: { ...a.spanSearch, spans: a.spanSearch.spans.map(span) } } : {}),
    ...(a.metadataFilter ? { metadataFilter: { ...a.metadataFilter, spans: a.metadataFilter.spans.map(span) } } : {}),
    ...(a.traceById
      ? {
          traceById: {
            trace_id: a.traceById.trace_id,
            spans: a.traceById.spans.map((s) => {
              const { status_message: _m, input: _i, output: _o, attributes: _a, events: _e, ...summary } = s;
              return span(summary) as Answers['traceById']['spans'][number];
            }),
          },
        }
      : {}),
  };
}

/** Where a Tracelake server answers, and as whom (read when a query runs: the server may restart). */
export interface TracelakeTarget {
  url: string;
  key: string;
  appId: string;
}

/** The queries through Tracelake's API (the HTTP side of `QueryFns`). */
export function tracelakeHttpQueries(target: () => TracelakeTarget): QueryFns {
  const request = async (path: string): Promise<Response> => {
    const t = target();
    return fetch(`${t.url}${path}`, { headers: { authorization: t.key, 'x-service-app-id': t.appId } });
  };
  const get = async (path: string): Promise<Json> => {
    const r = await request(path);
    const body = (await r.json()) as Json;
    if (r.status !== 200) throw new Error(`${path}: ${r.status} ${JSON.stringify(body)}`);
    return body;
  };
  const range = (w: { fromUs: number; toUs: number }) =>
    `start_date=${encodeURIComponent(isoUs(w.fromUs))}&end_date=${encodeURIComponent(isoUs(w.toUs))}`;
  const spans = async (filter: string, w: { fromUs: number; toUs: number }) => {
    const body = await get(`/v1/spans?limit=${PAGE_SIZE}&${range(w)}&filter=${encodeURIComponent(filter)}`);
    return { total: (body.pagination as { total: number }).total, spans: (body.data as Json[]).map(spanOf) };
  };
  const metrics = async (
    m: (typeof METRICS_REQUESTS)[keyof typeof METRICS_REQUESTS],
    w: { fromUs: number; toUs: number },
  ): Promise<{ rows: MetricsRow[]; groups: number }> => {
    const query = Object.entries(m.request).map(([k, v]) => `${k}=${encodeURIComponent(v)}`);
    if (m.filter !== null) query.push(`filter=${encodeURIComponent(m.filter)}`);
    const body = await get(`/v1/metrics?${query.join('&')}&${range(w)}`);
    return { rows: body.data as MetricsRow[], groups: (body.meta as { groups: number }).groups };
  };
  return {
    latestTraces: async (p) => {
      const body = await get(`/v1/traces?limit=${PAGE_SIZE}&${range(windows(p).day)}`);
      return { total: (body.pagination as { total: number }).total, traces: (body.data as Json[]).map(traceOf) };
    },
    spanSearch: (p) => spans(SPAN_FILTER, windows(p).week),
    traceById: async (p) => {
      const body = await get(`/v1/traces/${p.traceId}`);
      const list = ((body.data as Json).spans as Json[]).map((s) => ({
        ...spanOf(s),
        status_message: null,
        input: null,
        output: null,
        attributes: null,
        events: null,
      }));
      return { trace_id: p.traceId, spans: list };
    },
    metadataFilter: (p) => spans(METADATA, windows(p).week),
    scoreAggregation: async (p) => {
      const body = await get(`/v1/scores/aggregations?${range(windows(p).month)}`);
      return (body.data as Json[]).map((a) => ({
        name: a.name as string,
        count: a.count as number,
        avg: a.avg_score as number,
        min: a.min_score as number,
        max: a.max_score as number,
      }));
    },
    sessionById: async (p) => {
      const body = await get(`/v1/sessions/${encodeURIComponent(p.sessionId)}/traces?limit=${PAGE_SIZE}`);
      return {
        session_id: p.sessionId,
        total: (body.pagination as { total: number }).total,
        traces: (body.data as Json[]).map(traceOf),
      };
    },
    metricsByDay: async (p) => {
      const { month } = windows(p);
      const usage = await metrics(METRICS_REQUESTS.usage, month);
      allGroups(usage.groups);
      const latency = await metrics(METRICS_REQUESTS.latency, month);
      return metricsByDay(usage.rows.map(usageOf), latency.rows.map(latencyOf));
    },
    exportDay: async (p) => {
      const path = `/v1/spans?format=parquet&${range(exportWindow(p))}`;
      const r = await request(path);
      if (r.status !== 200 || !r.body) throw new Error(`${path}: ${r.status} ${await r.text()}`);
      // Read to its end and discarded, as a client writing the file elsewhere would.
      const reader = r.body.getReader();
      while (!(await reader.read()).done);
      return { rows: Number(r.headers.get('x-total-count')) };
    },
  };
}

export class TracelakePeer implements PeerStore {
  readonly name = 'Tracelake (HTTP)';
  private server: TestServer | null = null;
  private scope: ReadScope | null = null;
  /** Ingest requests answered 503 (back-pressure) and sent again. */
  private backPressured = 0;
  readonly queries: QueryFns;

  constructor(private readonly log: (line: string) => void) {
    this.queries = tracelakeHttpQueries(() => ({ url: this.server!.url, key: KEY, appId: this.scope!.appId }));
  }

  get dataDir(): string {
    return this.server!.dataDir;
  }

  get readScope(): ReadScope {
    return this.scope!;
  }

  async load(batches: Iterable<DatasetBatch>, log = this.log): Promise<LoadResult> {
    this.server = await startServer({ env: { TRACELAKE_BOOTSTRAP_KEY: KEY }, args: SERVER_ARGS });
    const b = this.server.bootstrap!;
    this.scope = { tenantId: b.tenant_id as string, appId: b.app_id as string, environmentId: null };
    const target = {
      host: '127.0.0.1',
      port: this.server.port,
      path: '/v1/traces',
      headers: { authorization: KEY, 'x-service-app-id': this.scope.appId, 'content-type': 'application/x-protobuf' },
    };
    // The requests are rendered to a file first (untimed, as the peers render their COPY text);
    // the timed part reads them back one by one and sends them over 8 keep-alive connections.
    const rendered = join(this.server.dataDir, '..', `tracelake-peer-load-${process.pid}.bin`);
    const frames: { offset: number; length: number }[] = [];
    // Scores go to a file the store can read (its tmp dir), loaded once the spans are in.
    const scoresFile = join(storeDirs(this.server.dataDir).tmp, 'bench-scores.tsv');
    let spans = 0;
    let scores = 0;
    const renderStarted = performance.now();
    const out = openSync(rendered, 'w');
    const scoresOut = openSync(scoresFile, 'w');
    try {
      let offset = 0;
      for (const batch of batches) {
        const request = encodeRequest(target, batch.encoded);
        writeSync(out, request);
        frames.push({ offset, length: request.length });
        offset += request.length;
        spans += batch.spans.length;
        scores += batch.scores.length;
        let text = '';
        for (const x of batch.scores)
          text += `${x.id}\t${x.traceId}\t${x.name}\t${x.value}\t${x.source}\t${x.timestampUs}\n`;
        writeSync(scoresOut, text);
      }
    } finally {
      closeSync(out);
      closeSync(scoresOut);
    }
    log(
      `${this.name}: rendered ${spans.toLocaleString('en-US')} spans in ${frames.length} requests in ${((performance.now() - renderStarted) / 1000).toFixed(1)} s (untimed)`,
    );
    const input = openSync(rendered, 'r');
    let next = 0;
    const started = performance.now();
    try {
      // A 503 is the gateway's back-pressure (its unprocessed log is past the bound): the request
      // is sent again after Retry-After, as an exporter would, and the wait counts in the ingest time.
      await closedLoop(
        '127.0.0.1',
        this.server!.port,
        8,
        () => {
          const frame = frames[next++];
          if (!frame) return null;
          const request = Buffer.allocUnsafe(frame.length);
          readSync(input, request, 0, frame.length, frame.offset);
          return request;
        },
        (a) => {
          if (a.status === 200) return;
          if (a.status !== 503) throw new Error(`ingest answered ${a.status}`);
          this.backPressured++;
          return 1000 * Number(a.headers['retry-after'] ?? 1);
        },
      );
      if (this.backPressured > 0)
        log(
          `${this.name}: ${this.backPressured} requests answered 503 (back-pressure) and were sent again after Retry-After`,
        );
    } finally {
      closeSync(input);
      rmSync(rendered, { force: true });
    }
    while ((await this.totalSpans()) < spans) await new Promise((r) => setTimeout(r, 100));
    const ingestSeconds = (performance.now() - started) / 1000;
    log(
      `${this.name}: ${spans.toLocaleString('en-US')} spans readable after ${ingestSeconds.toFixed(1)} s; waiting for compaction`,
    );
    const settleStarted = performance.now();
    await settled(this.server!, 500);
    const detail = await segmentDetail(this.server!);
    await this.server.stop('SIGTERM');
    const dbBytes = Number(
      execFileSync('du', ['-sb', join(this.server.dataDir, 'tracelake.duckdb')])
        .toString()
        .split('\t')[0],
    );
    const spanBytes = detail.segment_bytes + dbBytes;
    await writeScores(this.server.dataDir, this.scope, scoresFile);
    rmSync(scoresFile, { force: true });
    this.server = await startServer({
      dataDir: this.server.dataDir,
      env: { TRACELAKE_BOOTSTRAP_KEY: KEY },
      args: SERVER_ARGS,
    });
    await firstPassDone(this.server, 100);
    return {
      spans,
      scores,
      ingestSeconds,
      spansPerSecond: spans / ingestSeconds,
      settleSeconds: (performance.now() - settleStarted) / 1000,
      spanBytes,
      bytesPerSpan: spanBytes / spans,
      scoreBytes: 0,
    };
  }

  async close(): Promise<void> {
    if (!this.server) return;
    await this.server.stop('SIGTERM');
    rmSync(this.server.dataDir, { recursive: true, force: true });
    this.server = null;
  }

  /** Stops the server (for the raw DuckDB comparison on its files); `close` removes them. */
  async stop(): Promise<void> {
    await this.server?.stop('SIGTERM');
  }

  private async totalSpans(): Promise<number> {
    const r = await fetch(
      `${this.server!.url}/v1/spans?limit=1&start_date=${encodeURIComponent(new Date(Date.now() - 89 * 86_400_000).toISOString())}`,
      { headers: { authorization: KEY, 'x-service-app-id': this.scope!.appId } },
    );
    return ((await r.json()) as { pagination: { total: number } }).pagination.total;
  }
}

/** The store's own query functions on a (stopped) Tracelake's files, in this process. */
export async function openRawDuckDb(
  dataDir: string,
  scope: ReadScope,
): Promise<PeerStore & { src: SpanSource; close(): Promise<void> }> {
  const db = await Database.open({ dataDir, threads: 2, memoryLimit: '4GiB', queryTimeoutMs: 600_000 });
  const src = { db, segments: new LocalSegmentStore(storeDirs(dataDir).segments) };
  const query = (w: { fromUs: number; toUs: number }): SearchQuery => ({
    scope,
    fromMs: w.fromUs / 1000,
    toMs: w.toUs / 1000,
    limit: PAGE_SIZE,
    offset: 0,
    sortBy: 'start',
    sortOrder: 'desc',
    format: 'json',
  });
  const spans = async (filter: string, w: { fromUs: number; toUs: number }) => {
    const a = await searchSpans(src, query(w), parseFilter(filter, 'spans'));
    if (a.kind !== 'json') throw new Error('json expected');
    return { total: a.total, spans: a.data.map((s) => spanOf(s as Json)) };
  };
  const queries: QueryFns = {
    latestTraces: async (p: QueryParams) => {
      const a = await searchTraces(src, query(windows(p).day), []);
      if (a.kind !== 'json') throw new Error('json expected');
      return { total: a.total, traces: a.data.map((t) => traceOf(t as unknown as Json)) };
    },
    spanSearch: (p) => spans(SPAN_FILTER, windows(p).week),
    traceById: async (p) => {
      const found = await traceWithSpans(src, scope, p.traceId);
      return {
        trace_id: p.traceId,
        spans: (found?.spans ?? []).map((s) => ({
          ...spanOf(s as unknown as Json),
          status_message: null,
          input: null,
          output: null,
          attributes: null,
          events: null,
        })),
      };
    },
    metadataFilter: (p) => spans(METADATA, windows(p).week),
    scoreAggregation: async (p) => {
      const w = windows(p).month;
      const rows = await aggregateScores(
        db,
        scope,
        planAggregation({ start_date: isoUs(w.fromUs), end_date: isoUs(w.toUs) }, Date.now()),
      );
      return rows.map((a) => ({ name: a.name, count: a.count, avg: a.avg_score, min: a.min_score, max: a.max_score }));
    },
    sessionById: async (p) => {
      const page = await tracesWhere(db, scope, 'session_id', p.sessionId, PAGE_SIZE, 0);
      return {
        session_id: p.sessionId,
        total: page.total,
        traces: page.data.map((t) => traceOf(t as unknown as Json)),
      };
    },
    metricsByDay: async (p) => {
      const w = windows(p).month;
      const window = { fromMs: w.fromUs / 1000, toMs: w.toUs / 1000 };
      const run = (m: (typeof METRICS_REQUESTS)[keyof typeof METRICS_REQUESTS]) =>
        queryMetrics(
          src,
          planMetrics(m.request, window),
          scope,
          m.filter === null ? [] : parseFilter(m.filter, 'spans'),
        );
      const usage = await run(METRICS_REQUESTS.usage);
      allGroups(usage.groups);
      const latency = await run(METRICS_REQUESTS.latency);
      return metricsByDay(usage.rows.map(usageOf), latency.rows.map(latencyOf));
    },
    exportDay: async (p) => {
      const file = await exportSpans(src, query(exportWindow(p)), [], 'parquet', null);
      rmSync(file.path, { force: true });
      return { rows: file.rows };
    },
  };
  return {
    name: 'raw DuckDB (same files)',
    queries,
    src,
    load: () => Promise.reject(new Error('the raw DuckDB store reads what Tracelake loaded')),
    async close() {
      db.close();
    },
  };
}
