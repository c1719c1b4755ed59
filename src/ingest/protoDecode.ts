/**
 * A hand-written decoder for the OTLP trace export request (`ExportTraceServiceRequest`, the schema and
 * field numbers of `test/helpers/otlpProto.ts`), straight into the OTLP/JSON-shaped objects of `core/otlp/wire.ts`.
 *
 * It reproduces what `decodeExportRequest` (protobufjs 8: `decode` then `toObject` with
 * `{ longs: String, defaults: false }`) hands the mapper, field for field:
 *
 * - proto3 implicit presence: a scalar, string or bytes field holding its default ("" / empty bytes /
 *   0 / false) is absent, and a later default on the wire removes an earlier value; AnyValue members
 *   have presence, so `{ stringValue: "" }` and `{ intValue: "0" }` stay;
 * - AnyValue is a oneof: setting a member removes the one set before (last on the wire wins);
 * - a singular message field sent twice is merged (fields of the second overwrite, repeated fields
 *   append), repeated fields are absent when empty;
 * - 64-bit integers are decimal text: `fixed64` unsigned, `int64` signed (two's complement), exactly as
 *   long.js prints them; uint32 / int32 / fixed32 are numbers, doubles are numbers (NaN, ±Infinity, -0
 *   kept), bools are booleans;
 * - strings must be valid UTF-8 (protobufjs 8 verifies them); a byte-order mark is kept;
 * - bytes (ids, `bytesValue`) are `Uint8Array`s.
 *
 * Decisions:
 * - Bytes are copied, never views of the input: protobufjs returns views (`Buffer#slice`), so a decoded
 *   request would change under the caller if the body buffer were reused (pooled). Copying 8/16-byte
 *   ids is cheap and makes the result independent of the input. (Tests compare bytes by value.)
 * - Depth: like protobufjs (and protoc's default recursion limit), a message nested more than 100
 *   messages below the request is refused, so exactly the inputs protobufjs refuses are refused. An
 *   attribute's AnyValue sits 4–6 messages down, each ArrayValue level adds 2 (ArrayValue, AnyValue) and
 *   each KeyValueList level 3 (KeyValueList, KeyValue, AnyValue): a span attribute nests at most 47
 *   arrays or 31 kvlists, well under 64, and recursion never goes deeper than 101 calls.
 * - Attribute keys are read through a small cache of recent keys (see `readKey`), so a key that
 *   repeats from span to span is one string: less to decode and allocate, and the mapper's lookups by
 *   that key reuse its hash.
 * - Malformed input throws an Error (the caller answers 400): truncated varints or fields, a length past
 *   the end of the enclosing message, a varint over 10 bytes, field number 0, invalid UTF-8, and wire
 *   types 3, 4, 6 and 7. Groups (3/4) are refused even in unknown fields, where protobufjs would skip
 *   them: OTLP has none and no current encoder writes them. Unknown fields of the other wire types, and
 *   known fields sent with the wrong wire type, are skipped (as protobufjs does).
 */
import type {
  AnyValue,
  ArrayValue,
  ExportTraceServiceRequest,
  InstrumentationScope,
  KeyValue,
  KeyValueList,
  Resource,
  ResourceSpans,
  ScopeSpans,
  Span,
  SpanEvent,
  SpanLink,
  Status,
} from '../core/otlp/wire.js';
import {
  Reader,
  readBool,
  readBytes,
  readDouble,
  readEnd,
  readFixed32,
  readFixed64,
  readInt64,
  readKey,
  readString,
  readTag,
  readUint32,
  skipField,
} from './protoReader.js';

/** Messages may nest this deep below the request (protobufjs' and protoc's recursion limit). */
export const MAX_MESSAGE_DEPTH = 100;

/**
 * Decodes an OTLP/HTTP protobuf trace export body. The result has the shape `decodeExportRequest`
 * returns (see the module comment) and shares no memory with `bytes`. Throws an Error on malformed input.
 */
export function decodeTraceRequest(bytes: Uint8Array): ExportTraceServiceRequest {
  const r = new Reader(bytes);
  const request: ExportTraceServiceRequest = {};
  const end = bytes.length;
  while (r.pos < end) {
    const t = readTag(r, end);
    if (t === 10 /* resourceSpans = 1, LEN */)
      (request.resourceSpans ??= []).push(decodeResourceSpans(r, readEnd(r, end), 1));
    else skipField(r, t, end);
  }
  return request;
}

// ---------------------------------------------------------------------------------------------------
// Messages. Each reads fields until `end` (the end of its bytes, already bounds-checked) and returns the
// message; `depth` is its nesting level below the request, `into` a message of the same field to merge.

