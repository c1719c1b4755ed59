/**
 * An OTLP/HTTP trace export body → the decoded request. Decompression (gzip, deflate) is capped, so
 * a small bomb cannot exhaust memory; every refusal is an ApiError with the right status, raised
 * before anything is stored.
 */
import { promisify } from 'node:util';
import {
  createGunzip,
  createInflate,
  createInflateRaw,
  gunzip,
  gunzipSync,
  inflate,
  inflateRaw,
  inflateRawSync,
  inflateSync,
  type ZlibOptions,
} from 'node:zlib';
import { ApiError, overloaded } from '../core/errors.js';
import type { ExportTraceServiceRequest } from '../core/otlp/wire.js';
import { parseMendedJson } from '../core/text.js';
import { checkTraceRequest } from './protoCheck.js';
import { decodeTraceRequest } from './protoDecode.js';

export type OtlpEncoding = 'protobuf' | 'json';

/** The body encoding a Content-Type names, or 415. */
export function encodingOf(contentType: string | undefined): OtlpEncoding {
  const type = (contentType ?? '').split(';')[0]!.trim().toLowerCase();
  if (type === 'application/x-protobuf' || type === 'application/protobuf') return 'protobuf';
  if (type === 'application/json') return 'json';
  throw new ApiError(
    'unsupported_media_type',
    `OTLP/HTTP takes application/x-protobuf or application/json, not "${type || 'nothing'}"`,
  );
}

/** Undoes Content-Encoding, refusing output over `maxBytes` (413) and broken streams (400). */
export function decompress(body: Uint8Array, contentEncoding: string | undefined, maxBytes: number): Uint8Array {
  return undo(body, contentEncoding, maxBytes, SYNC);
}

/**
 * {@link decompress} on the libuv pool, for the main thread: the event loop never inflates. The same
 * answers and refusals.
 */
export function decompressAsync(
  body: Uint8Array,
  contentEncoding: string | undefined,
  maxBytes: number,
): Promise<Uint8Array> {
  return undo(body, contentEncoding, maxBytes, ASYNC);
}

/**
 * {@link decompressAsync} for a request in flight, in chunks (on the libuv pool), each of which
 * `hold` must take into the request budget as it is produced: a crowd of small bombs cannot inflate
 * past the budget at once. Over `maxBytes` the inflating stops (413). Once `hold` refuses a chunk,
 * what was inflated is dropped and the rest inflated without being kept, only to tell a body over
 * `maxBytes` (413, so a bomb is never retried) from one that fits but not now (503, Retry-After).
 * Resolves with the chunks (an identity body: itself).
 */
export function decompressHeld(
  body: Uint8Array,
  contentEncoding: string | undefined,
  maxBytes: number,
  hold: (bytes: number) => boolean,
): Promise<{ chunks: Uint8Array[]; size: number }> {
  const encoding = (contentEncoding ?? 'identity').trim().toLowerCase();
  if (encoding === 'identity' || encoding === '') return Promise.resolve({ chunks: [body], size: body.byteLength });
  const options = { chunkSize: HELD_CHUNK };
  const stream =
    encoding === 'gzip' || encoding === 'x-gzip'
      ? createGunzip(options)
      : encoding === 'deflate'
        ? zlibWrapped(body)
          ? createInflate(options)
          : createInflateRaw(options)
        : null;
  if (!stream) return Promise.reject(unsupportedEncoding(encoding));
  return new Promise((resolve, reject) => {
    const chunks: Uint8Array[] = [];
    let size = 0;
    let held = true;
    // A promise settles once: a late event after a refusal changes nothing.
    const settle = (fail: ApiError | null) => {
      if (fail) {
        chunks.length = 0;
        stream.destroy();
        reject(fail);
      } else resolve({ chunks, size });
    };
    stream.on('data', (chunk: Buffer) => {
      size += chunk.byteLength;
      if (size > maxBytes) return settle(tooLarge(maxBytes));
      if (held && hold(chunk.byteLength)) chunks.push(chunk);
      else {
        held = false;
        chunks.length = 0;
      }
    });
    stream.on('error', (e) => settle(badBody(`not valid ${encoding}: ${e.message}`)));
    stream.on('end', () => settle(held ? null : overloaded('Too many request bytes in flight; retry later')));
    stream.end(body);
  });
}

/** Output bytes per chunk of {@link decompressHeld}: what one step holds beyond the budget. */
const HELD_CHUNK = 64 * 1024;

/**
 * A zlib header (RFC 1950: deflate, a window of at most 32 KiB, a check that the two bytes are a
 * multiple of 31): HTTP "deflate" is zlib-wrapped, but some clients send raw deflate.
 */
function zlibWrapped(body: Uint8Array): boolean {
  const cmf = body[0] ?? 0;
  const flg = body[1] ?? 0;
  return (cmf & 0x0f) === 8 && cmf >> 4 <= 7 && ((cmf << 8) | flg) % 31 === 0;
}

