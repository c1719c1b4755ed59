/**
 * Integration: OTLP/gRPC (`TraceService/Export`) — the real OpenTelemetry gRPC exporter sends spans,
 * plain and gzip, and with the guide's settings, that are read back over the HTTP API; partial
 * success in the answer; refusals and back-pressure as gRPC statuses (grpc-js's own client for the
 * raw cases); SIGTERM closes the port; and `--grpc-port off` opens none.
 */
import { readFileSync } from 'node:fs';
import { createServer, connect } from 'node:net';
import { Client, compressionAlgorithms, credentials, Metadata, status, type ServiceError } from '@grpc/grpc-js';
import { trace, context } from '@opentelemetry/api';
import { OTLPTraceExporter } from '@opentelemetry/exporter-trace-otlp-grpc';
import { resourceFromAttributes } from '@opentelemetry/resources';
import { BasicTracerProvider, SimpleSpanProcessor } from '@opentelemetry/sdk-trace-base';
import t from 'tap';
import { shellBlocks } from '../helpers/markdown.js';
import { exportRequest, forProtobuf, hex } from '../helpers/otlp.js';
import { until } from '../helpers/until.js';
import { decodeExportResponse, encodeExportRequest } from '../helpers/otlpProto.js';
import { call, createKey, rootCredentials, serverFor, type Credentials } from '../helpers/server.js';

const EXPORT = '/opentelemetry.proto.collector.trace.v1.TraceService/Export';
const passThrough = (bytes: Buffer) => bytes;

function metadataOf(auth: Credentials): Metadata {
  const metadata = new Metadata();
  // As OTLP/HTTP: the raw key. Answered once the spans are readable, so the test reads them at once.
  metadata.set('authorization', auth.key);
  metadata.set('x-service-app-id', auth.appId);
  metadata.set('x-tracelake-wait', 'visible');
  return metadata;
}

/** One Export call with grpc-js's own client: the answer's bytes, or the error. */
function rawExport(port: number, metadata: Metadata, body: Uint8Array, gzip = false) {
  const client = new Client(`127.0.0.1:${port}`, credentials.createInsecure(), {
    ...(gzip ? { 'grpc.default_compression_algorithm': compressionAlgorithms.gzip } : {}),
  });
  return new Promise<{ answer?: Buffer; error?: ServiceError }>((resolve) => {
    client.makeUnaryRequest(EXPORT, passThrough, passThrough, Buffer.from(body), metadata, (error, answer) => {
      client.close();
      resolve(error ? { error } : { answer: answer! });
    });
  });
}