function decodeResourceSpans(r: Reader, end: number, depth: number): ResourceSpans {
  const m: ResourceSpans = {};
  while (r.pos < end) {
    const t = readTag(r, end);
    switch (t) {
      case 10 /* resource = 1, LEN */:
        m.resource = decodeResource(r, readEnd(r, end), depth + 1, m.resource);
        break;
      case 18 /* scopeSpans = 2, LEN */:
        (m.scopeSpans ??= []).push(decodeScopeSpans(r, readEnd(r, end), depth + 1));
        break;
      case 26 /* schemaUrl = 3, LEN */:
        {
          const s = readString(r, end);
          if (s !== '') m.schemaUrl = s;
          else delete m.schemaUrl;
          break;
        }
      default:
        skipField(r, t, end);
    }
  }
  return m;
}

function decodeResource(r: Reader, end: number, depth: number, into: Resource | null | undefined): Resource {
  const m: Resource = into ?? {};
  while (r.pos < end) {
    const t = readTag(r, end);
    switch (t) {
      case 10 /* attributes = 1, LEN */:
        (m.attributes ??= []).push(decodeKeyValue(r, readEnd(r, end), depth + 1, undefined));
        break;
      case 16 /* droppedAttributesCount = 2, VARINT */:
        {
          const n = readUint32(r, end);
          if (n !== 0) m.droppedAttributesCount = n;
          else delete m.droppedAttributesCount;
          break;
        }
      default:
        skipField(r, t, end);
    }
  }
  return m;
}

function decodeScopeSpans(r: Reader, end: number, depth: number): ScopeSpans {
  const m: ScopeSpans = {};
  while (r.pos < end) {
    const t = readTag(r, end);
    switch (t) {
      case 10 /* scope = 1, LEN */:
        m.scope = decodeScope(r, readEnd(r, end), depth + 1, m.scope);
        break;
      case 18 /* spans = 2, LEN */:
        (m.spans ??= []).push(decodeSpan(r, readEnd(r, end), depth + 1));
        break;
      case 26 /* schemaUrl = 3, LEN */:
        {
          const s = readString(r, end);
          if (s !== '') m.schemaUrl = s;
          else delete m.schemaUrl;
          break;
        }
      default:
        skipField(r, t, end);
    }
  }
  return m;
}

function decodeScope(
  r: Reader,
  end: number,
  depth: number,
  into: InstrumentationScope | null | undefined,
): InstrumentationScope {
  const m: InstrumentationScope = into ?? {};
  while (r.pos < end) {
    const t = readTag(r, end);
    switch (t) {
      case 10 /* name = 1, LEN */:
        {
          const s = readString(r, end);
          if (s !== '') m.name = s;
          else delete m.name;
          break;
        }
      case 18 /* version = 2, LEN */:
        {
          const s = readString(r, end);
          if (s !== '') m.version = s;
          else delete m.version;
          break;
        }
      case 26 /* attributes = 3, LEN */:
        (m.attributes ??= []).push(decodeKeyValue(r, readEnd(r, end), depth + 1, undefined));
        break;
      case 32 /* droppedAttributesCount = 4, VARINT */:
        {
          const n = readUint32(r, end);
          if (n !== 0) m.droppedAttributesCount = n;
          else delete m.droppedAttributesCount;
          break;
        }
      default:
        skipField(r, t, end);
    }
  }
  return m;
}

