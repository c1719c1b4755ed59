/**
 * A `POST /v1/workers/leases/{id}/events` body → the batch the store inserts, on a compute thread.
 * The body is checked as the router checks a JSON body (contract/checked.ts), then each agent event
 * is stamped and checked against the session contract, fields it does not know dropped; an event
 * the contract refuses is kept as an output line (its JSON as sent, cut at 64 KiB), so nothing a
 * worker reports is lost. On the HTTP thread a batch of 1,000 agent events (the contract's most)
 * held every other request up; here the HTTP thread hands over bytes and gets one text back
 * (native-bench/RESULTS.md, "Figures behind the code").
 */
import { pruneAgentEvent, validateWorkerEventsBody, type WorkerEventInput } from '../contract/workers.js';
import type { AgentEvent } from '../core/agents/session.js';
import { cutText } from '../core/text.js';
import { checkedBody } from '../contract/checked.js';

/** What the store reads of each event (`appendEvents`: one JSON text, not a list per column). */
export interface StoredEventRow {
  seq: number;
  at_ms: number;
  kind: WorkerEventInput['kind'];
  text: string | null;
  level: 'info' | 'error' | null;
  /** JSON text of a stamped, checked agent event. */
  event: string | null;
}

/** The events of a body, as one JSON text of `StoredEventRow`s. */
export interface PreparedWorkerEvents {
  batch: string;
}

/** Throws the router's 400 (ApiError) for a body that is not a `WorkerEventsBody`. */
export function prepareWorkerEvents(raw: Uint8Array | null, contentType: string | undefined): PreparedWorkerEvents {
  const { events } = checkedBody(raw, contentType, validateWorkerEventsBody);
  return { batch: JSON.stringify(events.map(storedRow)) };
}

function storedRow(e: WorkerEventInput): StoredEventRow {
  const atMs = Date.parse(e.at);
  if (e.kind !== 'agent')
    return {
      seq: e.seq,
      at_ms: atMs,
      kind: e.kind,
      text: e.text ?? '',
      level: e.kind === 'step' ? (e.level ?? 'info') : null,
      event: null,
    };
  const raw = e.event ?? {};
  const stamped = {
    ...raw,
    id: typeof raw.id === 'string' && raw.id !== '' ? raw.id : `e${e.seq}`,
    parentId: raw.parentId ?? null,
    timestamp: typeof raw.timestamp === 'string' ? raw.timestamp : e.at,
  };
  const checked = pruneAgentEvent(stamped as unknown as AgentEvent);
  if (checked.success)
    return { seq: e.seq, at_ms: atMs, kind: 'agent', text: null, level: null, event: JSON.stringify(checked.data) };
  return {
    seq: e.seq,
    at_ms: atMs,
    kind: 'stdout',
    text: cutText(JSON.stringify(raw), 65536),
    level: null,
    event: null,
  };
}
