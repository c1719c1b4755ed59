/**
 * Distinct OTLP/protobuf request bodies for the ingest benchmarks, cheaply: a few encoded
 * templates of realistic agent traces (workload.ts) whose trace and span ids are found once, then
 * patched per request with a counter (parents are patched alike, so traces stay whole). Every
 * request then carries spans of its own, as a real fleet of exporters sends, and none is taken for
 * a replay.
 */
import { decodeExportRequest } from '../test/helpers/otlpProto.js';
import { encodedBatch } from './workload.js';

export const SPANS = 512;

/**
 * Request bodies with ids of their own: a few encoded templates whose trace and span ids are found
 * once, then patched per request with a counter (parents are patched alike, so traces stay whole).
 */
export class Bodies {
  private readonly templates: { bytes: Uint8Array; offsets: number[]; firstTrace: number }[] = [];
  private n = 0;

  constructor(count: number) {
    for (let i = 0; i < count; i++) {
      const bytes = encodedBatch(SPANS, 7919 * (i + 1));
      const req = decodeExportRequest(bytes) as unknown as {
        resourceSpans: { scopeSpans: { spans: { traceId: Uint8Array; spanId: Uint8Array }[] }[] }[];
      };
      const ids = new Set<string>();
      for (const rs of req.resourceSpans)
        for (const ss of rs.scopeSpans)
          for (const s of ss.spans)
            ids.add(Buffer.from(s.traceId).toString('hex')).add(Buffer.from(s.spanId).toString('hex'));
      const buf = Buffer.from(bytes);
      const firstTrace = buf.indexOf(Buffer.from(req.resourceSpans[0]!.scopeSpans[0]!.spans[0]!.traceId));
      const offsets: number[] = [];
      for (const id of ids) {
        const needle = Buffer.from(id, 'hex');
        for (let at = buf.indexOf(needle); at >= 0; at = buf.indexOf(needle, at + 1)) offsets.push(at);
      }
      this.templates.push({ bytes, offsets, firstTrace });
    }
  }

  /** The next body, and one of its trace ids (hex) for visibility checks. */
  next(): { body: Buffer; traceId: string } {
    const t = this.templates[this.n % this.templates.length]!;
    const body = Buffer.from(t.bytes);
    const stamp = ++this.n;
    for (const at of t.offsets) body.writeUInt32BE(stamp >>> 0, at);
    return { body, traceId: body.subarray(t.firstTrace, t.firstTrace + 16).toString('hex') };
  }
}
