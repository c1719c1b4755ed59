/**
 * What every peer baseline shares: the row it stores for a span, the queries' parameters, their
 * normalised answers (so answers can be compared across stores, and with Tracelake's), the
 * comparison, and the interface a runner drives.
 *
 * Normalised answers: times are Unix epoch microseconds (both peers keep microseconds: Postgres
 * `timestamptz`, SQLite integers), JSON objects are compared with sorted keys, and numbers that
 * come out of floating sums (cost, score averages) are compared to 9 significant digits, within
 * two steps of the ninth, because the stores add in different orders.
 *
 * The three bulk queries (`sessionById`, `metricsByDay`, `exportDay`):
 * - a session's traces are compared as the latest page of traces is (summaries, newest first, the
 *   session's total);
 * - the metrics by day are `GET /v1/metrics`'s measures: rows sorted by day then model (the API
 *   orders groups by their size), costs and tokens summed over every span of the window (a span
 *   without a model is the group `null`), latency p50/p95 of generations as DuckDB's
 *   `quantile_cont` (linear interpolation between the two nearest ranks: PostgreSQL's
 *   `percentile_cont`, and SQLite's window-function equivalent), all to 9 significant digits.
 *   Tracelake sums cost as DECIMAL(38, 12); the peers sum their float column, as they would: the
 *   difference is below the ninth digit;
 * - an export is compared by its row count only (the formats differ: Parquet, PostgreSQL's binary
 *   COPY, SQLite rows).
 */
import type { SpanRecord } from '../../src/core/span.js';
import { PREVIEW_CHARS } from '../../src/store/spans/columns.js';
import {
  batchCount,
  DAY_MS,
  datasetBatch,
  HOUR_MS,
  sampleTraceId,
  toUs,
  type DatasetBatch,
  type DatasetOptions,
} from './dataset.js';

// ---------------------------------------------------------------------------------------------
// The stored row
// ---------------------------------------------------------------------------------------------

/**
 * The span row both peers store, in column order. Phoenix's `spans` (span_kind, status_code,
 * attributes and events as JSON, start/end times) and Langfuse v2's `observations` (type
 * SPAN/GENERATION/EVENT, model, token counts and cost as columns, input/output, metadata as JSON)
 * merged into one row per span. Not kept (neither peer keeps them per span): resource and scope
 * attributes, tags, graph attributes, run id, prompt name, cached input tokens.
 */
export const SPAN_COLUMNS = [
  'span_id',
  'trace_id',
  'parent_id',
  'name',
  'span_type',
  'span_kind',
  'status_code',
  'status_message',
  'start_time',
  'end_time',
  'model',
  'input_tokens',
  'output_tokens',
  'total_tokens',
  'cost',
  'input',
  'output',
  'attributes',
  'events',
  'metadata',
  'session_id',
  'user_id',
] as const;

/** One span's values in `SPAN_COLUMNS` order; times in microseconds, JSON columns as JSON text. */
export type SpanValues = [
  span_id: string,
  trace_id: string,
  parent_id: string | null,
  name: string,
  span_type: string,
  span_kind: string,
  status_code: string,
  status_message: string | null,
  start_us: number,
  end_us: number,
  model: string | null,
  input_tokens: number | null,
  output_tokens: number | null,
  total_tokens: number | null,
  cost: number | null,
  input: string | null,
  output: string | null,
  attributes: string,
  events: string,
  metadata: string,
  session_id: string | null,
  user_id: string | null,
];

/**
 * Span events are rows of type EVENT (Tracelake's mapping, and Langfuse v2's: events are
 * observations), so the Phoenix-style `events` column stays an empty array. The workload sends none.
 */
