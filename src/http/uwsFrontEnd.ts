/**
 * The uWebSockets.js front end: turns uWS's request and response into a `Wire`. uWS parses HTTP in
 * C++ and answers framing errors itself (400, 431, 505 with `Connection: close`); everything it hands
 * over goes through the pipeline. Every write is corked (one syscall per answer).
 */
import type * as uWS from '@btc-vision/uwebsockets.js';
import { PortInUse } from './portInUse.js';
import { STATUS_TEXT } from './status.js';
import type { UwsModule } from './uws.js';
import type { AnswerHead, ChunkedBody, FrontEnd, SizedBody, Wire } from './wire.js';

/** uWS's option for a listening socket without SO_REUSEPORT: a second server on the port fails to listen. */
const LISTEN_EXCLUSIVE_PORT = 1;

export class UwsFrontEnd implements FrontEnd {
  readonly name = 'uws';
  private listenSocket: uWS.us_listen_socket | null = null;

  constructor(
    private readonly uws: UwsModule,
    readonly build: string,
  ) {}

  listen(host: string, port: number, onRequest: (wire: Wire) => void): Promise<number> {
    const app = this.uws.App();
    app.any('/*', (res, req) => onRequest(new UwsWire(res, req)));
    return new Promise((resolve, reject) => {
      // The typings know the options only without a host; the binary takes (host, port, options, cb).
      const listen = app.listen as unknown as (
        host: string,
        port: number,
        options: number,
        cb: (socket: uWS.us_listen_socket | false) => void,
      ) => void;
      listen.call(app, host, port, LISTEN_EXCLUSIVE_PORT, (socket) => {
        // uWS says only that it failed; with a free port and a valid address, the port was taken.
        if (!socket) return reject(new PortInUse(host, port));
        this.listenSocket = socket;
        resolve(this.uws.us_socket_local_port(socket as unknown as uWS.us_socket));
      });
    });
  }

  close(): void {
    if (this.listenSocket) this.uws.us_listen_socket_close(this.listenSocket);
    this.listenSocket = null;
  }
}

class UwsWire implements Wire {
  readonly method: string;
  readonly path: string;
  readonly query: string;
  readonly headers: Record<string, string> = Object.create(null);
  readonly headerFields: number;
  readonly lengthInDoubt: boolean;
  private aborted = false;
  /** A sized body waiting for the socket to drain; woken when the client goes away meanwhile. */
  private wake: (() => void) | null = null;

  constructor(
    private readonly res: uWS.HttpResponse,
    req: uWS.HttpRequest,
  ) {
    // Everything read from `req` must be read now: it is not valid after the handler returns.
    this.method = req.getCaseSensitiveMethod().toUpperCase();
    this.path = req.getUrl();
    this.query = req.getQuery() ?? '';
    let fields = 0;
    let lengthInDoubt = false;
    req.forEach((k, v) => {
      fields++;
      if (k === 'content-length' && k in this.headers && this.headers[k] !== v) lengthInDoubt = true;
      this.headers[k] = v;
    });
    this.headerFields = fields;
    this.lengthInDoubt = lengthInDoubt;
  }

  onAborted(fn: () => void): void {
    this.res.onAborted(() => {
      this.aborted = true;
      this.wake?.();
      fn();
    });
  }

  onData(fn: (chunk: Uint8Array, isLast: boolean) => void): void {
    this.res.onData((chunk, isLast) => fn(new Uint8Array(chunk), isLast));
  }

  respond(head: AnswerHead, body: string | Uint8Array, close: boolean): void {
    // uWS writes `Connection: close` itself when asked to close.
    this.res.cork(() => {
      this.writeHead(head);
      this.res.end(body, close);
    });
  }

  respondWithoutBody(head: AnswerHead, length: number, close: boolean): void {
    this.res.cork(() => {
      this.writeHead(head);
      this.res.endWithoutBody(length, close);
    });
  }

  openChunked(head: AnswerHead): ChunkedBody {
    this.res.cork(() => {
      this.writeHead(head);
      this.res.write('');
    });
    return {
      write: (text) => this.res.cork(() => this.res.write(text)),
      end: (close) => this.res.cork(() => this.res.end(undefined, close)),
    };
  }

  openSized(head: AnswerHead, total: number): SizedBody {
    this.res.cork(() => this.writeHead(head));
    return {
      write: (chunk) =>
        new Promise<void>((resume) => {
          if (this.aborted) return resume();
          // uWS keeps what the socket did not take only as a view of our buffer: offer it again from onWritable.
          const bytes = chunk.buffer.slice(chunk.byteOffset, chunk.byteOffset + chunk.byteLength) as ArrayBuffer;
          this.res.cork(() => {
            const offset = this.res.getWriteOffset();
            const [ok, done] = this.res.tryEnd(bytes, total);
            if (ok || done) return resume();
            this.wake = resume;
            this.res.onWritable((at) => {
              const [again, finished] = this.res.tryEnd(bytes.slice(at - offset), total);
              if (again || finished) {
                this.wake = null;
                resume();
              }
              return again;
            });
          });
        }),
    };
  }

  private writeHead(head: AnswerHead): void {
    this.res.writeStatus(`${head.status} ${STATUS_TEXT[head.status] ?? ''}`.trimEnd());
    for (const k in head.headers) this.res.writeHeader(k, head.headers[k]!);
  }
}
