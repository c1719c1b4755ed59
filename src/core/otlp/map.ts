import type { SpanRecord, SpanStatus } from '../span.js';
import { asArray, emptyMap, flattenAttributes, isObject, type DropCounter, type JsonMap } from './attributes.js';
import { pushEventRows } from './events.js';
import { ERROR_LEVEL, firstText, LEVEL_KEY, serviceNameOf, STATUS_MESSAGE_KEYS } from './conventions.js';
import { spanFields, type CostFn } from './fields.js';
import { eventSpanId, IdReader, idToHex, isAbsentId, isValidId, SPAN_ID_BYTES, TRACE_ID_BYTES } from './ids.js';
import { toNanos } from './int64.js';
import { SpanRow } from './row.js';
import type { ExportTraceServiceRequest } from './wire.js';

/** Options of {@link mapExportRequest}. */
export interface MapOptions {
  /** Prices a generation from the price table; undefined when the model is unknown. */
  costOf?: CostFn;
  /** Spans of one trace accepted from one request; later ones are rejected. Unbounded by default. */
  maxSpansPerTrace?: number;
}

/** Rows mapped from one export request, and what was refused. */
export interface MapResult {
  /** Span rows, each followed by the EVENT rows of its events. */
  spans: SpanRecord[];
  /** OTel spans refused (OTLP `partialSuccess.rejectedSpans`); their events are not counted. */
  rejected: number;
  /** Why, for the first few refused spans (OTLP `partialSuccess.errorMessage`). */
  errors: string[];
  /** Attributes and nested values removed by the count and depth caps. */
  droppedAttributes: number;
}

/** Reasons kept in `errors`; the count in `rejected` stays exact. */
export const MAX_ERROR_MESSAGES = 10;

const STATUS_BY_CODE = new Map<string, SpanStatus>([
  ['1', 'OK'],
  ['2', 'ERROR'],
  ['status_code_ok', 'OK'],
  ['status_code_error', 'ERROR'],
  ['ok', 'OK'],
  ['error', 'ERROR'],
]);

/** Where spans of one `scopeSpans` come from; shared by all their rows. */
interface Origin {
  resource: JsonMap;
  serviceName: string | null;
  scope: SpanRecord['scope'];
}

interface Identity {
  traceId: string;
  spanId: string;
  parentId: string | null;
  startNs: bigint;
  endNs: bigint;
  /** Spans of one trace, and siblings, come together: their repeated ids are read once. */
  readonly traces: IdReader;
  readonly parents: IdReader;
}

/**
 * Maps a decoded OTLP trace export request (OTLP/JSON shape, see `wire.ts`) to span rows. Pure: no
 * I/O, no clock, and malformed input is refused span by span, never thrown. A span with a malformed
 * id or time, or beyond `maxSpansPerTrace` for its trace in this request, is rejected and counted
 * while the others still map.
 */
export function mapExportRequest(req: ExportTraceServiceRequest, opts: MapOptions = {}): MapResult {
  const result: MapResult = { spans: [], rejected: 0, errors: [], droppedAttributes: 0 };
  const counter: DropCounter = { dropped: 0 };
  // Set by the visits of each resource and scope, before their spans'.
  let resource: JsonMap = emptyMap();
  let serviceName: string | null = null;
  let origin: Origin = { resource, serviceName, scope: scopeOf(undefined) };
  walkSpans(req, opts.maxSpansPerTrace ?? Infinity, result, {
    resource(resourceSpans) {
      resource = flattenAttributes(isObject(resourceSpans.resource) ? resourceSpans.resource.attributes : [], counter);
      serviceName = serviceNameOf(resource);
    },
    scope(scopeSpans) {
      origin = { resource, serviceName, scope: scopeOf(scopeSpans.scope) };
    },
    span(span, id) {
      const row = spanRow(span, id, origin, counter, opts);
      result.spans.push(row);
      if (Array.isArray(span.events) && span.events.length > 0) pushEventRows(result.spans, row, span.events, counter);
    },
  });
  result.droppedAttributes = counter.dropped;
  return result;
}