type Inflate = (body: Uint8Array, options: ZlibOptions) => Uint8Array;
interface Inflaters<R> {
  gzip: (body: Uint8Array, options: ZlibOptions) => R;
  zlib: (body: Uint8Array, options: ZlibOptions) => R;
  raw: (body: Uint8Array, options: ZlibOptions) => R;
  /** Runs `first`; on an error, `onError` throws the refusal. */
  attempt: (first: () => R, onError: (e: unknown) => R) => R;
  done: (body: Uint8Array) => R;
}
const SYNC: Inflaters<Uint8Array> = {
  gzip: gunzipSync as Inflate,
  zlib: inflateSync as Inflate,
  raw: inflateRawSync as Inflate,
  attempt: (first, onError) => {
    try {
      return first();
    } catch (e) {
      return onError(e);
    }
  },
  done: (body) => body,
};
const ASYNC: Inflaters<Promise<Uint8Array>> = {
  gzip: promisify(gunzip) as (body: Uint8Array, options: ZlibOptions) => Promise<Uint8Array>,
  zlib: promisify(inflate) as (body: Uint8Array, options: ZlibOptions) => Promise<Uint8Array>,
  raw: promisify(inflateRaw) as (body: Uint8Array, options: ZlibOptions) => Promise<Uint8Array>,
  attempt: (first, onError) => first().catch(onError),
  done: (body) => Promise.resolve(body),
};

function undo<R>(body: Uint8Array, contentEncoding: string | undefined, maxBytes: number, z: Inflaters<R>): R {
  const encoding = (contentEncoding ?? 'identity').trim().toLowerCase();
  if (encoding === 'identity' || encoding === '') return z.done(body);
  const options = { maxOutputLength: maxBytes };
  const refuse = (e: unknown): never => {
    if (isTooLarge(e)) throw tooLarge(maxBytes);
    throw badBody(`not valid ${encoding}: ${(e as Error).message}`);
  };
  if (encoding === 'gzip' || encoding === 'x-gzip') return z.attempt(() => z.gzip(body, options), refuse);
  if (encoding === 'deflate') return z.attempt(() => (zlibWrapped(body) ? z.zlib : z.raw)(body, options), refuse);
  throw unsupportedEncoding(encoding);
}

function unsupportedEncoding(encoding: string): ApiError {
  return new ApiError(
    'unsupported_media_type',
    `Unsupported Content-Encoding "${encoding}" (gzip, deflate or identity)`,
  );
}

function tooLarge(maxBytes: number): ApiError {
  return new ApiError('payload_too_large', `Decompressed body exceeds ${maxBytes} bytes`, { limit: maxBytes });
}

/** The spec's body error: the generic message, and what was wrong in `details.body`. */
function badBody(why: string): ApiError {
  return new ApiError('invalid_request_body', undefined, { details: { body: why } });
}

function isTooLarge(e: unknown): boolean {
  return e instanceof RangeError || (e as NodeJS.ErrnoException).code === 'ERR_BUFFER_TOO_LARGE';
}

/**
 * The skeleton of a protobuf export (ids, times, events: protoCheck.ts), refused with the same 400
 * as {@link decodeRequest} exactly when decoding it would be.
 */
export function checkProtobufRequest(bytes: Uint8Array): ExportTraceServiceRequest {
  try {
    return checkTraceRequest(bytes);
  } catch (e) {
    throw badBody(`not a valid OTLP protobuf ExportTraceServiceRequest: ${(e as Error).message}`);
  }
}

/** Decodes the export request; a body that is not an OTLP trace export is 400. */
export function decodeRequest(bytes: Uint8Array, encoding: OtlpEncoding): ExportTraceServiceRequest {
  if (encoding === 'protobuf') {
    try {
      // Hand-written: several times faster than protobufjs, same output (tested;
      // native-bench/RESULTS.md, "decode and map").
      return decodeTraceRequest(bytes);
    } catch (e) {
      throw badBody(`not a valid OTLP protobuf ExportTraceServiceRequest: ${(e as Error).message}`);
    }
  }
  let parsed: unknown;
  try {
    // Half a surrogate pair becomes U+FFFD: stored as sent, it broke every later metadata query.
    parsed = parseMendedJson(Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('utf8'));
  } catch (e) {
    throw badBody(`not valid JSON: ${(e as Error).message}`);
  }
  return checkJsonShape(parsed);
}

/**
 * The outer shape of an OTLP/JSON export: an object with at most `resourceSpans`, an array of objects
 * each with `scopeSpans` arrays of objects with `spans` arrays. Deeper mistakes are the mapper's to
 * refuse span by span.
 */
function checkJsonShape(v: unknown): ExportTraceServiceRequest {
  const fail = (why: string): never => {
    throw badBody(`not an OTLP/JSON ExportTraceServiceRequest: ${why}`);
  };
  if (!isPlainObject(v)) return fail('expected an object');
  const extra = Object.keys(v).filter((k) => k !== 'resourceSpans' && k !== 'resource_spans');
  if (extra.length > 0) fail(`unexpected field "${extra[0]}"`);
  const resourceSpans = v.resourceSpans ?? v.resource_spans ?? [];
  if (!Array.isArray(resourceSpans)) return fail('resourceSpans must be an array');
  resourceSpans.forEach((rs, i) => {
    if (!isPlainObject(rs)) fail(`resourceSpans[${i}] must be an object`);
    const scopes = (rs as Record<string, unknown>).scopeSpans ?? [];
    if (!Array.isArray(scopes)) fail(`resourceSpans[${i}].scopeSpans must be an array`);
    (scopes as unknown[]).forEach((ss, j) => {
      if (!isPlainObject(ss)) fail(`resourceSpans[${i}].scopeSpans[${j}] must be an object`);
      const spans = (ss as Record<string, unknown>).spans ?? [];
      if (!Array.isArray(spans)) fail(`resourceSpans[${i}].scopeSpans[${j}].spans must be an array`);
    });
  });
  return { resourceSpans } as ExportTraceServiceRequest;
}

function isPlainObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}