t.test('OTLP/gRPC', async (t) => {
  const server = await serverFor(t, {
    args: [
      '--grpc-port',
      '0',
      '--max-spans-per-trace',
      '3',
      '--max-otlp-body',
      '1MiB',
      '--max-inflight-bytes',
      '256KiB',
    ],
  });
  const port = server.grpcPort;
  t.ok(port !== null && port > 0, 'the listening line gives the bound gRPC port');
  const root = rootCredentials(server);
  const sdk = await createKey(server, root, { name: 'sdk', role: 'SDK' });
  const reader = await createKey(server, root, { name: 'reader', role: 'Read-Only' });

  for (const compression of ['none', 'gzip'] as const) {
    t.test(`the OpenTelemetry gRPC exporter (${compression}) → GET /v1/traces/{id}`, async (t) => {
      const exporter = new OTLPTraceExporter({
        url: `http://127.0.0.1:${port}`,
        metadata: metadataOf(sdk),
        compression: compression as NonNullable<ConstructorParameters<typeof OTLPTraceExporter>[0]>['compression'],
      });
      const provider = new BasicTracerProvider({
        resource: resourceFromAttributes({ 'service.name': `grpc-${compression}` }),
        spanProcessors: [new SimpleSpanProcessor(exporter)],
      });
      const tracer = provider.getTracer('tracelake-tests');
      const parent = tracer.startSpan('handle-question', { attributes: { 'session.id': `s-${compression}` } });
      const child = tracer.startSpan(
        'chat gpt-4o-mini',
        {
          attributes: {
            'gen_ai.operation.name': 'chat',
            'gen_ai.request.model': 'gpt-4o-mini',
            'gen_ai.usage.input_tokens': 100,
            'gen_ai.usage.output_tokens': 20,
          },
        },
        trace.setSpan(context.active(), parent),
      );
      child.end();
      parent.end();
      await provider.forceFlush();
      await provider.shutdown();
      const traceId = parent.spanContext().traceId;
      const read = await call(server, 'GET', `/v1/traces/${traceId}/spans`, { auth: reader });
      t.equal(read.status, 200, read.text);
      const spans = read.body.data as {
        span_id: string;
        parent_id: string | null;
        name: string;
        model: string | null;
      }[];
      t.same(spans.map((s) => s.name).sort(), ['chat gpt-4o-mini', 'handle-question']);
      const llm = spans.find((s) => s.name === 'chat gpt-4o-mini');
      t.equal(llm?.parent_id, parent.spanContext().spanId, 'the tree survives');
      t.equal(llm?.model, 'gpt-4o-mini');
    });
  }

  t.test("the guide's exporter settings (docs/guide/sending-traces.md, Over gRPC)", async (t) => {
    const guide = readFileSync(new URL('../../../docs/guide/sending-traces.md', import.meta.url), 'utf8');
    const block = shellBlocks(guide).find((b) => b.body.includes('OTEL_EXPORTER_OTLP_PROTOCOL=grpc'));
    t.ok(block, 'the guide shows the gRPC settings');
    const given: Record<string, string> = { TRACELAKE_HOST: '127.0.0.1', KEY: sdk.key, APP: sdk.appId };
    const settings = Object.fromEntries(
      [...(block?.body ?? '').matchAll(/^export (\w+)="?(.*?)"?$/gm)].map(([, name, value]) => [
        name!,
        value!.replace(/\$(\w+)/g, (_, v: string) => given[v] ?? '').replace(':4317', `:${port}`),
      ]),
    );
    t.same(Object.keys(settings).sort(), [
      'OTEL_EXPORTER_OTLP_ENDPOINT',
      'OTEL_EXPORTER_OTLP_HEADERS',
      'OTEL_EXPORTER_OTLP_PROTOCOL',
    ]);
    Object.assign(process.env, settings);
    t.teardown(() => {
      for (const name of Object.keys(settings)) delete process.env[name];
    });
    // No options: the exporter reads the variables, as an application's would.
    const exporter = new OTLPTraceExporter();
    const provider = new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] });
    const span = provider.getTracer('guide').startSpan('from-the-guide');
    span.end();
    await provider.forceFlush();
    await provider.shutdown();
    const traceId = span.spanContext().traceId;
    const readable = async () =>
      (await call(server, 'GET', `/v1/traces/${traceId}/spans`, { auth: reader })).body.data?.[0]?.name ===
      'from-the-guide';
    t.ok(await until(readable), 'the span is read back');
  });

  t.test('partial success is in the ExportTraceServiceResponse', async (t) => {
    const traceId = hex(16);
    const body = encodeExportRequest(
      forProtobuf(exportRequest([{ traceId }, { traceId }, { traceId }, { traceId }, { traceId }])),
    );
    const { answer, error } = await rawExport(port!, metadataOf(sdk), body);
    t.equal(error, undefined);
    t.same(decodeExportResponse(answer!).partialSuccess?.rejectedSpans, '2', 'two over the per-trace bound');
    const full = await rawExport(
      port!,
      metadataOf(sdk),
      encodeExportRequest(forProtobuf(exportRequest([{ traceId: hex(16) }]))),
    );
    t.equal(full.answer?.length, 0, 'full success: the empty message');
  });

  t.test('gzip from a raw client, and a message that inflates past the cap', async (t) => {
    const traceId = hex(16);
    const body = encodeExportRequest(forProtobuf(exportRequest([{ traceId, name: 'zipped' }])));
    const { error } = await rawExport(port!, metadataOf(sdk), body, true);
    t.equal(error, undefined);
    const read = await call(server, 'GET', `/v1/traces/${traceId}/spans`, { auth: reader });
    t.equal(read.body.data?.[0]?.name, 'zipped');
    // 2 MiB of zeros is a few KiB zipped: the cap (--max-otlp-body) holds for what it inflates to.
    const bomb = await rawExport(port!, metadataOf(sdk), Buffer.alloc(2 * 1024 * 1024), true);
    t.equal(bomb.error?.code, status.RESOURCE_EXHAUSTED, bomb.error?.details ?? '');
  });

  t.test('refusals as gRPC statuses', async (t) => {
    const body = encodeExportRequest(forProtobuf(exportRequest([{ traceId: hex(16) }])));
    const wrongKey = await rawExport(port!, metadataOf({ ...sdk, key: `sk_service_${'x'.repeat(40)}` }), body);
    t.equal(wrongKey.error?.code, status.UNAUTHENTICATED, wrongKey.error?.details ?? '');
    const noKey = new Metadata();
    noKey.set('x-service-app-id', sdk.appId);
    t.equal((await rawExport(port!, noKey, body)).error?.code, status.UNAUTHENTICATED, 'no key');
    const bearer = metadataOf(sdk);
    bearer.set('authorization', `Bearer ${sdk.key}`);
    t.equal(
      (await rawExport(port!, bearer, body)).error?.code,
      status.UNAUTHENTICATED,
      'Bearer is refused, as on OTLP/HTTP',
    );
    const readOnly = await rawExport(port!, metadataOf(reader), body);
    t.equal(readOnly.error?.code, status.PERMISSION_DENIED, readOnly.error?.details ?? '');
    const malformed = await rawExport(port!, metadataOf(sdk), Buffer.from([0x0a, 0xff, 0xff, 0xff, 0x0f, 0x01]));
    t.equal(malformed.error?.code, status.INVALID_ARGUMENT, malformed.error?.details ?? '');
  });

  t.test('back-pressure: UNAVAILABLE with a google.rpc.RetryInfo', async (t) => {
    // 300 KiB is more than the whole request budget (--max-inflight-bytes): 503 `overloaded` on HTTP.
    const { error } = await rawExport(port!, metadataOf(sdk), Buffer.alloc(300 * 1024));
    t.equal(error?.code, status.UNAVAILABLE, error?.details ?? '');
    t.match(error?.details, /^overloaded: /);
    const statusDetails = error?.metadata.get('grpc-status-details-bin')[0] as Buffer | undefined;
    t.same(
      [...(statusDetails ?? Buffer.alloc(0)).subarray(0, 2)],
      [0x08, status.UNAVAILABLE],
      'a google.rpc.Status of the code',
    );
    t.ok(statusDetails?.includes('type.googleapis.com/google.rpc.RetryInfo'), 'with a RetryInfo');
  });

  t.test('SIGTERM closes the gRPC port with the server', async (t) => {
    t.equal(await server.stop('SIGTERM'), 0, 'a clean exit');
    t.equal(await connects(port!), 'ECONNREFUSED');
  });
});

async function connects(port: number): Promise<string> {
  return new Promise<string>((resolve) => {
    const socket = connect(port, '127.0.0.1');
    socket.once('connect', () => {
      socket.destroy();
      resolve('connected');
    });
    socket.once('error', (e: NodeJS.ErrnoException) => resolve(e.code ?? 'error'));
  });
}

t.test('--grpc-port off opens no port', async (t) => {
  const free = await new Promise<number>((resolve) => {
    const probe = createServer().listen(0, '127.0.0.1', () => {
      const { port } = probe.address() as { port: number };
      probe.close(() => resolve(port));
    });
  });
  // The variable names a port; the flag, which wins, turns it off.
  const server = await serverFor(t, { args: ['--grpc-port', 'off'], env: { TRACELAKE_GRPC_PORT: String(free) } });
  t.equal(server.grpcPort, null);
  const refused = await connects(free);
  t.equal(refused, 'ECONNREFUSED', `nothing listens on ${free}`);
});
