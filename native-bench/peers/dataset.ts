/**
 * The dataset shared by the peer baselines (and by a runner that also sends it to Tracelake): the
 * LLM agent traces of `../workload.ts`, spread over the last `days` days, plus NUMERIC scores on
 * those traces. Deterministic for (`seed`, `endMs`), and streamed batch by batch so that 10M spans
 * never sit in memory at once.
 *
 * Each batch goes through the gateway's own path: `exportBatch` → protobuf (`encodeExportRequest`,
 * kept as `encoded` for whoever sends it over OTLP/HTTP) → `decodeExportRequest` →
 * `mapExportRequest` with the shipped price table (as the compute worker does) → `SpanRecord[]`.
 *
 * One change to the workload's output: its ids come from a 32-bit xorshift (2^32 states), so the
 * batches' seeds land on overlapping stretches of the generator and repeat ids (counted with this
 * file's seeds: 75 repeated span ids in 1M spans; 376 repeated trace ids and 13,064 repeated span
 * ids in 10M). A baseline with a primary key would then refuse rows that Tracelake silently skips
 * (and a repeated trace id merges two traces), so the first 4 bytes of every trace id and span id
 * are overwritten with a bijective mix of a running counter: ids stay random-looking (no
 * sequential B-tree inserts) and are unique by construction. Parents follow, because the workload
 * shares one Buffer between a root's id and its children's parent id.
 */
import { readFileSync } from 'node:fs';
import { compilePriceTable, costOf, parsePriceTable } from '../../src/core/cost/pricing.js';
import type { SpanRecord } from '../../src/core/span.js';
import { mapExportRequest } from '../../src/core/otlp/map.js';
import { decodeExportRequest, encodeExportRequest } from '../../test/helpers/otlpProto.js';
import { exportBatch, xorshiftRandom } from '../workload.js';

export const MINUTE_MS = 60_000;
export const HOUR_MS = 60 * MINUTE_MS;
export const DAY_MS = 24 * HOUR_MS;

export interface DatasetOptions {
  /** Spans in all (OTel spans; the workload sends no span events, so also rows). */
  spans: number;
  /** Seed of every random choice. */
  seed?: number;
  /** The dataset's "now" (integer Unix ms): spans lie in [endMs - days, endMs - 1 min]. */
  endMs: number;
  /** Days the spans are spread over (default 6). */
  days?: number;
  /** Spans per export request (default 512, as native-bench/ingest sends them). */
  batchSize?: number;
  /** NUMERIC scores per trace (default 8: as many scores as spans). */
  scoresPerTrace?: number;
  /**
   * Consecutive traces that share a session (default: the workload's own, 5,000 sessions drawn at
   * random, which at 100M spans makes sessions of thousands of traces over the whole period).
   */
  tracesPerSession?: number;
}

/** A score as the peers store it (Langfuse v2 `scores`, Phoenix `trace_annotations`). */
export interface ScoreRecord {
  /** Unique, UUID-shaped. */
  id: string;
  traceId: string;
  name: string;
  value: number;
  source: string;
  dataType: 'NUMERIC';
  /** Unix epoch microseconds. */
  timestampUs: number;
}

export interface DatasetBatch {
  index: number;
  /** Start of the batch's first trace, Unix ms. */
  startMs: number;
  /** The OTLP/protobuf body, as an instrumented application would send it. */
  encoded: Uint8Array;
  /** What Tracelake's mapper makes of it. */
  spans: SpanRecord[];
  scores: ScoreRecord[];
}

export const SCORE_NAMES = Array.from({ length: 20 }, (_, i) => `metric_${i}`);
export const SCORE_SOURCES = ['api', 'eval', 'annotation', 'sdk'];

interface Resolved {
  spans: number;
  seed: number;
  endMs: number;
  days: number;
  batchSize: number;
  scoresPerTrace: number;
  tracesPerSession: number | null;
  batches: number;
}

export function resolveDataset(o: DatasetOptions): Resolved {
  const batchSize = o.batchSize ?? 512;
  if (!Number.isInteger(o.spans) || o.spans <= 0) throw new Error('spans must be a positive integer');
  if (batchSize % 8 !== 0) throw new Error('batchSize must be a multiple of 8 (whole traces)');
  if (!Number.isInteger(o.endMs)) throw new Error('endMs must be integer milliseconds');
  return {
    spans: o.spans,
    seed: o.seed ?? 1,
    endMs: o.endMs,
    days: o.days ?? 6,
    batchSize,
    scoresPerTrace: o.scoresPerTrace ?? 8,
    tracesPerSession: o.tracesPerSession ?? null,
    batches: Math.ceil(o.spans / batchSize),
  };
}

/** Start of batch `b`'s first trace: batches evenly spaced over [endMs - days, endMs - 1 min). */
export function batchStartMs(r: Resolved, b: number): number {
  const span = r.days * DAY_MS - MINUTE_MS;
  return r.endMs - r.days * DAY_MS + Math.floor((b * span) / r.batches);
}

const batchSeed = (r: Resolved, b: number) => (Math.imul(r.seed, 1_000_003) + b + 1) >>> 0 || 1;

/** murmur3's finaliser: a bijection of uint32 with fmix(0) = 0 (so non-zero in, non-zero out). */
function fmix32(h: number): number {
  h ^= h >>> 16;
  h = Math.imul(h, 0x85ebca6b);
  h ^= h >>> 13;
  h = Math.imul(h, 0xc2b2ae35);
  h ^= h >>> 16;
  return h >>> 0;
}