function decodeSpan(r: Reader, end: number, depth: number): Span {
  const m: Span = {};
  while (r.pos < end) {
    const t = readTag(r, end);
    switch (t) {
      case 10 /* traceId = 1, LEN */:
        {
          const b = readBytes(r, end);
          if (b.length !== 0) m.traceId = b;
          else delete m.traceId;
          break;
        }
      case 18 /* spanId = 2, LEN */:
        {
          const b = readBytes(r, end);
          if (b.length !== 0) m.spanId = b;
          else delete m.spanId;
          break;
        }
      case 26 /* traceState = 3, LEN */:
        {
          const s = readString(r, end);
          if (s !== '') m.traceState = s;
          else delete m.traceState;
          break;
        }
      case 34 /* parentSpanId = 4, LEN */:
        {
          const b = readBytes(r, end);
          if (b.length !== 0) m.parentSpanId = b;
          else delete m.parentSpanId;
          break;
        }
      case 42 /* name = 5, LEN */:
        {
          const s = readString(r, end);
          if (s !== '') m.name = s;
          else delete m.name;
          break;
        }
      case 48 /* kind = 6, VARINT */:
        {
          const n = readUint32(r, end) | 0;
          if (n !== 0) m.kind = n;
          else delete m.kind;
          break;
        }
      case 57 /* startTimeUnixNano = 7, FIXED64 */:
        {
          const s = readFixed64(r, end);
          if (s !== '0') m.startTimeUnixNano = s;
          else delete m.startTimeUnixNano;
          break;
        }
      case 65 /* endTimeUnixNano = 8, FIXED64 */:
        {
          const s = readFixed64(r, end);
          if (s !== '0') m.endTimeUnixNano = s;
          else delete m.endTimeUnixNano;
          break;
        }
      case 74 /* attributes = 9, LEN */:
        (m.attributes ??= []).push(decodeKeyValue(r, readEnd(r, end), depth + 1, undefined));
        break;
      case 80 /* droppedAttributesCount = 10, VARINT */:
        {
          const n = readUint32(r, end);
          if (n !== 0) m.droppedAttributesCount = n;
          else delete m.droppedAttributesCount;
          break;
        }
      case 90 /* events = 11, LEN */:
        (m.events ??= []).push(decodeEvent(r, readEnd(r, end), depth + 1));
        break;
      case 96 /* droppedEventsCount = 12, VARINT */:
        {
          const n = readUint32(r, end);
          if (n !== 0) m.droppedEventsCount = n;
          else delete m.droppedEventsCount;
          break;
        }
      case 106 /* links = 13, LEN */:
        (m.links ??= []).push(decodeLink(r, readEnd(r, end), depth + 1));
        break;
      case 112 /* droppedLinksCount = 14, VARINT */:
        {
          const n = readUint32(r, end);
          if (n !== 0) m.droppedLinksCount = n;
          else delete m.droppedLinksCount;
          break;
        }
      case 122 /* status = 15, LEN */:
        m.status = decodeStatus(r, readEnd(r, end), m.status);
        break;
      case 133 /* flags = 16, FIXED32 */:
        {
          const n = readFixed32(r, end);
          if (n !== 0) m.flags = n;
          else delete m.flags;
          break;
        }
      default:
        skipField(r, t, end);
    }
  }
  return m;
}

function decodeEvent(r: Reader, end: number, depth: number): SpanEvent {
  const m: SpanEvent = {};
  while (r.pos < end) {
    const t = readTag(r, end);
    switch (t) {
      case 9 /* timeUnixNano = 1, FIXED64 */:
        {
          const s = readFixed64(r, end);
          if (s !== '0') m.timeUnixNano = s;
          else delete m.timeUnixNano;
          break;
        }
      case 18 /* name = 2, LEN */:
        {
          const s = readString(r, end);
          if (s !== '') m.name = s;
          else delete m.name;
          break;
        }
      case 26 /* attributes = 3, LEN */:
        (m.attributes ??= []).push(decodeKeyValue(r, readEnd(r, end), depth + 1, undefined));
        break;
      case 32 /* droppedAttributesCount = 4, VARINT */:
        {
          const n = readUint32(r, end);
          if (n !== 0) m.droppedAttributesCount = n;
          else delete m.droppedAttributesCount;
          break;
        }
      default:
        skipField(r, t, end);
    }
  }
  return m;
}

function decodeLink(r: Reader, end: number, depth: number): SpanLink {
  const m: SpanLink = {};
  while (r.pos < end) {
    const t = readTag(r, end);
    switch (t) {
      case 10 /* traceId = 1, LEN */:
        {
          const b = readBytes(r, end);
          if (b.length !== 0) m.traceId = b;
          else delete m.traceId;
          break;
        }
      case 18 /* spanId = 2, LEN */:
        {
          const b = readBytes(r, end);
          if (b.length !== 0) m.spanId = b;
          else delete m.spanId;
          break;
        }
      case 26 /* traceState = 3, LEN */:
        {
          const s = readString(r, end);
          if (s !== '') m.traceState = s;
          else delete m.traceState;
          break;
        }
      case 34 /* attributes = 4, LEN */:
        (m.attributes ??= []).push(decodeKeyValue(r, readEnd(r, end), depth + 1, undefined));
        break;
      case 40 /* droppedAttributesCount = 5, VARINT */:
        {
          const n = readUint32(r, end);
          if (n !== 0) m.droppedAttributesCount = n;
          else delete m.droppedAttributesCount;
          break;
        }
      case 53 /* flags = 6, FIXED32 */:
        {
          const n = readFixed32(r, end);
          if (n !== 0) m.flags = n;
          else delete m.flags;
          break;
        }
      default:
        skipField(r, t, end);
    }
  }
  return m;
}

