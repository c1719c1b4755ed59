/**
 * The one interface between the request pipeline (http/server.ts) and a front end: uWebSockets.js
 * (http/uwsFrontEnd.ts) or node:http (http/nodeFrontEnd.ts). A front end turns each request into a
 * `Wire` and writes what the pipeline hands back; routing, body caps, aborts, auth, validation and
 * the mapping of errors are the pipeline's alone, so both front ends answer alike.
 */

/** The head of an answer: its status and every header the pipeline chose (Content-Type included). */
export interface AnswerHead {
  status: number;
  headers: Record<string, string>;
}

/** One request as a front end hands it over, and the means to answer it once. */
export interface Wire {
  /** Upper-cased. */
  readonly method: string;
  /** The path as sent, without the query. */
  readonly path: string;
  /** The query string without `?` ('' when absent). */
  readonly query: string;
  /** Lower-cased names, the last of a repeated name winning; values as UTF-8 text (a byte that is not UTF-8 reads as U+FFFD). */
  readonly headers: Record<string, string>;
  /** Header fields in the request, Host included (what the header-count limit counts). */
  readonly headerFields: number;
  /** Content-Length came more than once with different values: where the body ends is in doubt. */
  readonly lengthInDoubt: boolean;
  /** Called once if the client goes away before the answer is complete. */
  onAborted(fn: () => void): void;
  /** Hands the body over chunk by chunk; a chunk is valid only during the call (copy what is kept). */
  onData(fn: (chunk: Uint8Array, isLast: boolean) => void): void;
  /** A whole answer; `close` ends the connection after it. */
  respond(head: AnswerHead, body: string | Uint8Array, close: boolean): void;
  /** An answer without a body (HEAD, 204) that reports a body of `length` bytes. */
  respondWithoutBody(head: AnswerHead, length: number, close: boolean): void;
  /** An answer of unknown length, written as it happens (chunked). */
  openChunked(head: AnswerHead): ChunkedBody;
  /** An answer of `total` bytes, written in chunks; it ends by itself once `total` bytes are written. */
  openSized(head: AnswerHead, total: number): SizedBody;
}

export interface ChunkedBody {
  write(text: string): void;
  end(close: boolean): void;
}

export interface SizedBody {
  /** Resolves once the connection has taken the chunk (back-pressure), or once the client has gone. */
  write(chunk: Uint8Array): Promise<void>;
}

/** What serves HTTP: listens, hands every request to `onRequest`, and stops listening on `close`. */
export interface FrontEnd {
  /** `uws` or `node`, for the `listening` line. */
  readonly name: 'uws' | 'node';
  /** The build serving, e.g. `@btc-vision/uwebsockets.js@20.57.0` or `node:http`. */
  readonly build: string;
  /** Resolves with the bound port; rejects with a `PortInUse` when another socket holds the address. */
  listen(host: string, port: number, onRequest: (wire: Wire) => void): Promise<number>;
  /** Stops accepting connections; open ones are answered and then closed by the pipeline. */
  close(): void;
}

/** The largest number of header fields a request may carry (Host included); more is 431 on every front end. */
export const MAX_HEADER_FIELDS = 50;

/**
 * The largest request head (request line and headers) in bytes; more is 431 on every front end. A
 * GET's filter may be 8,192 characters, up to ~48 KB once percent-encoded.
 */
export const MAX_HEAD_BYTES = 64 * 1024;