export function spanValues(s: SpanRecord): SpanValues {
  return [
    s.spanId,
    s.traceId,
    s.parentId,
    s.name,
    s.type,
    s.spanKind,
    s.status,
    s.statusMessage,
    toUs(s.startNs),
    toUs(s.endNs),
    s.model,
    s.inputTokens,
    s.outputTokens,
    s.tokens,
    s.cost,
    s.input,
    s.output,
    JSON.stringify(s.attributes),
    '[]',
    JSON.stringify(s.metadata),
    s.sessionId,
    s.userId,
  ];
}

export interface TraceRollups {
  ids: string[];
  startUs: number[];
  endUs: number[];
  /** The first session id the trace's spans name (Langfuse v2's `traces.session_id`). */
  sessionIds: (string | null)[];
}

/**
 * Per-trace start, end and session within one batch: the `traces` rows to upsert (Phoenix's
 * rollup; Langfuse v2 keeps the session on its trace row, Phoenix a session row the trace points to).
 */
export function traceRollups(batch: DatasetBatch): TraceRollups {
  const at = new Map<string, number>();
  const r: TraceRollups = { ids: [], startUs: [], endUs: [], sessionIds: [] };
  for (const s of batch.spans) {
    const start = toUs(s.startNs);
    const end = toUs(s.endNs);
    const i = at.get(s.traceId);
    if (i === undefined) {
      at.set(s.traceId, r.ids.length);
      r.ids.push(s.traceId);
      r.startUs.push(start);
      r.endUs.push(end);
      r.sessionIds.push(s.sessionId);
    } else {
      if (start < r.startUs[i]!) r.startUs[i] = start;
      if (end > r.endUs[i]!) r.endUs[i] = end;
      r.sessionIds[i] ??= s.sessionId;
    }
  }
  return r;
}

// ---------------------------------------------------------------------------------------------
// Queries
// ---------------------------------------------------------------------------------------------

export const QUERY_NAMES = [
  'latestTraces',
  'spanSearch',
  'traceById',
  'metadataFilter',
  'scoreAggregation',
  'sessionById',
  'metricsByDay',
  'exportDay',
] as const;
export type QueryName = (typeof QUERY_NAMES)[number];

export const QUERY_LABELS: Record<QueryName, string> = {
  latestTraces: 'latest page of traces (24 h)',
  spanSearch: 'span search, 3 predicates (7 d)',
  traceById: 'one trace by id',
  metadataFilter: 'spans, metadata.customer (7 d)',
  scoreAggregation: 'score aggregation (30 d)',
  sessionById: 'one session with its traces',
  metricsByDay: 'metrics by day (30 d)',
  exportDay: 'export of one day (24 h)',
};

export interface QueryParams {
  /** The "now" the windows end at (Unix ms), normally the dataset's `endMs`. */
  nowMs: number;
  /** The trace opened by `traceById`. */
  traceId: string;
  /** The session opened by `sessionById`. */
  sessionId: string;
}

/**
 * The session of `sampleTraceId`'s trace, found in the batch at `fraction` of the dataset (the one
 * that `sampleTraceId` picks its trace from).
 */
export function sampleSessionId(options: DatasetOptions, fraction = 0.9): string {
  const traceId = sampleTraceId(options, fraction);
  const batches = batchCount(options);
  const batch = datasetBatch(options, Math.min(batches - 1, Math.floor(batches * fraction)));
  const sessionId = batch.spans.find((s) => s.traceId === traceId && s.sessionId !== null)?.sessionId;
  if (!sessionId) throw new Error(`the sample trace ${traceId} names no session`);
  return sessionId;
}

/** The constants of the queries, in one place for every store. */
export const PAGE_SIZE = 50;
export const SPAN_SEARCH = { model: 'gpt-4o', minTokens: 1500, status: 'OK' } as const;
export const METADATA_FILTER = { key: 'customer', value: 'customer-3' } as const;

