/**
 * The request pipeline, behind whichever front end serves (http/wire.ts). It owns the request
 * lifecycle: route match, surface check, abort handling, capped body reading, auth, validation, the
 * handler call, and the one mapping of errors to responses. Every request gets exactly one response
 * (uWebSockets.js aborts the process otherwise).
 */
import { randomBytes } from 'node:crypto';
import { open, rm } from 'node:fs/promises';
import type { Logger } from 'pino';
import type { Config } from '../config.js';
import {
  ApiError,
  isStorageFailure,
  overloaded,
  RETRY_AFTER_SECONDS,
  storageUnavailable,
  validationError,
} from '../core/errors.js';
import { decompressHeld } from '../ingest/decode.js';
import { RequestBudget } from './requestBudget.js';
import { authorizeAppWide } from './appWide.js';
import { authorize } from './auth.js';
import { authenticateOperator } from './operatorAuth.js';
import { ANONYMOUS, type Principal } from './principal.js';
import { json, type Reply } from './reply.js';
import type { AnyRoute, Context } from './route.js';
import type { Router } from './router.js';
import { corsHeaders, preflightHeaders } from './cors.js';
import { keyPrefixOf } from './refusalLog.js';
import { langfuseUnsupported } from './routes/langfuse.js';
import { unbuiltEndpoint } from './unbuilt.js';
import { refusalFor } from './surface.js';
import type { Services } from './services.js';
import { validateInput } from './validate.js';
import { MAX_HEADER_FIELDS, type AnswerHead, type FrontEnd, type Wire } from './wire.js';

interface Exchange {
  wire: Wire;
  aborted: boolean;
  answered: boolean;
  requestId: string;
  method: string;
  path: string;
  started: number;
  /** Counted by the request budget (false when refused at the door). */
  admitted: boolean;
  /** Body bytes reserved in the request budget. */
  reserved: number;
  /** `discarding`: the body was refused, the rest of it is read and dropped before answering. */
  body: 'none' | 'reading' | 'discarding' | 'done';
  discarded: number;
  /** The answer, held back until a refused body has been drained (or the linger bound is hit). */
  held: (() => void) | null;
  /** Close the connection after answering: where this request ends, and the next begins, is in doubt. */
  close: boolean;
  /** A write (any method but GET and HEAD): writes may hold only part of the request slots. */
  write: boolean;
  /** CORS headers for the answer (empty unless the request's Origin is allowed). */
  cors: Record<string, string>;
  /** The matched route's pattern, for the operations metrics (never the raw path: unbounded labels). */
  route: string;
  /** Called when the client goes away before the answer is sent (Context.onAbort; a stream's end). */
  onAbort: (() => void)[] | null;
}

/**
 * A refused body is still read (and dropped) for up to this many bytes and milliseconds before the
 * answer goes out, so the client, which is still writing, gets to read the 413 or 503 rather than a
 * reset connection (a lingering close); past either bound the connection is closed anyway.
 */
const LINGER_BYTES = 64 * 1024 * 1024;
const LINGER_MS = 2_000;

export class HttpServer {
  private inFlight = 0;
  private draining = false;
  private readonly budget: RequestBudget;
  /** Ends each open stream (server-sent events): a drain ends them rather than wait for their readers. */
  private readonly streams = new Set<() => void>();

  constructor(
    private readonly config: Config,
    private readonly router: Router,
    private readonly services: Services,
    private readonly log: Logger,
    /** The front end chosen at start (http/frontEnds.ts). */
    private readonly frontEnd: FrontEnd,
  ) {
    this.budget = new RequestBudget(config.maxRequests, config.maxInflightBytes);
  }

  /** Listens and resolves with the bound port (useful when the configured port is 0). */
  listen(): Promise<number> {
    return this.frontEnd.listen(this.config.host, this.config.port, (wire) => this.onRequest(wire));
  }

  /** Takes a request from a front end of its own (OTLP/gRPC: http/grpcFrontEnd.ts) through the same pipeline. */
  accept(wire: Wire): void {
    this.onRequest(wire);
  }

