/**
 * What a handler returns. Handlers never touch uWebSockets.js objects; the server writes a Reply.
 */
export type Reply =
  | { kind: 'json'; status: number; body: unknown; headers?: Record<string, string> }
  | { kind: 'bytes'; status: number; body: Uint8Array | string; contentType: string; headers?: Record<string, string> }
  /** A file streamed as the body (exports); deleted once sent, or once the client has gone. */
  | { kind: 'file'; status: number; path: string; contentType: string; headers?: Record<string, string> };

export function json(body: unknown, status = 200, headers?: Record<string, string>): Reply {
  return { kind: 'json', status, body, ...(headers ? { headers } : {}) };
}

/** `{data: value}`, the envelope of every /v1 success body. */
export function data(value: unknown, status = 200): Reply {
  return json({ data: value }, status);
}

export function bytes(body: Uint8Array | string, contentType: string, status = 200, headers?: Record<string, string>): Reply {
  return { kind: 'bytes', status, body, contentType, ...(headers ? { headers } : {}) };
}

export function file(path: string, contentType: string, headers?: Record<string, string>): Reply {
  return { kind: 'file', status: 200, path, contentType, ...(headers ? { headers } : {}) };
}
