/**
 * A lean HTTP/1.1 load generator for the ingest benchmarks: keep-alive sockets, requests built once
 * (head and body bytes), responses parsed just enough (status line, Content-Length, body skipped).
 * It costs the machine far less CPU than `fetch`, so on two cores the server, not the client, is
 * what gets measured. Closed loop (`closedLoop`: each connection sends its next request when the
 * last is answered) or open loop (`openLoop`: requests leave at a fixed rate whatever the answers).
 */
import { connect, type Socket } from 'node:net';

export interface Answer {
  status: number;
  /** Milliseconds from the request's first byte written to the answer's last byte read. */
  ms: number;
  /** Headers of interest, lower-cased names. */
  headers: Record<string, string>;
}

export interface Target {
  host: string;
  port: number;
  path: string;
  headers: Record<string, string>;
}

/** A request as bytes: the head (with Content-Length) and the body. */
export function encodeRequest(target: Target, body: Uint8Array): Buffer {
  const head = [
    `POST ${target.path} HTTP/1.1`,
    `Host: ${target.host}:${target.port}`,
    `Content-Length: ${body.byteLength}`,
    ...Object.entries(target.headers).map(([k, v]) => `${k}: ${v}`),
    '',
    '',
  ].join('\r\n');
  return Buffer.concat([Buffer.from(head, 'latin1'), body]);
}

/** A GET as bytes: the head alone (no body, no Content-Length). */
export function encodeGet(target: Target): Buffer {
  return Buffer.from(
    [
      `GET ${target.path} HTTP/1.1`,
      `Host: ${target.host}:${target.port}`,
      ...Object.entries(target.headers).map(([k, v]) => `${k}: ${v}`),
      '',
      '',
    ].join('\r\n'),
    'latin1',
  );
}

/** One keep-alive connection that sends requests one at a time. */
export class Connection {
  private socket: Socket;
  private pending: { started: number; resolve: (a: Answer) => void; reject: (e: Error) => void } | null = null;
  private buffer: Buffer = Buffer.alloc(0);
  /** False once the server has closed it, or said it will (`Connection: close`). */
  reusable = true;
  /** When it last went back to a pool, `performance.now()`. */
  idleSince = 0;

  private constructor(socket: Socket) {
    this.socket = socket;
    socket.setNoDelay(true);
    socket.on('data', (chunk: Buffer) => this.onData(chunk));
    socket.on('error', (e) => this.fail(e));
    socket.on('close', () => {
      this.reusable = false;
      this.fail(new Error('connection closed'));
    });
  }

  static open(host: string, port: number): Promise<Connection> {
    return new Promise((resolve, reject) => {
      const socket = connect(port, host, () => resolve(new Connection(socket)));
      socket.once('error', reject);
    });
  }

  send(request: Buffer): Promise<Answer> {
    if (this.pending) throw new Error('one request at a time per connection');
    return new Promise((resolve, reject) => {
      this.pending = { started: performance.now(), resolve, reject };
      this.socket.write(request);
    });
  }

  close(): void {
    this.socket.destroy();
  }

  private onData(chunk: Buffer): void {
    this.buffer = this.buffer.length === 0 ? chunk : Buffer.concat([this.buffer, chunk]);
    const headEnd = this.buffer.indexOf('\r\n\r\n');
    if (headEnd < 0 || !this.pending) return;
    const head = this.buffer.subarray(0, headEnd).toString('latin1');
    const lines = head.split('\r\n');
    const status = Number(lines[0]!.split(' ')[1]);
    const headers: Record<string, string> = {};
    for (const line of lines.slice(1)) {
      const colon = line.indexOf(':');
      headers[line.slice(0, colon).trim().toLowerCase()] = line.slice(colon + 1).trim();
    }
    const length = Number(headers['content-length'] ?? 0);
    if (this.buffer.length < headEnd + 4 + length) return;
    if (headers.connection?.toLowerCase() === 'close') this.reusable = false;
    this.buffer = this.buffer.subarray(headEnd + 4 + length);
    const p = this.pending;
    this.pending = null;
    p.resolve({ status, ms: performance.now() - p.started, headers });
  }