  /**
   * Stops accepting connections and waits (up to `timeoutMs`) for in-flight requests to be answered.
   * Requests that still arrive on open keep-alive connections get 503 with `Connection: close`.
   */
  async drain(timeoutMs: number): Promise<boolean> {
    this.draining = true;
    for (const end of [...this.streams]) end();
    this.frontEnd.close();
    const deadline = Date.now() + timeoutMs;
    while (this.inFlight > 0 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 10));
    return this.inFlight === 0;
  }

  private onRequest(wire: Wire): void {
    const ex: Exchange = {
      wire,
      aborted: false,
      answered: false,
      requestId: randomBytes(8).toString('hex'),
      method: wire.method,
      path: wire.path,
      started: performance.now(),
      admitted: false,
      reserved: 0,
      body: 'none',
      discarded: 0,
      held: null,
      close: false,
      write: false,
      cors: {},
      route: 'unmatched',
      onAbort: null,
    };
    ex.write = ex.method !== 'GET' && ex.method !== 'HEAD';
    const { query, headers } = wire;
    ex.cors = corsHeaders(this.config.corsOrigins, headers.origin);
    this.inFlight++;
    wire.onAborted(() => {
      ex.aborted = true;
      for (const fn of ex.onAbort ?? []) fn();
      this.finish(ex, 0);
    });

    if (this.draining) {
      this.send(
        ex,
        errorReply(
          new ApiError(
            'unavailable',
            'Server is shutting down',
            { retry_after_seconds: RETRY_AFTER_SECONDS },
            { 'Retry-After': String(RETRY_AFTER_SECONDS) },
          ),
        ),
      );
      return;
    }
    if (wire.headerFields > MAX_HEADER_FIELDS) {
      ex.close = true;
      this.send(
        ex,
        errorReply(
          new ApiError('request_header_fields_too_large', `More than ${MAX_HEADER_FIELDS} header fields`, {
            limit: MAX_HEADER_FIELDS,
          }),
        ),
      );
      return;
    }
    if (wire.lengthInDoubt) {
      ex.close = true;
      this.send(
        ex,
        errorReply(validationError('headers', { 'content-length': 'given more than once with different values' })),
      );
      return;
    }
    const unreadable = unreadableHeader(headers);
    if (unreadable) {
      this.send(ex, errorReply(unreadable));
      return;
    }
    if (ex.method === 'OPTIONS' && headers['access-control-request-method'] !== undefined) {
      this.answerPreflight(
        ex,
        preflightHeaders(this.config.corsOrigins, headers.origin, headers['access-control-request-headers']),
      );
      return;
    }
    if (!(ex.admitted = this.budget.enter(ex.write))) {
      this.send(ex, errorReply(overloaded(`More than ${this.budget.maxRequests} requests in flight; retry later`)));
      return;
    }
    const refusal = refusalFor(this.config.mode, ex.path);
    if (refusal) {
      this.send(ex, errorReply(new ApiError(refusal)));
      return;
    }
    const match = this.router.match(ex.method, ex.path);
    if (match.kind === 'not_found' || match.kind === 'method_not_allowed') {
      const unbuilt = notImplemented(ex.method, ex.path);
      if (unbuilt) {
        this.send(ex, errorReply(unbuilt));
        return;
      }
    }
    if (match.kind === 'not_found') {
      this.send(ex, errorReply(new ApiError('not_found', `No route for ${ex.method} ${ex.path}`)));
      return;
    }
    if (match.kind === 'bad_encoding') {
      this.send(ex, errorReply(validationError('path', { [match.param]: 'not valid percent-encoding' })));
      return;
    }
    if (match.kind === 'method_not_allowed') {
      this.send(ex, errorReply(new ApiError('method_not_allowed', `${ex.method} is not allowed on ${ex.path}`)), {
        Allow: match.allow.join(', '),
      });
      return;
    }
    ex.route = match.route.path;
    const body = this.readBody(ex, match.route, headers);
    this.handle(ex, match.route, match.params, query, headers, body).catch((e: unknown) => this.fail(ex, e));
  }

  private async handle(
    ex: Exchange,
    route: AnyRoute,
    params: Record<string, string>,
    query: string,
    headers: Record<string, string>,
    body: Promise<Buffer> | null,
  ): Promise<void> {
    // Start reading before auth so the body is not lost, but judge auth first: a caller without
    // credentials learns nothing about what their body would have done.
    body?.catch(() => undefined);
    let principal: Principal = ANONYMOUS;
    try {
      if (route.permission === 'operator') {
        // No tenant, so no rate limit (the token is long: config.ts).
        principal = authenticateOperator(headers, this.config.operatorToken);
      } else if (route.permission !== 'none') {
        principal = await this.services.auth.authenticate(headers, route.rawKeyOnly === true);
        authorize(principal, route.permission);
        const rate = this.services.rateLimiter.take(principal.tenantId, Date.now());
        if (!rate.allowed) {
          throw new ApiError(
            'rate_limited',
            `Too many requests for this tenant; retry in ${rate.retryAfterSeconds} s`,
            { retry_after_seconds: rate.retryAfterSeconds },
            { 'Retry-After': String(rate.retryAfterSeconds) },
          );
        }
      }
      const sent = body ? await body : null;
      const raw = sent && route.inflateUpTo ? await this.inflated(ex, route, headers, sent) : sent;
      if (ex.aborted) return;
      const input = validateInput(route, params, query, headers, raw);
      authorizeAppWide(principal, route, input);
      const onAbort = (fn: () => void) => void (ex.onAbort ??= []).push(fn);
      const abandoned = new AbortController();
      onAbort(() => abandoned.abort());
      const services = {
        ...this.services,
        store: route.probe ? this.services.store : this.services.store.forRequest(abandoned.signal),
        compute: this.services.compute.forRequest(abandoned.signal),
      };
      const ctx: Context = { principal, config: this.config, services, requestId: ex.requestId, onAbort };
      const reply = await route.handler(input, ctx);
      this.send(ex, reply);
    } catch (e) {
      if (route.logRefusals && e instanceof ApiError) {
        const known = principal !== ANONYMOUS;
        this.services.refusals.note(
          {
            tenant_id: known ? principal.tenantId : null,
            app_id: known ? principal.appId : (headers['x-service-app-id']?.slice(0, 64) ?? null),
            key_prefix: keyPrefixOf(headers.authorization),
            reason: e.code,
            status: e.status,
            message: e.message,
          },
          Date.now(),
        );
      }
      throw e;
    }
  }

  /**
   * Collects the body up to the route's cap and within the request budget. Over the cap is 413,
   * over the budget 503 — both before anything else happens, and the rest of the body is drained.
   */
  private readBody(ex: Exchange, route: AnyRoute, headers: Record<string, string>): Promise<Buffer> | null {
    const mode = route.body ?? (ex.method === 'GET' || ex.method === 'DELETE' ? 'none' : 'json');
    if (mode === 'none' && !headers['content-length'] && !headers['transfer-encoding']) return null;
    const cap = route.maxBodyBytes?.(this.config) ?? this.config.maxBodyBytes;
    const declared = Number(headers['content-length'] ?? 0);
    const weight = route.bodyWeight ?? 1;
    const weigh = (bytes: number) => Math.max(bytes, Math.min(bytes * weight, this.budget.maxBytes));
    ex.body = 'reading';
    return new Promise((resolve, reject) => {
      const refuse = (e: ApiError) => {
        ex.body = 'discarding';
        reject(e);
      };
      if (declared > cap) refuse(tooLarge(cap));
      else if (declared > 0 && this.budget.reserve(weigh(declared))) ex.reserved = weigh(declared);
      else if (declared > 0) refuse(overloaded('Too many request bytes in flight; retry later'));
      const chunks: Buffer[] = [];
      let size = 0;
      ex.wire.onData((chunk, isLast) => {
        if (ex.body === 'discarding') return void this.discard(ex, chunk, isLast);
        size += chunk.byteLength;
        if (size > cap) refuse(tooLarge(cap));
        else if (weigh(size) > ex.reserved && !this.budget.reserve(weigh(size) - ex.reserved))
          refuse(overloaded('Too many request bytes in flight; retry later'));
        else {
          ex.reserved = Math.max(ex.reserved, weigh(size));
          // The chunk is only valid during this callback: copy it.
          chunks.push(Buffer.copyBytesFrom(chunk));
        }
        if (!isLast) return;
        // `refuse` may have just turned the body to discarding (TypeScript cannot see that).
        const refused = (ex.body as Exchange['body']) === 'discarding';
        ex.body = 'done';
        if (refused) return void ex.held?.();
        resolve(ownBuffer(chunks, size));
      });
    });
  }

  /** A chunk of a body nobody will read: counted, and the held answer sent once it is all in (or too much came). */
  private discard(ex: Exchange, chunk: Uint8Array, isLast: boolean): void {
    ex.discarded += chunk.byteLength;
    if (isLast || ex.discarded > LINGER_BYTES) {
      ex.body = isLast ? 'done' : 'discarding';
      ex.held?.();
    }
  }

  /** The body with its Content-Encoding undone, each output chunk reserved in the request budget. */
  private async inflated(
    ex: Exchange,
    route: AnyRoute,
    headers: Record<string, string>,
    sent: Buffer,
  ): Promise<Buffer> {
    const encoding = headers['content-encoding'];
    const cap = route.inflateUpTo!(this.config);
    const { chunks, size } = await decompressHeld(sent, encoding, cap, (bytes) => {
      if (!this.budget.reserve(bytes)) return false;
      ex.reserved += bytes;
      return true;
    });
    return chunks.length === 1 && chunks[0] === sent ? sent : ownBuffer(chunks, size);
  }

  private fail(ex: Exchange, e: unknown): void {
    if (!(e instanceof ApiError)) {
      this.log.error({ err: e, requestId: ex.requestId, method: ex.method, path: ex.path }, 'request failed');
    }
    this.send(ex, errorReply(e));
  }

  private send(ex: Exchange, reply: Reply, extraHeaders: Record<string, string> = {}): void {
    if (ex.aborted || ex.answered) {
      if (reply.kind === 'file') void rm(reply.path, { force: true });
      return;
    }
    if (ex.body === 'none' && declaresBody(ex.wire.headers)) {
      // Answered before its body was read (404, 405, 401 at the door…): the body is read and
      // dropped first, as a refused one is, so the client still writing it is not cut off.
      ex.body = 'discarding';
      ex.wire.onData((chunk, isLast) => this.discard(ex, chunk, isLast));
    }
    if (ex.body === 'reading' || (ex.body === 'discarding' && ex.discarded <= LINGER_BYTES && !ex.held)) {
      // The client is still sending a body nobody will read: answer once it is drained (bounded).
      ex.body = 'discarding';
      const timer = setTimeout(() => ex.held?.(), LINGER_MS);
      ex.held = () => {
        clearTimeout(timer);
        ex.held = null;
        ex.discarded = LINGER_BYTES + 1;
        this.send(ex, reply, extraHeaders);
      };
      return;
    }
    if (reply.kind === 'file') return void this.stream(ex, reply, extraHeaders);
    if (reply.kind === 'stream') {
      this.openStream(ex, reply, extraHeaders);
      return;
    }
    ex.answered = true;
    const isJson = reply.kind === 'json';
    const payload = isJson ? JSON.stringify(reply.body) : reply.body;
    const contentType = isJson ? 'application/json' : reply.contentType;
    // After a refused body the connection is not reused (the client may still be writing it).
    const closing = this.draining || ex.body === 'discarding' || ex.close;
    const head = this.head(ex, reply.status, contentType, { ...reply.headers, ...extraHeaders });
    if (ex.method === 'HEAD') ex.wire.respondWithoutBody(head, Buffer.byteLength(payload), closing);
    else ex.wire.respond(head, payload, closing);
    this.finish(ex, reply.status);
  }

  private head(ex: Exchange, status: number, contentType: string, headers: Record<string, string>): AnswerHead {
    const all: Record<string, string> = { 'Content-Type': contentType };
    all['X-Request-Id'] = ex.requestId;
    for (const k in ex.cors) if (!(k in headers)) all[k] = ex.cors[k]!;
    return { status, headers: Object.assign(all, headers) };
  }

  /**
   * Sends the head of a stream, then hands its sink to the reply's `open`: chunked transfer
   * encoding (no length is known). The stream ends when its owner ends it, when the client
   * goes away, or when the server drains; `finish` is called once either way.
   */
  private openStream(
    ex: Exchange,
    reply: Extract<Reply, { kind: 'stream' }>,
    extraHeaders: Record<string, string>,
  ): void {
    ex.answered = true;
    const body = ex.wire.openChunked(
      this.head(ex, reply.status, reply.contentType, { ...reply.headers, ...extraHeaders }),
    );
    let ended = false;
    let stop: () => void = () => undefined;
    const end = () => {
      if (ended) return;
      ended = true;
      this.streams.delete(end);
      stop();
      if (ex.aborted) return;
      body.end(this.draining);
      this.finish(ex, reply.status);
    };
    (ex.onAbort ??= []).push(() => {
      // `finish` was called by the abort handler.
      ended = true;
      this.streams.delete(end);
      stop();
    });
    this.streams.add(end);
    stop = reply.open({
      write: (text) => {
        if (ended || ex.aborted) return false;
        body.write(text);
        return true;
      },
      end,
    });
    if (ended) stop();
  }

  /** A CORS preflight: 204 and no body, with the allowing headers when the origin is allowed. */
  private answerPreflight(ex: Exchange, headers: Record<string, string>): void {
    ex.answered = true;
    ex.wire.respondWithoutBody(
      { status: 204, headers: { 'X-Request-Id': ex.requestId, ...headers } },
      0,
      this.draining,
    );
    this.finish(ex, 204);
  }

  /**
   * Streams a file as the body, a chunk at a time: the next chunk is read only once the connection
   * has taken the last (the front end's back-pressure). The file is deleted as soon as it is open.
   */
  private async stream(
    ex: Exchange,
    reply: Extract<Reply, { kind: 'file' }>,
    extraHeaders: Record<string, string>,
  ): Promise<void> {
    ex.answered = true;
    const handle = await open(reply.path, 'r');
    // Unlinked at once: the open handle still reads it, and nothing is left behind whatever happens.
    await rm(reply.path, { force: true });
    try {
      const total = (await handle.stat()).size;
      if (ex.aborted) return;
      const head = this.head(ex, reply.status, reply.contentType, { ...reply.headers, ...extraHeaders });
      if (ex.method === 'HEAD') return ex.wire.respondWithoutBody(head, total, false);
      if (total === 0) return ex.wire.respond(head, '', false);
      const body = ex.wire.openSized(head, total);
      const buffer = Buffer.allocUnsafe(STREAM_CHUNK);
      let sent = 0;
      while (sent < total && !ex.aborted) {
        const { bytesRead } = await handle.read(buffer, 0, Math.min(STREAM_CHUNK, total - sent), sent);
        if (bytesRead === 0 || ex.aborted) break;
        sent += bytesRead;
        // The front end may keep the chunk until the connection takes it: the buffer is reused only after.
        await body.write(buffer.subarray(0, bytesRead));
      }
    } finally {
      await handle.close();
      if (!ex.aborted) this.finish(ex, reply.status);
    }
  }

  private finish(ex: Exchange, status: number): void {
    this.inFlight--;
    if (ex.admitted) this.budget.leave(ex.write);
    this.budget.release(ex.reserved);
    ex.reserved = 0;
    const ms = performance.now() - ex.started;
    this.services.ops?.request(ex.method, ex.route, ex.aborted ? 'aborted' : String(status), ms / 1000);
    this.log.debug(
      { requestId: ex.requestId, method: ex.method, path: ex.path, status, ms: Math.round(ms), aborted: ex.aborted },
      'request',
    );
  }
}

