/**
 * What a handler returns. Handlers never touch uWebSockets.js objects; the server writes a Reply.
 */
export type Reply =
  | { kind: 'json'; status: number; body: unknown; headers?: Record<string, string> }
  | { kind: 'bytes'; status: number; body: Uint8Array | string; contentType: string; headers?: Record<string, string> }
  /** A file streamed as the body (exports); deleted once sent, or once the client has gone. */
  | { kind: 'file'; status: number; path: string; contentType: string; headers?: Record<string, string> }
  /**
   * A body written as things happen (server-sent events): `open` gets the sink once the head is
   * sent and answers what to call when the stream ends — the client went away, the handler ended
   * it, or the server is draining (it ends every stream, so a stop is never held up by a reader).
   */
  | {
      kind: 'stream';
      status: number;
      contentType: string;
      headers?: Record<string, string>;
      open: (sink: StreamSink) => () => void;
    };

export interface StreamSink {
  /** Writes a chunk at once; false when the stream has ended (nothing is written then). */
  write(text: string): boolean;
  end(): void;
}

export function json(body: unknown, status = 200, headers?: Record<string, string>): Reply {
  return { kind: 'json', status, body, ...(headers ? { headers } : {}) };
}

/** `{data: value}`, the envelope of every /v1 success body. */
export function data(value: unknown, status = 200): Reply {
  return json({ data: value }, status);
}

export function bytes(
  body: Uint8Array | string,
  contentType: string,
  status = 200,
  headers?: Record<string, string>,
): Reply {
  return { kind: 'bytes', status, body, contentType, ...(headers ? { headers } : {}) };
}

export function file(path: string, contentType: string, headers?: Record<string, string>): Reply {
  return { kind: 'file', status: 200, path, contentType, ...(headers ? { headers } : {}) };
}

export function stream(
  contentType: string,
  open: (sink: StreamSink) => () => void,
  headers?: Record<string, string>,
): Reply {
  return { kind: 'stream', status: 200, contentType, open, ...(headers ? { headers } : {}) };
}