/** A window [fromUs, toUs): from `now - length` inclusive to `now` exclusive, in microseconds. */
export interface Window {
  fromUs: number;
  toUs: number;
}
const window = (nowMs: number, lengthMs: number): Window => ({ fromUs: (nowMs - lengthMs) * 1000, toUs: nowMs * 1000 });
export const windows = (p: QueryParams) => ({
  day: window(p.nowMs, 24 * HOUR_MS),
  week: window(p.nowMs, 7 * DAY_MS),
  month: window(p.nowMs, 30 * DAY_MS),
});

/** The day that `exportDay` exports: the last 24 hours. */
export const exportWindow = (p: QueryParams): Window => windows(p).day;

/** The start (ISO 8601) of the UTC day with index `day` since the epoch. */
export const dayIso = (day: number): string => new Date(day * DAY_MS).toISOString();

/** A metrics answer in the one order every store is compared in: by day, then model (null last). */
export function metricsByDay(usage: DayUsage[], latency: DayLatency[]): MetricsByDay {
  const byModel = (a: string | null, b: string | null) =>
    a === b ? 0 : a === null ? 1 : b === null ? -1 : a < b ? -1 : 1;
  return {
    usage: [...usage].sort((a, b) => (a.day === b.day ? byModel(a.model, b.model) : a.day < b.day ? -1 : 1)),
    latency: [...latency].sort((a, b) => (a.day < b.day ? -1 : a.day > b.day ? 1 : 0)),
  };
}

/** The columns an export writes, in the peers' names (Tracelake's export, without what they do not keep). */
export const EXPORT_COLUMNS = `span_id, trace_id, parent_id, name, span_type, span_kind, status_code, status_message, start_time, end_time,
  model, input_tokens, output_tokens, total_tokens, cost, session_id, user_id,
  substr(input, 1, ${PREVIEW_CHARS}) AS input_preview, substr(output, 1, ${PREVIEW_CHARS}) AS output_preview, metadata`;

export interface TraceSummary {
  id: string;
  name: string | null;
  status: 'ERROR' | 'OK' | 'UNSET';
  start_us: number;
  end_us: number;
  latency_ms: number;
  cost: number | null;
  tokens: number | null;
  span_count: number;
}

/** A span as listed by searches (no input, output or attributes). */
export interface SpanSummary {
  trace_id: string;
  span_id: string;
  parent_id: string | null;
  name: string;
  type: string;
  span_kind: string;
  status: string;
  start_us: number;
  end_us: number;
  model: string | null;
  input_tokens: number | null;
  output_tokens: number | null;
  tokens: number | null;
  cost: number | null;
  session_id: string | null;
  user_id: string | null;
  metadata: unknown;
}

/** A span as opened in a trace: everything stored. */
export interface FullSpan extends SpanSummary {
  status_message: string | null;
  input: string | null;
  output: string | null;
  attributes: unknown;
  events: unknown;
}

export interface ScoreAggregate {
  name: string;
  count: number;
  avg: number;
  min: number;
  max: number;
}

/** Cost and tokens of one model's spans on one UTC day (`model` null: spans without a model). */
export interface DayUsage {
  /** The day's start, ISO 8601. */
  day: string;
  model: string | null;
  cost: number;
  tokens: number;
}

/** Latency quantiles (ms) of one UTC day's generations. */
export interface DayLatency {
  day: string;
  p50: number;
  p95: number;
}

export interface MetricsByDay {
  usage: DayUsage[];
  latency: DayLatency[];
}

export interface Answers {
  latestTraces: { total: number; traces: TraceSummary[] };
  spanSearch: { total: number; spans: SpanSummary[] };
  traceById: { trace_id: string; spans: FullSpan[] };
  metadataFilter: { total: number; spans: SpanSummary[] };
  scoreAggregation: ScoreAggregate[];
  /** The session's newest `PAGE_SIZE` traces and how many it has. */
  sessionById: { session_id: string; total: number; traces: TraceSummary[] };
  metricsByDay: MetricsByDay;
  /** Spans streamed out. */
  exportDay: { rows: number };
}

export type QueryFns = { [K in QueryName]: (p: QueryParams) => Promise<Answers[K]> };