/**
 * A 501 for an endpoint no route serves that is known not to be built: the spec's, or a call of
 * Langfuse's API beyond the part served. A 404 would read as a wrong URL.
 */
function notImplemented(method: string, path: string): ApiError | null {
  const unbuilt = unbuiltEndpoint(method, path);
  if (unbuilt) {
    return new ApiError(
      'not_implemented',
      `${unbuilt} is not built in this version of Tracelake; GET /v1/capabilities lists what is`,
    );
  }
  return langfuseUnsupported(method, path);
}

/** The request says a body follows (a length over zero, or chunks). */
function declaresBody(headers: Record<string, string>): boolean {
  return Number(headers['content-length'] ?? 0) > 0 || headers['transfer-encoding'] !== undefined;
}

/**
 * Joins the chunks into a buffer that owns its memory (never a slice of Node's shared pool), so a
 * handler may transfer it to a worker thread without detaching anyone else's bytes.
 */
function ownBuffer(chunks: Uint8Array[], size: number): Buffer {
  const out = Buffer.allocUnsafeSlow(size);
  let at = 0;
  for (const c of chunks) {
    out.set(c, at);
    at += c.byteLength;
  }
  return out;
}

/** Bytes read from a streamed file at a time. */
const STREAM_CHUNK = 256 * 1024;