  private fail(e: Error): void {
    const p = this.pending;
    this.pending = null;
    p?.reject(e);
  }
}

/**
 * `connections` keep-alive connections each sending `next()` until it returns null. When `onAnswer`
 * returns a number, the same request is sent again after that many milliseconds (a 503's
 * Retry-After, as an exporter would honour it).
 */
export async function closedLoop(
  host: string,
  port: number,
  connections: number,
  next: () => Buffer | null,
  onAnswer: (a: Answer) => unknown,
): Promise<void> {
  const conns = await Promise.all(Array.from({ length: connections }, () => Connection.open(host, port)));
  await Promise.all(
    conns.map(async (first) => {
      let c = first;
      // A connection the server closes (after a refused upload) is replaced, as an HTTP agent does.
      const send = async (r: Buffer) => {
        if (!c.reusable) {
          c.close();
          c = await Connection.open(host, port);
        }
        return c.send(r);
      };
      for (let r = next(); r !== null; r = next()) {
        for (let again = onAnswer(await send(r)); typeof again === 'number'; again = onAnswer(await send(r))) {
          await new Promise((done) => setTimeout(done, again as number));
        }
      }
      c.close();
    }),
  );
}

/**
 * Sends `next(i)` at `perSecond` requests a second for `seconds`, over a pool of connections (a new
 * one is opened when all are busy, as an exporter's HTTP agent would), until `next` returns null.
 * Resolves when all are answered. A request whose connection fails or closes before the answer is
 * answered status 0. Only the requests in flight are held, so a loop may run for hours.
 */
/** How long a pooled connection may have been idle and still be reused (see `openLoop`). */
const IDLE_REUSE_MS = 4_000;

export async function openLoop(
  host: string,
  port: number,
  perSecond: number,
  seconds: number,
  next: (i: number) => Buffer | null,
  onAnswer: (a: Answer, sentAt: number, i: number) => void,
): Promise<void> {
  const idle: Connection[] = [];
  const inFlight = new Set<Promise<void>>();
  // What `onAnswer` threw, thrown once every request is answered.
  let failure: { error: unknown } | null = null;
  const started = performance.now();
  const total = Math.round(perSecond * seconds);
  for (let i = 0; i < total; i++) {
    const due = started + (i * 1000) / perSecond;
    const wait = due - performance.now();
    if (wait > 1) await new Promise((r) => setTimeout(r, wait));
    const request = next(i);
    if (request === null) break;
    const sending = (async () => {
      let c = idle.pop();
      // A connection the server closed while it was idle (or said it would) is not reused, nor
      // one idle long enough that the server may be closing it as it is written to (its idle
      // timeout is 10 s): HTTP agents let idle sockets go sooner (Node's after 5 s) for that race.
      while (c && (!c.reusable || performance.now() - c.idleSince > IDLE_REUSE_MS)) {
        c.close();
        c = idle.pop();
      }
      let sentAt = performance.now();
      try {
        c ??= await Connection.open(host, port);
        sentAt = performance.now();
        onAnswer(await c.send(request), sentAt, i);
        if (c.reusable) {
          c.idleSince = performance.now();
          idle.push(c);
        } else c.close();
      } catch {
        onAnswer({ status: 0, ms: performance.now() - sentAt, headers: {} }, sentAt, i);
        c?.close();
      }
    })().catch((error: unknown) => {
      failure ??= { error };
    });
    inFlight.add(sending);
    void sending.then(() => inFlight.delete(sending));
  }
  await Promise.all(inFlight);
  for (const c of idle) c.close();
  if (failure) throw (failure as { error: unknown }).error;
}

export function percentile(sorted: readonly number[], p: number): number {
  if (sorted.length === 0) return NaN;
  return sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * p))]!;
}
