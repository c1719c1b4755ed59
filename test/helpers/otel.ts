/**
 * Real OpenTelemetry JS clients pointed at a test server: the SDK's BasicTracerProvider with the
 * OTLP/HTTP exporters (protobuf or JSON), as an instrumented application would configure them.
 */
import { BasicTracerProvider, SimpleSpanProcessor } from '@opentelemetry/sdk-trace-base';
import { OTLPTraceExporter as ProtoExporter } from '@opentelemetry/exporter-trace-otlp-proto';
import { OTLPTraceExporter as JsonExporter } from '@opentelemetry/exporter-trace-otlp-http';
import { resourceFromAttributes } from '@opentelemetry/resources';
import type { PriceTable } from '../../src/core/cost/pricing.js';
import { call, createKey, rootCredentials, serverFor, type Credentials, type TestServer } from './server.js';

export type Protocol = 'proto' | 'json';

export function exporterFor(
  server: TestServer,
  auth: Credentials,
  protocol: Protocol,
  extraHeaders: Record<string, string> = {},
) {
  // The spec's OTLP rule: the raw key, no "Bearer ". The tests read what they export right away, so
  // the export is answered once its spans are readable.
  const options = {
    url: `${server.url}/v1/traces`,
    headers: {
      Authorization: auth.key,
      'X-Service-App-Id': auth.appId,
      'X-Tracelake-Wait': 'visible',
      ...extraHeaders,
    },
  };
  return protocol === 'proto' ? new ProtoExporter(options) : new JsonExporter(options);
}

export function tracerProvider(
  server: TestServer,
  auth: Credentials,
  protocol: Protocol,
  serviceName: string,
  extraHeaders?: Record<string, string>,
) {
  const exporter = exporterFor(server, auth, protocol, extraHeaders);
  const provider = new BasicTracerProvider({
    resource: resourceFromAttributes({ 'service.name': serviceName }),
    spanProcessors: [new SimpleSpanProcessor(exporter)],
  });
  return { provider, exporter, tracer: provider.getTracer('tracelake-tests', '1.0.0') };
}

/** A server for instrumented clients: a key of the SDK role to export with, a reader, and its price table. */
export interface InstrumentedServer {
  server: TestServer;
  sdk: Credentials;
  reader: Credentials;
  pricing: PriceTable;
}

/** Starts one for `t` (a file's root test, so several tests share it). */
export async function instrumentedServer(t: Parameters<typeof serverFor>[0]): Promise<InstrumentedServer> {
  const server = await serverFor(t);
  const root = rootCredentials(server);
  const sdk = await createKey(server, root, { name: 'sdk', role: 'SDK' });
  const reader = await createKey(server, root, { name: 'reader', role: 'Read-Only' });
  const pricing = await call(server, 'GET', '/v1/pricing');
  if (pricing.status !== 200) throw new Error(`GET /v1/pricing: ${pricing.status} ${pricing.text}`);
  return { server, sdk, reader, pricing: pricing.body.data as PriceTable };
}
