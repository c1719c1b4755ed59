import type { SpanRecord } from '../span.js';
import { asArray, emptyMap, flattenAttributes, isObject, type DropCounter } from './attributes.js';
import { eventSpanId } from './ids.js';
import { toNanos } from './int64.js';
import { SpanRow } from './row.js';

/**
 * One EVENT row per OTel span event, child of `span`. The row's id is derived from the span id and
 * the event's position, so a re-sent export yields the same rows. An event without a usable time
 * takes the span's start. Entries that are not objects are skipped without shifting the positions
 * of the others.
 */
export function eventRows(span: SpanRecord, events: unknown, counter: DropCounter): SpanRecord[] {
  const rows: SpanRecord[] = [];
  pushEventRows(rows, span, events, counter);
  return rows;
}

/** {@link eventRows}, appended to `rows`. */
export function pushEventRows(rows: SpanRecord[], span: SpanRecord, events: unknown, counter: DropCounter): void {
  const list = asArray(events);
  for (let index = 0; index < list.length; index++) {
    const event = list[index];
    if (isObject(event)) rows.push(eventRow(span, event, index, counter));
  }
}

function eventRow(span: SpanRecord, event: Record<string, unknown>, index: number, counter: DropCounter): SpanRecord {
  const time = toNanos(event.timeUnixNano);
  const at = time === undefined || time === 0n ? span.startNs : time;
  return new SpanRow(
    span.traceId, // traceId
    eventSpanId(span.spanId, index), // spanId
    span.spanId, // parentId
    typeof event.name === 'string' ? event.name : '', // name
    'EVENT', // type
    'function', // spanKind
    'UNSET', // status
    null, // statusMessage
    at, // startNs
    at, // endNs
    null, // model
    null, // promptName
    span.serviceName, // serviceName
    null, // inputTokens
    null, // outputTokens
    null, // cachedInputTokens
    null, // tokens
    null, // cost
    null, // input
    null, // output
    span.sessionId, // sessionId
    span.userId, // userId
    span.runId, // runId
    [], // tags
    flattenAttributes(event.attributes, counter), // metadata
    emptyMap(), // graph
    emptyMap(), // attributes
    span.resource, // resource
    span.scope, // scope
  );
}
