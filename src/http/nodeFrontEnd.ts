/**
 * The node:http front end, where no uWebSockets.js build loads (older glibc, musl, a Node without a
 * build). It turns Node's request and response into a `Wire`, and answers what Node's parser refuses
 * the way uWS does (400, 431, 505 with `Connection: close`), in the spec's error shape.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { Server as NetServer } from 'node:net';
import { ApiError, validationError } from '../core/errors.js';
import { PortInUse } from './portInUse.js';
import { STATUS_TEXT } from './status.js';
import { MAX_HEAD_BYTES, type AnswerHead, type ChunkedBody, type FrontEnd, type SizedBody, type Wire } from './wire.js';

/** How long a connection may sit idle, or take to send its head; uWS closes idle connections after 10 s too. */
const IDLE_TIMEOUT_MS = 10_000;

const EMPTY = new Uint8Array(0);

export class NodeFrontEnd implements FrontEnd {
  readonly name = 'node';
  readonly build = 'node:http';
  private server: Server | null = null;

  listen(host: string, port: number, onRequest: (wire: Wire) => void): Promise<number> {
    const server = createServer(
      {
        maxHeaderSize: MAX_HEAD_BYTES,
        keepAliveTimeout: IDLE_TIMEOUT_MS,
        headersTimeout: IDLE_TIMEOUT_MS,
        // Node checks the timeouts above on this period (30 s by default).
        connectionsCheckingInterval: 1_000,
        requireHostHeader: true,
      },
      (req, res) => {
        // A request's stream errors when its client goes away mid-body; the answer path sees the abort.
        req.on('error', () => undefined);
        if (req.httpVersion !== '1.1') return refuse(res, new ApiError('http_version_not_supported'));
        onRequest(new NodeWire(req, res));
      },
    );
    server.on('clientError', (err: NodeJS.ErrnoException, socket: Socket) => answerParseError(err, socket));
    this.server = server;
    return new Promise((resolve, reject) => {
      server.once('error', (e: NodeJS.ErrnoException) =>
        reject(e.code === 'EADDRINUSE' ? new PortInUse(host, port) : e),
      );
      // Node never sets SO_REUSEPORT unless asked: a second server on the port fails with EADDRINUSE.
      server.listen({ host, port, exclusive: true }, () => resolve((server.address() as AddressInfo).port));
    });
  }

  close(): void {
    // net's close, not http's: http's also drops idle keep-alive connections, where the pipeline
    // answers a request that still comes on one with 503 and closes it, as on uWS.
    if (this.server) NetServer.prototype.close.call(this.server);
    this.server = null;
  }
}

class NodeWire implements Wire {
  readonly method: string;
  readonly path: string;
  readonly query: string;
  readonly headers: Record<string, string> = Object.create(null);
  readonly headerFields: number;
  readonly lengthInDoubt = false;

  constructor(
    private readonly req: IncomingMessage,
    private readonly res: ServerResponse,
  ) {
    this.method = req.method!.toUpperCase();
    const url = req.url ?? '/';
    const q = url.indexOf('?');
    this.path = q < 0 ? url : url.slice(0, q);
    this.query = q < 0 ? '' : url.slice(q + 1);
    const raw = req.rawHeaders;
    for (let i = 0; i < raw.length; i += 2) this.headers[raw[i]!.toLowerCase()] = asUtf8(raw[i + 1]!);
    this.headerFields = raw.length / 2;
  }

  onAborted(fn: () => void): void {
    // `close` comes after every answer too; only one left unfinished means the client went away.
    this.res.once('close', () => {
      if (!this.res.writableEnded) fn();
    });
  }

  onData(fn: (chunk: Uint8Array, isLast: boolean) => void): void {
    this.req.on('data', (chunk: Buffer) => fn(chunk, false));
    this.req.once('end', () => fn(EMPTY, true));
  }

  respond(head: AnswerHead, body: string | Uint8Array, close: boolean): void {
    const length = typeof body === 'string' ? Buffer.byteLength(body) : body.byteLength;
    this.writeHead(head, length, close);
    this.res.end(body);
  }

  respondWithoutBody(head: AnswerHead, length: number, close: boolean): void {
    this.writeHead(head, length, close);
    this.res.end();
  }

