/** Hand-built OTLP export requests (OTLP/JSON shape), for the cases real exporters never send. */
import { randomBytes } from 'node:crypto';

export const hex = (bytes: number): string => randomBytes(bytes).toString('hex');

export interface SpanSpec {
  traceId: string;
  spanId?: string;
  parentSpanId?: string;
  name?: string;
  attributes?: Record<string, string | number | boolean>;
}

function anyValue(v: string | number | boolean) {
  if (typeof v === 'string') return { stringValue: v };
  if (typeof v === 'boolean') return { boolValue: v };
  return Number.isInteger(v) ? { intValue: v } : { doubleValue: v };
}

/** An export request in OTLP/JSON shape (hex ids, nanosecond times as text). */
export function exportRequest(spans: SpanSpec[], serviceName = 'hand-made') {
  const now = BigInt(Date.now()) * 1_000_000n;
  return {
    resourceSpans: [
      {
        resource: { attributes: [{ key: 'service.name', value: { stringValue: serviceName } }] },
        scopeSpans: [
          {
            scope: { name: 'test' },
            spans: spans.map((s, i) => ({
              traceId: s.traceId,
              spanId: s.spanId ?? hex(8),
              ...(s.parentSpanId ? { parentSpanId: s.parentSpanId } : {}),
              name: s.name ?? `span-${i}`,
              kind: 1,
              startTimeUnixNano: String(now + BigInt(i) * 1000n),
              endTimeUnixNano: String(now + BigInt(i) * 1000n + 500_000n),
              attributes: Object.entries(s.attributes ?? {}).map(([key, value]) => ({ key, value: anyValue(value) })),
              status: { code: 1 },
            })),
          },
        ],
      },
    ],
  };
}

/** The same request with ids as bytes, as protobufjs's fromObject wants them. */
export function forProtobuf(request: ReturnType<typeof exportRequest>) {
  return {
    resourceSpans: request.resourceSpans.map((rs) => ({
      ...rs,
      scopeSpans: rs.scopeSpans.map((ss) => ({
        ...ss,
        spans: ss.spans.map((s) => ({
          ...s,
          traceId: Buffer.from(s.traceId, 'hex'),
          spanId: Buffer.from(s.spanId, 'hex'),
          ...(s.parentSpanId ? { parentSpanId: Buffer.from(s.parentSpanId, 'hex') } : {}),
        })),
      })),
    })),
  };
}