/** Trace status from its spans: ERROR if any span is ERROR, else OK if any is OK, else UNSET. */
export const traceStatus = (anyError: unknown, anyOk: unknown): TraceSummary['status'] =>
  truthy(anyError) ? 'ERROR' : truthy(anyOk) ? 'OK' : 'UNSET';
const truthy = (v: unknown) => v === true || v === 1 || v === '1' || v === 't';

export const latencyMs = (startUs: number, endUs: number) => (endUs - startUs) / 1000;

/** The columns a search lists (`SpanSummary`), in the stores' names. */
export const SUMMARY_COLUMNS =
  'trace_id, span_id, parent_id, name, span_type, span_kind, status_code, start_time, end_time, model, input_tokens, output_tokens, total_tokens, cost, session_id, user_id, metadata';
/** Every column of an opened span (`FullSpan`). */
export const FULL_COLUMNS = `${SUMMARY_COLUMNS}, status_message, input, output, attributes, events`;

/** How a store's values become normalised ones: times to microseconds, JSON to values. */
export interface Conv {
  time(v: unknown): number;
  json(v: unknown): unknown;
}

type Row = Record<string, unknown>;
const str = (v: unknown) => v as string;
const strOrNull = (v: unknown) => (v === null || v === undefined ? null : String(v));
const numOrNull = (v: unknown) => (v === null || v === undefined ? null : Number(v));

export function toSpanSummary(r: Row, c: Conv): SpanSummary {
  return {
    trace_id: str(r.trace_id),
    span_id: str(r.span_id),
    parent_id: strOrNull(r.parent_id),
    name: str(r.name),
    type: str(r.span_type),
    span_kind: str(r.span_kind),
    status: str(r.status_code),
    start_us: c.time(r.start_time),
    end_us: c.time(r.end_time),
    model: strOrNull(r.model),
    input_tokens: numOrNull(r.input_tokens),
    output_tokens: numOrNull(r.output_tokens),
    tokens: numOrNull(r.total_tokens),
    cost: numOrNull(r.cost),
    session_id: strOrNull(r.session_id),
    user_id: strOrNull(r.user_id),
    metadata: c.json(r.metadata),
  };
}

export function toFullSpan(r: Row, c: Conv): FullSpan {
  return {
    ...toSpanSummary(r, c),
    status_message: strOrNull(r.status_message),
    input: strOrNull(r.input),
    output: strOrNull(r.output),
    attributes: c.json(r.attributes),
    events: c.json(r.events),
  };
}

/** A row of a latest-traces query: trace_id, start_time, end_time, name, any_error, any_ok, cost, tokens, span_count. */
export function toTraceSummary(r: Row, c: Conv): TraceSummary {
  const start = c.time(r.start_time);
  const end = c.time(r.end_time);
  return {
    id: str(r.trace_id),
    name: strOrNull(r.name),
    status: traceStatus(r.any_error, r.any_ok),
    start_us: start,
    end_us: end,
    latency_ms: latencyMs(start, end),
    cost: numOrNull(r.cost),
    tokens: numOrNull(r.tokens),
    span_count: Number(r.span_count),
  };
}

export const toScoreAggregate = (r: Row): ScoreAggregate => ({
  name: str(r.name),
  count: Number(r.count),
  avg: Number(r.avg),
  min: Number(r.min),
  max: Number(r.max),
});

// ---------------------------------------------------------------------------------------------
// The store interface a runner drives
// ---------------------------------------------------------------------------------------------

export interface LoadResult {
  spans: number;
  scores: number;
  /** Wall time of the timed, durable span writes (dataset generation and row rendering excluded). */
  ingestSeconds: number;
  spansPerSecond: number;
  /** Time after the load to settle the store before measuring (VACUUM ANALYZE / ANALYZE + checkpoint); not in `ingestSeconds`. */
  settleSeconds: number;
  /** On-disk bytes of the span and trace tables with their indexes (scores excluded). */
  spanBytes: number;
  bytesPerSpan: number;
  /** On-disk bytes of the scores table with its indexes. */
  scoreBytes: number;
}