  openChunked(head: AnswerHead): ChunkedBody {
    this.writeHead(head, null, false);
    this.res.flushHeaders();
    const socket = this.res.socket;
    return {
      write: (text) => void this.res.write(text),
      end: (close) => {
        this.res.end();
        // The head promised keep-alive; a draining server closes the connection once the end is written.
        if (close && socket) this.res.once('finish', () => socket.end());
      },
    };
  }

  openSized(head: AnswerHead, total: number): SizedBody {
    this.writeHead(head, total, false);
    let written = 0;
    return {
      write: async (chunk) => {
        if (this.res.destroyed) return;
        written += chunk.byteLength;
        // The socket may hold on to what it is given until it is sent; the caller reuses its buffer.
        const taken = this.res.write(Buffer.from(chunk));
        if (written >= total) this.res.end();
        else if (!taken) await drained(this.res);
      },
    };
  }

  private writeHead(head: AnswerHead, length: number | null, close: boolean): void {
    const headers: Record<string, string> = { ...head.headers };
    if (length !== null) headers['Content-Length'] = String(length);
    if (close) headers.Connection = 'close';
    this.res.writeHead(head.status, STATUS_TEXT[head.status], headers);
  }
}

/**
 * Node reads header values as Latin-1; a value with bytes past ASCII is read again as UTF-8, so a
 * byte that is not UTF-8 becomes U+FFFD, as uWS hands it over (the pipeline refuses such values).
 */
function asUtf8(value: string): string {
  return /[^\x00-\x7f]/.test(value) ? Buffer.from(value, 'latin1').toString('utf8') : value;
}

function drained(res: ServerResponse): Promise<void> {
  return new Promise((resume) => {
    const done = () => {
      res.off('drain', done);
      res.off('close', done);
      resume();
    };
    res.on('drain', done);
    res.on('close', done);
  });
}

/** An answer of the pipeline's shape to a request refused before it reached the pipeline. */
function refuse(res: ServerResponse, error: ApiError): void {
  const { body, headers } = closingAnswer(error);
  res.writeHead(error.status, STATUS_TEXT[error.status], headers);
  res.end(body);
}

/** The spec's error body for `error`, and the headers of an answer after which the connection closes. */
function closingAnswer(error: ApiError): { body: string; headers: Record<string, string> } {
  const body = JSON.stringify(error.toBody());
  return {
    body,
    headers: {
      'Content-Type': 'application/json',
      'Content-Length': String(Buffer.byteLength(body)),
      Connection: 'close',
    },
  };
}

/**
 * What Node's parser refused: malformed framing is 400, a head over the limit 431, a head that took
 * too long 408 — each in the spec's error shape, and the connection closed (where the request ends
 * is unknown).
 */
function answerParseError(err: NodeJS.ErrnoException, socket: Socket): void {
  // An answer already under way on the connection (pipelining) cannot be followed by another's bytes.
  const answering =
    (socket as Socket & { _httpMessage?: { headersSent?: boolean } | null })._httpMessage?.headersSent === true;
  if (err.code === 'ECONNRESET' || !socket.writable || answering) return void socket.destroy();
  const error = parseError(err.code);
  const { body, headers } = closingAnswer(error);
  const head = Object.entries(headers)
    .map(([k, v]) => `${k}: ${v}\r\n`)
    .join('');
  socket.end(`HTTP/1.1 ${error.status} ${STATUS_TEXT[error.status]}\r\n${head}\r\n${body}`);
}

function parseError(code: string | undefined): ApiError {
  switch (code) {
    case 'HPE_HEADER_OVERFLOW':
      return new ApiError(
        'request_header_fields_too_large',
        `The request line and headers exceed ${MAX_HEAD_BYTES} bytes`,
        { limit: MAX_HEAD_BYTES },
      );
    case 'HPE_UNEXPECTED_CONTENT_LENGTH':
      return validationError('headers', {
        'content-length': 'given more than once with different values, or with Transfer-Encoding',
      });
    case 'ERR_HTTP_REQUEST_TIMEOUT':
    case 'HPE_HEADERS_TIMEOUT':
      return new ApiError('request_timeout', 'The request line and headers did not arrive in time');
    default:
      return new ApiError('malformed_request', `Malformed HTTP request (${code ?? 'unknown'})`);
  }
}