let priced:
  | ((
      model: string,
      usage: { inputTokens?: number; outputTokens?: number; cachedInputTokens?: number },
    ) => number | undefined)
  | undefined;
/** The shipped price table, priced the way the compute worker prices generations. */
function costFn() {
  if (!priced) {
    const prices = compilePriceTable(
      parsePriceTable(JSON.parse(readFileSync(new URL('../../../data/pricing.json', import.meta.url), 'utf8'))),
    );
    priced = (model, usage) => {
      const price = prices.find(model);
      return price ? costOf(price, usage) : undefined;
    };
  }
  return priced;
}

type WorkloadSpan = ReturnType<typeof exportBatch>['resourceSpans'][number]['scopeSpans'][number]['spans'][number];

/** Traces and spans generated before batch `b` (every batch but the last is full). */
function countsBefore(r: Resolved, b: number) {
  const spans = b * r.batchSize;
  return { traces: spans / 8, spans };
}

/** What one batch sends, without the gateway's mapping: its OTLP/protobuf body and its scores. */
export interface EncodedBatch {
  index: number;
  startMs: number;
  encoded: Uint8Array;
  scores: ScoreRecord[];
}

/** Batch `b` as an application sends it. Pure: the same options and index always give the same batch. */
export function encodedDatasetBatch(options: DatasetOptions, b: number): EncodedBatch {
  const r = resolveDataset(options);
  if (b < 0 || b >= r.batches) throw new Error(`batch ${b} out of range`);
  const count = Math.min(r.batchSize, r.spans - b * r.batchSize);
  const startMs = batchStartMs(r, b);
  const request = exportBatch(count, batchSeed(r, b), startMs);
  const before = countsBefore(r, b);
  let traceCounter = before.traces;
  let spanCounter = before.spans;
  let lastTrace: Buffer | undefined;
  let session: { stringValue: string } | undefined;
  const roots: WorkloadSpan[] = [];
  for (const span of request.resourceSpans[0]!.scopeSpans[0]!.spans as WorkloadSpan[]) {
    if (span.traceId !== lastTrace) {
      lastTrace = span.traceId;
      if (r.tracesPerSession !== null)
        session = { stringValue: `session-${Math.floor(traceCounter / r.tracesPerSession)}` };
      span.traceId.writeUInt32BE(fmix32(++traceCounter | 0x8000_0000), 0); // apart from span ids' inputs
    }
    span.spanId.writeUInt32BE(fmix32(++spanCounter), 0);
    if (session) span.attributes.find((a) => a.key === 'session.id')!.value = session;
    if (span.parentSpanId === undefined) roots.push(span);
  }

  // Scores: `scoresPerTrace` per trace, 0–30 s after the trace's start.
  const random = xorshiftRandom(batchSeed(r, b) ^ 0x5bd1e995);
  const scores: ScoreRecord[] = [];
  let scoreCounter = (before.traces * r.scoresPerTrace) >>> 0;
  for (const root of roots) {
    const startUs = Number(BigInt(root.startTimeUnixNano) / 1000n);
    const traceId = root.traceId.toString('hex');
    for (let k = 0; k < r.scoresPerTrace; k++) {
      const n = scoreCounter++;
      scores.push({
        id: `00000000-0000-4000-8000-${n.toString(16).padStart(12, '0')}`,
        traceId,
        name: SCORE_NAMES[Math.floor(random() * SCORE_NAMES.length)]!,
        value: Math.round(random() * 100_000) / 1000,
        source: SCORE_SOURCES[Math.floor(random() * SCORE_SOURCES.length)]!,
        dataType: 'NUMERIC',
        timestampUs: startUs + Math.floor(random() * 30_000_000),
      });
    }
  }
  return { index: b, startMs, encoded: encodeExportRequest(request), scores };
}

/** Batch `b` of the dataset, with what the gateway's mapper makes of it. */
export function datasetBatch(options: DatasetOptions, b: number): DatasetBatch {
  const batch = encodedDatasetBatch(options, b);
  const mapped = mapExportRequest(decodeExportRequest(batch.encoded), { costOf: costFn(), maxSpansPerTrace: 10_000 });
  if (mapped.rejected > 0)
    throw new Error(`batch ${b}: the mapper refused ${mapped.rejected} spans: ${mapped.errors.join('; ')}`);
  return { ...batch, spans: mapped.spans };
}

/** Every batch in order, generated one at a time. */
export function* generateDataset(options: DatasetOptions): Generator<DatasetBatch> {
  const r = resolveDataset(options);
  for (let b = 0; b < r.batches; b++) yield datasetBatch(options, b);
}

/** The number of batches `generateDataset` yields. */
export const batchCount = (options: DatasetOptions) => resolveDataset(options).batches;

/** The dataset's "now" for a run: the current time, rounded down to the minute. */
export const defaultEndMs = () => Math.floor(Date.now() / MINUTE_MS) * MINUTE_MS;

/**
 * A trace id to open by id: the middle trace of the batch at `fraction` of the dataset (default
 * 0.9, inside the last 24 hours of a 6-day dataset).
 */
export function sampleTraceId(options: DatasetOptions, fraction = 0.9): string {
  const r = resolveDataset(options);
  const batch = datasetBatch(options, Math.min(r.batches - 1, Math.floor(r.batches * fraction)));
  const roots = batch.spans.filter((s) => s.parentId === null);
  return roots[Math.floor(roots.length / 2)]!.traceId;
}

/** Unix epoch microseconds of a span time (the peers keep microseconds, like timestamptz). */
export const toUs = (ns: bigint): number => Number(ns / 1000n);