export interface PeerStore {
  readonly name: string;
  /** Loads the dataset (only the store's writes are timed); call once. */
  load(batches: Iterable<DatasetBatch>, log?: (line: string) => void): Promise<LoadResult>;
  readonly queries: QueryFns;
  /** Stops the store and removes its files. Safe to call twice. */
  close(): Promise<void>;
}

// ---------------------------------------------------------------------------------------------
// Comparison and timing
// ---------------------------------------------------------------------------------------------

const roundNumber = (v: number) => (Number.isInteger(v) ? v : Number(v.toPrecision(9)));

/** A canonical form: object keys sorted, non-integers to 9 significant digits. */
export function canonical(v: unknown): unknown {
  if (typeof v === 'number') return roundNumber(v);
  if (Array.isArray(v)) return v.map(canonical);
  if (v !== null && typeof v === 'object') {
    const out: Record<string, unknown> = {};
    for (const k of Object.keys(v).sort()) out[k] = canonical((v as Record<string, unknown>)[k]);
    return out;
  }
  return v;
}

/**
 * Two sums the stores added in different orders, each rounded to 9 significant digits: they can
 * fall either side of a rounding step (160.607428 and 160.607427), so they are equal within two
 * steps of the ninth digit.
 */
function nearlyEqual(x: number, y: number): boolean {
  return Math.abs(x - y) <= 2e-8 * Math.max(Math.abs(x), Math.abs(y));
}

/** Differences between two answers, as `path: a ≠ b` lines (at most `max`). Empty when equal. */
export function diffAnswers(a: unknown, b: unknown, max = 10): string[] {
  const out: string[] = [];
  const walk = (x: unknown, y: unknown, path: string) => {
    if (out.length >= max) return;
    if (Array.isArray(x) && Array.isArray(y)) {
      if (x.length !== y.length) out.push(`${path}.length: ${x.length} ≠ ${y.length}`);
      for (let i = 0; i < Math.min(x.length, y.length); i++) walk(x[i], y[i], `${path}[${i}]`);
      return;
    }
    if (
      x !== null &&
      y !== null &&
      typeof x === 'object' &&
      typeof y === 'object' &&
      !Array.isArray(x) &&
      !Array.isArray(y)
    ) {
      const keys = new Set([...Object.keys(x), ...Object.keys(y)]);
      for (const k of [...keys].sort())
        walk((x as Record<string, unknown>)[k], (y as Record<string, unknown>)[k], `${path}.${k}`);
      return;
    }
    // Counts stay exact: only sums (never both integers) are compared within the rounding steps.
    if (
      typeof x === 'number' &&
      typeof y === 'number' &&
      !(Number.isInteger(x) && Number.isInteger(y)) &&
      nearlyEqual(x, y)
    )
      return;
    if (JSON.stringify(x) !== JSON.stringify(y)) out.push(`${path}: ${JSON.stringify(x)} ≠ ${JSON.stringify(y)}`);
  };
  walk(canonical(a), canonical(b), '$');
  return out;
}

export interface Timing {
  median: number;
  p99: number;
  runs: number;
}

/** Runs `fn` `warmup` times untimed, then `runs` times; median and p99 in ms. */
export async function timeQuery(fn: () => Promise<unknown>, runs: number, warmup = 3): Promise<Timing> {
  for (let i = 0; i < warmup; i++) await fn();
  const ms: number[] = [];
  for (let i = 0; i < runs; i++) {
    const t0 = performance.now();
    await fn();
    ms.push(performance.now() - t0);
  }
  ms.sort((x, y) => x - y);
  return {
    median: ms[Math.floor(ms.length / 2)]!,
    p99: ms[Math.min(ms.length - 1, Math.ceil(ms.length * 0.99) - 1)]!,
    runs,
  };
}