function tooLarge(cap: number): ApiError {
  return new ApiError('payload_too_large', `Request body exceeds ${cap} bytes`, { limit: cap });
}

/**
 * A control character (other than tab) or U+FFFD in a header value. Front ends hand values over
 * decoded as UTF-8, so a byte that is not valid UTF-8 arrives as U+FFFD: the client's bytes did not
 * survive, and a credential read from them would not be the one sent. Refused before routing and
 * auth. (uWebSockets.js strips bytes 0x80–0xFF at either end of a value before we see it:
 * test/reliability/http-edges.alone.test.ts.)
 */
function unreadableHeader(headers: Record<string, string>): ApiError | null {
  for (const [name, value] of Object.entries(headers)) {
    if (UNREADABLE.test(value)) {
      return validationError('headers', { [name]: 'contains a control character or a byte that is not UTF-8 text' });
    }
  }
  return null;
}

const UNREADABLE = /[\u0000-\u0008\u000a-\u001f\u007f\ufffd]/;

/** The one mapping of a thrown value to a response; anything unexpected is a 500 of the spec's shape. */
export function errorReply(e: unknown): Reply {
  const error = e instanceof ApiError ? e : isStorageFailure(e) ? storageUnavailable() : new ApiError('internal_error');
  return json(error.toBody(), error.status, error.headers);
}
