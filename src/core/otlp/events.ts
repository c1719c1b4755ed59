import type { SpanRecord } from '../span.js';
import { asArray, emptyMap, flattenAttributes, isObject, type DropCounter } from './attributes.js';
import { eventSpanId } from './ids.js';
import { toNanos } from './int64.js';

/**
 * One EVENT row per OTel span event, child of `span`. The row's id is derived from the span id and
 * the event's position, so a re-sent export yields the same rows. An event without a usable time
 * takes the span's start. Entries that are not objects are skipped without shifting the positions
 * of the others.
 */
export function eventRows(span: SpanRecord, events: unknown, counter: DropCounter): SpanRecord[] {
  const rows: SpanRecord[] = [];
  asArray(events).forEach((event, index) => {
    if (isObject(event)) rows.push(eventRow(span, event, index, counter));
  });
  return rows;
}

function eventRow(span: SpanRecord, event: Record<string, unknown>, index: number, counter: DropCounter): SpanRecord {
  const time = toNanos(event.timeUnixNano);
  const at = time === undefined || time === 0n ? span.startNs : time;
  return {
    traceId: span.traceId,
    spanId: eventSpanId(span.spanId, index),
    parentId: span.spanId,
    name: typeof event.name === 'string' ? event.name : '',
    type: 'EVENT',
    spanKind: 'function',
    status: 'UNSET',
    statusMessage: null,
    startNs: at,
    endNs: at,
    model: null,
    promptName: null,
    serviceName: span.serviceName,
    inputTokens: null,
    outputTokens: null,
    cachedInputTokens: null,
    tokens: null,
    cost: null,
    input: null,
    output: null,
    sessionId: span.sessionId,
    userId: span.userId,
    runId: span.runId,
    tags: [],
    metadata: flattenAttributes(event.attributes, counter),
    graph: emptyMap(),
    attributes: emptyMap(),
    resource: span.resource,
    scope: span.scope,
  };
}
