/**
 * Distinct OTLP/protobuf request bodies for the ingest benchmarks, cheaply: a few encoded
 * templates of realistic agent traces (workload.ts) whose trace and span ids are found once, then
 * patched per request with a counter (parents are patched alike, so traces stay whole). Every
 * request then carries spans of its own, as a real fleet of exporters sends, and none is taken for
 * a replay.
 */
import { encodeExportRequest } from '../test/helpers/otlpProto.js';
import { exportBatch } from './workload.js';

export const SPANS = 512;

export interface BodyOptions {
  /**
   * Spans end at the moment their request is made (the template's times moved), as a live
   * exporter's do, instead of at the template's making.
   */
  sendTime?: boolean;
  /**
   * The first 4 bytes of the ids are the request's number mixed (a bijection of uint32), not the
   * number itself: ids stay unique and spread over the whole range, as random ids are, instead of
   * rising request by request.
   */
  mixedIds?: boolean;
}

/** A template's trace: its id without the first 4 bytes (hex) and its spans. */
export interface TemplateTrace {
  suffix: string;
  spans: number;
}

interface Template {
  bytes: Uint8Array;
  /** Where an id starts (its first 4 bytes are the request's). */
  idOffsets: number[];
  /** Where a time (fixed64, Unix ns, little-endian) is, and its value in the template. */
  times: { at: number; ns: bigint }[];
  /** The newest end time of the template's spans, Unix ns. */
  endNs: bigint;
  firstTrace: number;
  traces: TemplateTrace[];
}

/** An odd multiplier (2^32 / golden ratio): multiplying by it permutes the uint32s. */
const MIX = 0x9e3779b1;

/**
 * Request bodies with ids of their own: a few encoded templates whose trace and span ids are found
 * once, then patched per request with a counter (parents are patched alike, so traces stay whole).
 */
export class Bodies {
  private readonly templates: Template[] = [];
  private n = 0;

  constructor(
    count: number,
    private readonly options: BodyOptions = {},
  ) {
    for (let i = 0; i < count; i++) this.templates.push(template(7919 * (i + 1)));
  }

  /** The next body, one of its trace ids (hex) for visibility checks, and its request number. */
  next(): { body: Buffer; traceId: string; request: number } {
    const request = ++this.n;
    const t = this.templateOf(request);
    const body = Buffer.from(t.bytes);
    const stamp = this.stampOf(request);
    for (const at of t.idOffsets) body.writeUInt32BE(stamp, at);
    if (this.options.sendTime) {
      const shift = BigInt(Date.now()) * 1_000_000n - t.endNs;
      for (const { at, ns } of t.times) body.writeBigUInt64LE(ns + shift, at);
    }
    return { body, traceId: body.subarray(t.firstTrace, t.firstTrace + 16).toString('hex'), request };
  }

  /** The first 4 bytes (hex) of every trace and span id of request `request`. */
  idPrefix(request: number): string {
    return this.stampOf(request).toString(16).padStart(8, '0');
  }

  /** The traces request `request` carried, without their ids' first 4 bytes. */
  tracesOf(request: number): readonly TemplateTrace[] {
    return this.templateOf(request).traces;
  }

  /** Every template's traces, by template index. */
  templateTraces(): readonly (readonly TemplateTrace[])[] {
    return this.templates.map((t) => t.traces);
  }

  /** Which template request `request` was made from (requests sharing one share `tracesOf`). */
  templateIndex(request: number): number {
    return (request - 1) % this.templates.length;
  }

  private templateOf(request: number): Template {
    return this.templates[this.templateIndex(request)]!;
  }

  private stampOf(request: number): number {
    return (this.options.mixedIds ? Math.imul(request, MIX) : request) >>> 0;
  }
}

function template(seed: number): Template {
  const batch = exportBatch(SPANS, seed);
  const spans = batch.resourceSpans[0]!.scopeSpans[0]!.spans;
  const bytes = encodeExportRequest(batch);
  const buf = Buffer.from(bytes);
  const ids = new Set<string>();
  const times = new Set<bigint>();
  const traceIds = new Set<string>();
  const traces = new Map<string, number>();
  const spanSuffixes = new Set<string>();
  let endNs = 0n;
  for (const s of spans) {
    const traceId = s.traceId.toString('hex');
    traceIds.add(traceId);
    ids.add(traceId).add(s.spanId.toString('hex'));
    times.add(BigInt(s.startTimeUnixNano)).add(BigInt(s.endTimeUnixNano));
    if (BigInt(s.endTimeUnixNano) > endNs) endNs = BigInt(s.endTimeUnixNano);
    traces.set(traceId.slice(8), (traces.get(traceId.slice(8)) ?? 0) + 1);
    spanSuffixes.add(s.spanId.toString('hex').slice(8));
  }
  // Patched ids differ only where the template's do after their first 4 bytes.
  if (spanSuffixes.size !== spans.length || traces.size !== traceIds.size)
    throw new Error(`template ${seed}: two ids share their last bytes`);
  const offsetsOf = (needle: Buffer) => {
    const found: number[] = [];
    for (let at = buf.indexOf(needle); at >= 0; at = buf.indexOf(needle, at + 1)) found.push(at);
    return found;
  };
  const idOffsets = [...ids].flatMap((id) => offsetsOf(Buffer.from(id, 'hex')));
  const fixed64 = (ns: bigint) => {
    const b = Buffer.alloc(8);
    b.writeBigUInt64LE(ns);
    return b;
  };
  return {
    bytes,
    idOffsets,
    times: [...times].flatMap((ns) => offsetsOf(fixed64(ns)).map((at) => ({ at, ns }))),
    endNs,
    firstTrace: buf.indexOf(spans[0]!.traceId),
    traces: [...traces].map(([suffix, n]) => ({ suffix, spans: n })),
  };
}
