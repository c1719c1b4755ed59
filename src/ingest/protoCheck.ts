/**
 * Checks an OTLP/HTTP protobuf trace export body without decoding it, for the main thread: the
 * ingest log takes a body only once it is known to decode, and admission needs each span's ids
 * before the answer (docs/architecture.md, "Ingestion": the answer comes from the log, the decoding after it).
 *
 * The check accepts exactly the bodies `decodeTraceRequest` (protoDecode.ts) accepts: the same wire
 * rules (tags, varints of at most 10 bytes where the decoder reads them, lengths within their
 * message, wire types 3, 4, 6 and 7 refused everywhere, unknown fields and known fields of another
 * wire type skipped), strings strictly UTF-8, and the same depth limit. Of each span it keeps what
 * the mapper's identification reads (`rowKeys` in core/otlp/map.ts): the ids (views of the body),
 * the times (as bigints, which the mapper reads as it reads the decoder's decimal text), and how
 * many events the span has. Everything else is checked and left.
 *
 * Cheaper than decoding: the check makes no strings and copies no bytes.
 */
import type { ExportTraceServiceRequest, ResourceSpans, ScopeSpans, Span, SpanEvent } from '../core/otlp/wire.js';
import { MAX_MESSAGE_DEPTH } from './protoDecode.js';
import {
  Reader,
  readBool,
  readEnd,
  readFixed32,
  readFixed64Big,
  readTag,
  readUint32,
  skipField,
  skipFixed64,
  skipString,
  skipVarint64,
  viewBytes,
} from './protoReader.js';

/** What the skeleton's spans carry in `events`: the mapper counts them, and reads nothing of them. */
const EVENT: SpanEvent = Object.freeze({});

/**
 * Checks an export body; returns its skeleton (resource spans → scope spans → spans with ids, times
 * and events only). Ids are views into `bytes`: read them before the body is reused. Throws an Error
 * on exactly the inputs `decodeTraceRequest` throws on.
 */
export function checkTraceRequest(bytes: Uint8Array): ExportTraceServiceRequest {
  const r = new Reader(bytes);
  const request: ExportTraceServiceRequest = {};
  const end = bytes.length;
  while (r.pos < end) {
    const t = readTag(r, end);
    if (t === 10 /* resourceSpans = 1 */)
      (request.resourceSpans ??= []).push(checkResourceSpans(r, readEnd(r, end), 1));
    else skipField(r, t, end);
  }
  return request;
}

function checkResourceSpans(r: Reader, end: number, depth: number): ResourceSpans {
  const m: ResourceSpans = {};
  while (r.pos < end) {
    const t = readTag(r, end);
    if (t === 10 /* resource = 1 */) checkResource(r, readEnd(r, end), depth + 1);
    else if (t === 18 /* scopeSpans = 2 */) (m.scopeSpans ??= []).push(checkScopeSpans(r, readEnd(r, end), depth + 1));
    else if (t === 26 /* schemaUrl = 3 */) skipString(r, end);
    else skipField(r, t, end);
  }
  return m;
}

function checkScopeSpans(r: Reader, end: number, depth: number): ScopeSpans {
  const m: ScopeSpans = {};
  while (r.pos < end) {
    const t = readTag(r, end);
    if (t === 10 /* scope = 1 */) checkScope(r, readEnd(r, end), depth + 1);
    else if (t === 18 /* spans = 2 */) (m.spans ??= []).push(checkSpan(r, readEnd(r, end), depth + 1));
    else if (t === 26 /* schemaUrl = 3 */) skipString(r, end);
    else skipField(r, t, end);
  }
  return m;
}

function checkScope(r: Reader, end: number, depth: number): void {
  while (r.pos < end) {
    const t = readTag(r, end);
    if (t === 10 /* name = 1 */ || t === 18 /* version = 2 */) skipString(r, end);
    else if (t === 26 /* attributes = 3 */) checkKeyValue(r, readEnd(r, end), depth + 1);
    else if (t === 32 /* droppedAttributesCount = 4 */) readUint32(r, end);
    else skipField(r, t, end);
  }
}

function checkResource(r: Reader, end: number, depth: number): void {
  while (r.pos < end) {
    const t = readTag(r, end);
    if (t === 10 /* attributes = 1 */) checkKeyValue(r, readEnd(r, end), depth + 1);
    else if (t === 16 /* droppedAttributesCount = 2 */) readUint32(r, end);
    else skipField(r, t, end);
  }
}

