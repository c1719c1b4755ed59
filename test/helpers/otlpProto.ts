/**
 * The OTLP trace protobuf schema (opentelemetry-proto v1: common, resource, trace, collector
 * trace service), described for protobufjs, which decodes it. Field numbers are the wire contract;
 * names are the OTLP/JSON (lowerCamelCase) names, so a decoded message has the shape of
 * `core/otlp/wire.ts`.
 *
 * The reference codec of the tests and benchmarks: the server decodes with its own reader
 * (src/ingest/protoDecode.ts, held to this one by test/ingest/protoDecode.test.ts) and encodes its
 * one answer by hand (src/ingest/exportResponse.ts), so protobufjs is a dev dependency.
 */
import protobuf from 'protobufjs';
import type { ExportTraceServiceRequest } from '../../src/core/otlp/wire.js';

const f = (id: number, type: string, rule?: 'repeated') => (rule ? { id, type, rule } : { id, type });

const SCHEMA = {
  nested: {
    otlp: {
      nested: {
        AnyValue: {
          oneofs: {
            value: {
              oneof: ['stringValue', 'boolValue', 'intValue', 'doubleValue', 'arrayValue', 'kvlistValue', 'bytesValue'],
            },
          },
          fields: {
            stringValue: f(1, 'string'),
            boolValue: f(2, 'bool'),
            intValue: f(3, 'int64'),
            doubleValue: f(4, 'double'),
            arrayValue: f(5, 'ArrayValue'),
            kvlistValue: f(6, 'KeyValueList'),
            bytesValue: f(7, 'bytes'),
          },
        },
        ArrayValue: { fields: { values: f(1, 'AnyValue', 'repeated') } },
        KeyValueList: { fields: { values: f(1, 'KeyValue', 'repeated') } },
        KeyValue: { fields: { key: f(1, 'string'), value: f(2, 'AnyValue') } },
        InstrumentationScope: {
          fields: {
            name: f(1, 'string'),
            version: f(2, 'string'),
            attributes: f(3, 'KeyValue', 'repeated'),
            droppedAttributesCount: f(4, 'uint32'),
          },
        },
        Resource: { fields: { attributes: f(1, 'KeyValue', 'repeated'), droppedAttributesCount: f(2, 'uint32') } },
        ResourceSpans: {
          fields: { resource: f(1, 'Resource'), scopeSpans: f(2, 'ScopeSpans', 'repeated'), schemaUrl: f(3, 'string') },
        },
        ScopeSpans: {
          fields: { scope: f(1, 'InstrumentationScope'), spans: f(2, 'Span', 'repeated'), schemaUrl: f(3, 'string') },
        },
        Span: {
          fields: {
            traceId: f(1, 'bytes'),
            spanId: f(2, 'bytes'),
            traceState: f(3, 'string'),
            parentSpanId: f(4, 'bytes'),
            flags: f(16, 'fixed32'),
            name: f(5, 'string'),
            kind: f(6, 'int32'),
            startTimeUnixNano: f(7, 'fixed64'),
            endTimeUnixNano: f(8, 'fixed64'),
            attributes: f(9, 'KeyValue', 'repeated'),
            droppedAttributesCount: f(10, 'uint32'),
            events: f(11, 'Event', 'repeated'),
            droppedEventsCount: f(12, 'uint32'),
            links: f(13, 'Link', 'repeated'),
            droppedLinksCount: f(14, 'uint32'),
            status: f(15, 'Status'),
          },
        },
        Event: {
          fields: {
            timeUnixNano: f(1, 'fixed64'),
            name: f(2, 'string'),
            attributes: f(3, 'KeyValue', 'repeated'),
            droppedAttributesCount: f(4, 'uint32'),
          },
        },
        Link: {
          fields: {
            traceId: f(1, 'bytes'),
            spanId: f(2, 'bytes'),
            traceState: f(3, 'string'),
            attributes: f(4, 'KeyValue', 'repeated'),
            droppedAttributesCount: f(5, 'uint32'),
            flags: f(6, 'fixed32'),
          },
        },
        Status: { fields: { message: f(2, 'string'), code: f(3, 'int32') } },
        ExportTraceServiceRequest: { fields: { resourceSpans: f(1, 'ResourceSpans', 'repeated') } },
        ExportTracePartialSuccess: { fields: { rejectedSpans: f(1, 'int64'), errorMessage: f(2, 'string') } },
        ExportTraceServiceResponse: { fields: { partialSuccess: f(1, 'ExportTracePartialSuccess') } },
      },
    },
  },
};

const root = protobuf.Root.fromJSON(SCHEMA);
const Request = root.lookupType('otlp.ExportTraceServiceRequest');
const Response = root.lookupType('otlp.ExportTraceServiceResponse');

/**
 * Decodes an `ExportTraceServiceRequest`. Only fields that were sent are present (no defaults), 64-bit
 * integers come out as decimal text and bytes as Uint8Array. Throws on a malformed message.
 */
export function decodeExportRequest(bytes: Uint8Array): ExportTraceServiceRequest {
  const message = Request.decode(bytes);
  return Request.toObject(message, { longs: String, defaults: false }) as ExportTraceServiceRequest;
}

/** Test and bench helper: encodes a request in the OTLP/JSON shape as protobuf. */
export function encodeExportRequest(request: object): Uint8Array {
  return Request.encode(Request.fromObject(request)).finish();
}

/** Test helper: reads an OTLP answer (the server's is encoded by exportResponse.ts). */
export function decodeExportResponse(bytes: Uint8Array): {
  partialSuccess?: { rejectedSpans?: string; errorMessage?: string };
} {
  return Response.toObject(Response.decode(bytes), { longs: String, defaults: false });
}
