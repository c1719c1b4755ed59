/**
 * OTLP/gRPC ingestion (`opentelemetry.proto.collector.trace.v1.TraceService/Export`) on a port of
 * its own. Each call becomes a `Wire` of `POST /v1/traces` with an `application/x-protobuf` body,
 * handed to the request pipeline (http/server.ts): the same key and app-id headers (from the
 * metadata), admission, refusal log, quota and durability as OTLP/HTTP. The message is passed
 * through undecoded; grpc-js undoes `grpc-encoding: gzip` and caps it at `maxReceiveMessageLength`.
 */
import {
  Metadata,
  Server,
  ServerCredentials,
  type sendUnaryData,
  type ServerUnaryCall,
  type ServiceDefinition,
  type UntypedServiceImplementation,
} from '@grpc/grpc-js';
import { grpcFailure } from './grpcStatus.js';
import { PortInUse } from './portInUse.js';
import type { AnswerHead, Wire } from './wire.js';

const passThrough = (bytes: Buffer) => bytes;

const TRACE_SERVICE: ServiceDefinition = {
  Export: {
    path: '/opentelemetry.proto.collector.trace.v1.TraceService/Export',
    requestStream: false,
    responseStream: false,
    requestSerialize: passThrough,
    requestDeserialize: passThrough,
    responseSerialize: passThrough,
    responseDeserialize: passThrough,
  },
};

/** Metadata the pipeline must not read as the HTTP request's own: the body is set here. */
const NOT_PASSED = new Set(['content-type', 'content-length', 'content-encoding', 'transfer-encoding', 'te', 'host']);

export interface GrpcListener {
  port: number;
  /** Stops accepting calls; calls in flight are left to the pipeline's drain, then cut. */
  close(): Promise<void>;
}

export interface GrpcOptions {
  host: string;
  port: number;
  maxMessageBytes: number;
}

export function listenGrpc(options: GrpcOptions, onRequest: (wire: Wire) => void): Promise<GrpcListener> {
  const server = new Server({
    'grpc.max_receive_message_length': options.maxMessageBytes,
  });
  const implementation: UntypedServiceImplementation = {
    Export: (call: ServerUnaryCall<Buffer, Buffer>, callback: sendUnaryData<Buffer>) =>
      onRequest(new GrpcWire(call, callback)),
  };
  server.addService(TRACE_SERVICE, implementation);
  const host = options.host.includes(':') ? `[${options.host}]` : options.host;
  return new Promise((resolve, reject) => {
    server.bindAsync(`${host}:${options.port}`, ServerCredentials.createInsecure(), (err, port) => {
      if (err) return reject(/in use/i.test(err.message) ? new PortInUse(options.host, options.port) : err);
      resolve({
        port,
        close: () =>
          new Promise<void>((done) => {
            // Calls still open after the pipeline's drain are not waited for.
            const cut = setTimeout(() => {
              server.forceShutdown();
              done();
            }, 1_000);
            server.tryShutdown(() => {
              clearTimeout(cut);
              done();
            });
          }),
      });
    });
  });
}

/** One Export call as the pipeline sees a request. */
class GrpcWire implements Wire {
  readonly method = 'POST';
  readonly path = '/v1/traces';
  readonly query = '';
  readonly headers: Record<string, string> = Object.create(null);
  readonly headerFields: number;
  readonly lengthInDoubt = false;
  private answered = false;

  constructor(
    private readonly call: ServerUnaryCall<Buffer, Buffer>,
    private readonly callback: sendUnaryData<Buffer>,
  ) {
    const sent = call.metadata.getMap();
    for (const [name, value] of Object.entries(sent)) {
      // Binary (`-bin`) and gRPC's own metadata say nothing the HTTP path reads.
      if (typeof value === 'string' && !name.startsWith('grpc-') && !NOT_PASSED.has(name)) this.headers[name] = value;
    }
    this.headerFields = Object.keys(sent).length + 1;
    this.headers['content-type'] = 'application/x-protobuf';
    this.headers['content-length'] = String(call.request.length);
  }

  onAborted(fn: () => void): void {
    this.call.once('cancelled', fn);
  }

  onData(fn: (chunk: Uint8Array, isLast: boolean) => void): void {
    fn(this.call.request, true);
  }

  respond(head: AnswerHead, body: string | Uint8Array): void {
    if (this.answered) return;
    this.answered = true;
    if (head.status >= 200 && head.status < 300) {
      this.callback(
        null,
        typeof body === 'string' ? Buffer.from(body) : Buffer.from(body.buffer, body.byteOffset, body.byteLength),
      );
      return;
    }
    const text = typeof body === 'string' ? body : Buffer.from(body).toString('utf8');
    const failure = grpcFailure(head.status, text, head.headers['Retry-After']);
    const metadata = new Metadata();
    if (failure.statusDetails) metadata.set('grpc-status-details-bin', Buffer.from(failure.statusDetails));
    this.callback({ code: failure.code, details: failure.details, metadata }, null);
  }

  respondWithoutBody(head: AnswerHead): void {
    this.respond(head, '');
  }

  openChunked(): never {
    throw new Error('an OTLP export is answered whole');
  }

  openSized(): never {
    throw new Error('an OTLP export is answered whole');
  }
}