function checkSpan(r: Reader, end: number, depth: number): Span {
  const m: Span = {};
  while (r.pos < end) {
    const t = readTag(r, end);
    switch (t) {
      case 10 /* traceId = 1 */:
        {
          const b = viewBytes(r, end);
          if (b.length !== 0) m.traceId = b;
          else delete m.traceId;
          break;
        }
      case 18 /* spanId = 2 */:
        {
          const b = viewBytes(r, end);
          if (b.length !== 0) m.spanId = b;
          else delete m.spanId;
          break;
        }
      case 34 /* parentSpanId = 4 */:
        {
          const b = viewBytes(r, end);
          if (b.length !== 0) m.parentSpanId = b;
          else delete m.parentSpanId;
          break;
        }
      case 57 /* startTimeUnixNano = 7 */:
        {
          const n = readFixed64Big(r, end);
          if (n !== 0n) m.startTimeUnixNano = n;
          else delete m.startTimeUnixNano;
          break;
        }
      case 65 /* endTimeUnixNano = 8 */:
        {
          const n = readFixed64Big(r, end);
          if (n !== 0n) m.endTimeUnixNano = n;
          else delete m.endTimeUnixNano;
          break;
        }
      case 26 /* traceState = 3 */:
      case 42 /* name = 5 */:
        skipString(r, end);
        break;
      case 48 /* kind = 6 */:
      case 80 /* droppedAttributesCount = 10 */:
      case 96 /* droppedEventsCount = 12 */:
      case 112 /* droppedLinksCount = 14 */:
        readUint32(r, end);
        break;
      case 74 /* attributes = 9 */:
        checkKeyValue(r, readEnd(r, end), depth + 1);
        break;
      case 90 /* events = 11 */:
        checkEvent(r, readEnd(r, end), depth + 1);
        (m.events ??= []).push(EVENT);
        break;
      case 106 /* links = 13 */:
        checkLink(r, readEnd(r, end), depth + 1);
        break;
      case 122 /* status = 15 */:
        checkStatus(r, readEnd(r, end));
        break;
      case 133 /* flags = 16 */:
        readFixed32(r, end);
        break;
      default:
        skipField(r, t, end);
    }
  }
  return m;
}

function checkEvent(r: Reader, end: number, depth: number): void {
  while (r.pos < end) {
    const t = readTag(r, end);
    if (t === 9 /* timeUnixNano = 1 */) skipFixed64(r, end);
    else if (t === 18 /* name = 2 */) skipString(r, end);
    else if (t === 26 /* attributes = 3 */) checkKeyValue(r, readEnd(r, end), depth + 1);
    else if (t === 32 /* droppedAttributesCount = 4 */) readUint32(r, end);
    else skipField(r, t, end);
  }
}

function checkLink(r: Reader, end: number, depth: number): void {
  while (r.pos < end) {
    const t = readTag(r, end);
    if (t === 10 /* traceId = 1 */ || t === 18 /* spanId = 2 */) r.pos = readEnd(r, end);
    else if (t === 26 /* traceState = 3 */) skipString(r, end);
    else if (t === 34 /* attributes = 4 */) checkKeyValue(r, readEnd(r, end), depth + 1);
    else if (t === 40 /* droppedAttributesCount = 5 */) readUint32(r, end);
    else if (t === 53 /* flags = 6 */) readFixed32(r, end);
    else skipField(r, t, end);
  }
}

function checkStatus(r: Reader, end: number): void {
  while (r.pos < end) {
    const t = readTag(r, end);
    if (t === 18 /* message = 2 */) skipString(r, end);
    else if (t === 24 /* code = 3 */) readUint32(r, end);
    else skipField(r, t, end);
  }
}

function checkKeyValue(r: Reader, end: number, depth: number): void {
  checkDepth(depth);
  while (r.pos < end) {
    const t = readTag(r, end);
    if (t === 10 /* key = 1 */) skipString(r, end);
    else if (t === 18 /* value = 2 */) checkAnyValue(r, readEnd(r, end), depth + 1);
    else skipField(r, t, end);
  }
}

function checkAnyValue(r: Reader, end: number, depth: number): void {
  checkDepth(depth);
  while (r.pos < end) {
    const t = readTag(r, end);
    switch (t) {
      case 10 /* stringValue = 1 */:
        skipString(r, end);
        break;
      case 16 /* boolValue = 2 */:
        readBool(r, end);
        break;
      case 24 /* intValue = 3 */:
        skipVarint64(r, end);
        break;
      case 33 /* doubleValue = 4 */:
        skipFixed64(r, end);
        break;
      case 42 /* arrayValue = 5 */:
        checkList(r, readEnd(r, end), depth + 1, checkAnyValue);
        break;
      case 50 /* kvlistValue = 6 */:
        checkList(r, readEnd(r, end), depth + 1, checkKeyValue);
        break;
      case 58 /* bytesValue = 7 */:
        r.pos = readEnd(r, end);
        break;
      default:
        skipField(r, t, end);
    }
  }
}

/** ArrayValue and KeyValueList: `values = 1`, repeated, of `item`. */
function checkList(r: Reader, end: number, depth: number, item: (r: Reader, end: number, depth: number) => void): void {
  checkDepth(depth);
  while (r.pos < end) {
    const t = readTag(r, end);
    if (t === 10 /* values = 1 */) item(r, readEnd(r, end), depth + 1);
    else skipField(r, t, end);
  }
}

function checkDepth(depth: number): void {
  if (depth > MAX_MESSAGE_DEPTH) throw new Error(`messages nested deeper than ${MAX_MESSAGE_DEPTH}`);
}