function decodeStatus(r: Reader, end: number, into: Status | null | undefined): Status {
  const m: Status = into ?? {};
  while (r.pos < end) {
    const t = readTag(r, end);
    switch (t) {
      case 18 /* message = 2, LEN */:
        {
          const s = readString(r, end);
          if (s !== '') m.message = s;
          else delete m.message;
          break;
        }
      case 24 /* code = 3, VARINT */:
        {
          const n = readUint32(r, end) | 0;
          if (n !== 0) m.code = n;
          else delete m.code;
          break;
        }
      default:
        skipField(r, t, end);
    }
  }
  return m;
}

function decodeKeyValue(r: Reader, end: number, depth: number, into: KeyValue | null | undefined): KeyValue {
  checkDepth(depth);
  const m: KeyValue = into ?? {};
  while (r.pos < end) {
    const t = readTag(r, end);
    switch (t) {
      case 10 /* key = 1, LEN */:
        {
          const s = readKey(r, end);
          if (s !== '') m.key = s;
          else delete m.key;
          break;
        }
      case 18 /* value = 2, LEN */:
        m.value = decodeAnyValue(r, readEnd(r, end), depth + 1, m.value);
        break;
      default:
        skipField(r, t, end);
    }
  }
  return m;
}

type AnyValueMember = keyof AnyValue;
const ANY_VALUE_MEMBERS: readonly AnyValueMember[] = [
  'stringValue',
  'boolValue',
  'intValue',
  'doubleValue',
  'arrayValue',
  'kvlistValue',
  'bytesValue',
];

/** The oneof: `set` is the member present so far; setting another one removes it (last one wins). */
function decodeAnyValue(r: Reader, end: number, depth: number, into: AnyValue | null | undefined): AnyValue {
  checkDepth(depth);
  const m: AnyValue = into ?? {};
  let set = into ? ANY_VALUE_MEMBERS.find((k) => m[k] != null) : undefined;
  while (r.pos < end) {
    const t = readTag(r, end);
    switch (t) {
      case 10 /* stringValue = 1, LEN */:
        m.stringValue = readString(r, end);
        set = only(m, set, 'stringValue');
        break;
      case 16 /* boolValue = 2, VARINT */:
        m.boolValue = readBool(r, end);
        set = only(m, set, 'boolValue');
        break;
      case 24 /* intValue = 3, VARINT */:
        m.intValue = readInt64(r, end);
        set = only(m, set, 'intValue');
        break;
      case 33 /* doubleValue = 4, FIXED64 */:
        m.doubleValue = readDouble(r, end);
        set = only(m, set, 'doubleValue');
        break;
      case 42 /* arrayValue = 5, LEN */:
        m.arrayValue = decodeArrayValue(r, readEnd(r, end), depth + 1, m.arrayValue);
        set = only(m, set, 'arrayValue');
        break;
      case 50 /* kvlistValue = 6, LEN */:
        m.kvlistValue = decodeKeyValueList(r, readEnd(r, end), depth + 1, m.kvlistValue);
        set = only(m, set, 'kvlistValue');
        break;
      case 58 /* bytesValue = 7, LEN */:
        m.bytesValue = readBytes(r, end);
        set = only(m, set, 'bytesValue');
        break;
      default:
        skipField(r, t, end);
    }
  }
  return m;
}

/** Removes the member set before `member`, if another one; returns `member`. */
function only(m: AnyValue, set: AnyValueMember | undefined, member: AnyValueMember): AnyValueMember {
  if (set !== undefined && set !== member) delete m[set];
  return member;
}

function decodeArrayValue(r: Reader, end: number, depth: number, into: ArrayValue | null | undefined): ArrayValue {
  checkDepth(depth);
  const m: ArrayValue = into ?? {};
  while (r.pos < end) {
    const t = readTag(r, end);
    if (t === 10 /* values = 1, LEN */)
      (m.values ??= []).push(decodeAnyValue(r, readEnd(r, end), depth + 1, undefined));
    else skipField(r, t, end);
  }
  return m;
}

function decodeKeyValueList(
  r: Reader,
  end: number,
  depth: number,
  into: KeyValueList | null | undefined,
): KeyValueList {
  checkDepth(depth);
  const m: KeyValueList = into ?? {};
  while (r.pos < end) {
    const t = readTag(r, end);
    if (t === 10 /* values = 1, LEN */)
      (m.values ??= []).push(decodeKeyValue(r, readEnd(r, end), depth + 1, undefined));
    else skipField(r, t, end);
  }
  return m;
}

function checkDepth(depth: number): void {
  if (depth > MAX_MESSAGE_DEPTH) throw new Error(`messages nested deeper than ${MAX_MESSAGE_DEPTH}`);
}