/** The keys of the rows {@link mapExportRequest} would map, in its order: what admission judges. */
export interface RowKeys {
  /** Distinct trace ids; `traceOf[i]` is the index of row i's trace among them. */
  traceIds: string[];
  traceOf: number[];
  /** Per row: its span id (an EVENT row's is derived from its span's). */
  spanIds: string[];
  /** As in {@link MapResult}: spans refused, and why (the first few). */
  rejected: number;
  errors: string[];
}

/**
 * The trace and span ids of the rows {@link mapExportRequest} maps from `req`, with the same
 * refusals, without mapping anything else. It reads only ids, times and the number of events, so a
 * skeleton of the request (ingest/protoCheck.ts) gives the same keys as the decoded request.
 */
export function rowKeys(req: ExportTraceServiceRequest, opts: Pick<MapOptions, 'maxSpansPerTrace'> = {}): RowKeys {
  const keys: RowKeys = { traceIds: [], traceOf: [], spanIds: [], rejected: 0, errors: [] };
  const traceIndex = new Map<string, number>();
  walkSpans(req, opts.maxSpansPerTrace ?? Infinity, keys, {
    resource() {},
    scope() {},
    span(span, id) {
      let at = traceIndex.get(id.traceId);
      if (at === undefined) {
        at = keys.traceIds.length;
        traceIndex.set(id.traceId, at);
        keys.traceIds.push(id.traceId);
      }
      keys.traceOf.push(at);
      keys.spanIds.push(id.spanId);
      const events = asArray(span.events);
      for (let index = 0; index < events.length; index++) {
        if (!isObject(events[index])) continue;
        keys.traceOf.push(at);
        keys.spanIds.push(eventSpanId(id.spanId, index));
      }
    },
  });
  return keys;
}

/** What {@link walkSpans} tells its caller, in order. */
interface SpanVisitor {
  resource(resourceSpans: Record<string, unknown>): void;
  scope(scopeSpans: Record<string, unknown>): void;
  /** A span accepted, its ids and times in `id` (valid until the next call). */
  span(span: Record<string, unknown>, id: Identity): void;
}

/**
 * The spans of a request in mapping order, each identified, refused (counted in `refusals`) or
 * handed to `visit`: the one loop behind {@link mapExportRequest} and {@link rowKeys}, so the two
 * cannot disagree on which spans a request holds.
 */
function walkSpans(
  req: ExportTraceServiceRequest,
  maxPerTrace: number,
  refusals: { rejected: number; errors: string[] },
  visit: SpanVisitor,
): void {
  const perTrace = new Map<string, number>();
  // The message names the span's position; it is only built for the first few refusals.
  const reject = (r: number, s: number, i: number, reason: string): void => {
    refusals.rejected++;
    if (refusals.errors.length < MAX_ERROR_MESSAGES)
      refusals.errors.push(`resourceSpans[${r}].scopeSpans[${s}].spans[${i}]: ${reason}`);
  };
  // One identity object for the whole request: each span's ids and times are copied into its row.
  const id: Identity = {
    traceId: '',
    spanId: '',
    parentId: null,
    startNs: 0n,
    endNs: 0n,
    traces: new IdReader(),
    parents: new IdReader(),
  };

  const resourceSpansList = asArray(isObject(req) ? req.resourceSpans : undefined);
  for (let r = 0; r < resourceSpansList.length; r++) {
    const rs = resourceSpansList[r];
    const resourceSpans = isObject(rs) ? rs : {};
    visit.resource(resourceSpans);
    const scopeSpansList = asArray(resourceSpans.scopeSpans);
    for (let s = 0; s < scopeSpansList.length; s++) {
      const ss = scopeSpansList[s];
      const scopeSpans = isObject(ss) ? ss : {};
      visit.scope(scopeSpans);
      const spans = asArray(scopeSpans.spans);
      for (let i = 0; i < spans.length; i++) {
        const span = spans[i];
        if (!isObject(span)) {
          reject(r, s, i, 'not a span object');
          continue;
        }
        const invalid = identify(span, id);
        if (invalid !== undefined) {
          reject(r, s, i, invalid);
          continue;
        }
        const seen = perTrace.get(id.traceId) ?? 0;
        if (seen >= maxPerTrace) {
          reject(r, s, i, `trace ${id.traceId} is over ${maxPerTrace} spans`);
          continue;
        }
        perTrace.set(id.traceId, seen + 1);
        visit.span(span, id);
      }
    }
  }
}

function scopeOf(scope: unknown): SpanRecord['scope'] {
  const { name, version } = isObject(scope) ? scope : {};
  return {
    name: typeof name === 'string' && name !== '' ? name : null,
    version: typeof version === 'string' && version !== '' ? version : null,
  };
}

/** Reads the ids and times of a span into `id`; returns why they are unusable, if they are. */
function identify(span: Record<string, unknown>, id: Identity): string | undefined {
  const traceId = id.traces.read(span.traceId);
  if (traceId === undefined || !isValidId(traceId, TRACE_ID_BYTES)) return 'invalid trace id';
  const spanId = idToHex(span.spanId);
  if (spanId === undefined || !isValidId(spanId, SPAN_ID_BYTES)) return 'invalid span id';
  // A malformed parent is refused rather than read as "root": that would silently re-shape the tree.
  const parent = id.parents.read(span.parentSpanId);
  if (parent === undefined) return 'invalid parent span id';
  const absent = isAbsentId(parent);
  if (!absent && !isValidId(parent, SPAN_ID_BYTES)) return 'invalid parent span id';
  const startNs = toNanos(span.startTimeUnixNano);
  if (startNs === undefined) return 'invalid start time';
  // OTLP calls the start time required; absent, it reads as 0, and a span stored at 1970 would sit
  // outside every window, unreadable. Refused and said, so the sender can see it.
  if (startNs === 0n) return 'missing start time (startTimeUnixNano is 0 or absent)';
  const endNs = toNanos(span.endTimeUnixNano);
  if (endNs === undefined) return 'invalid end time';
  id.traceId = traceId;
  id.spanId = spanId;
  id.parentId = absent ? null : parent;
  id.startNs = startNs;
  // Clock skew between threads or hosts can put the end first; a negative duration helps no one.
  // biome-ignore lint/complexity/useMathMinMax: nanoseconds are bigints, which Math.max refuses
  id.endNs = endNs < startNs ? startNs : endNs;
  return undefined;
}

/** A span's status code as a row status: numbers (the protobuf enum) first, then names and text. */
function statusOf(code: unknown): SpanStatus {
  if (typeof code === 'number') return code === 1 ? 'OK' : code === 2 ? 'ERROR' : 'UNSET';
  return STATUS_BY_CODE.get(String(code).toLowerCase()) ?? 'UNSET';
}

/** The span's OTel status; an unset one is an error when its level says so (`LEVEL_KEY`). */
function spanStatus(sent: unknown, attrs: JsonMap): { code: SpanStatus; message: string | null } {
  const { code, message } = isObject(sent) ? sent : {};
  const given = { code: statusOf(code), message: typeof message === 'string' && message !== '' ? message : null };
  if (given.code !== 'UNSET' || attrs[LEVEL_KEY] !== ERROR_LEVEL) return given;
  return { code: 'ERROR', message: given.message ?? firstText(attrs, STATUS_MESSAGE_KEYS) };
}

function spanRow(
  span: Record<string, unknown>,
  id: Identity,
  origin: Origin,
  counter: DropCounter,
  opts: MapOptions,
): SpanRecord {
  const attrs = flattenAttributes(span.attributes, counter);
  const f = spanFields(attrs, counter, opts.costOf);
  const status = spanStatus(span.status, attrs);
  return new SpanRow(
    id.traceId, // traceId
    id.spanId, // spanId
    id.parentId, // parentId
    typeof span.name === 'string' ? span.name : '', // name
    f.model === null ? 'SPAN' : 'GENERATION', // type
    f.spanKind, // spanKind
    status.code, // status
    status.message, // statusMessage
    id.startNs, // startNs
    id.endNs, // endNs
    f.model, // model
    f.promptName, // promptName
    origin.serviceName, // serviceName
    f.inputTokens, // inputTokens
    f.outputTokens, // outputTokens
    f.cachedInputTokens, // cachedInputTokens
    f.tokens, // tokens
    f.cost, // cost
    f.input, // input
    f.output, // output
    f.sessionId, // sessionId
    f.userId, // userId
    f.runId, // runId
    f.tags, // tags
    f.metadata, // metadata
    f.graph, // graph
    f.attributes, // attributes
    origin.resource, // resource
    origin.scope, // scope
  );
}
