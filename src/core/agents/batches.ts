/**
 * Sessions into sync requests of bounded size: at most `maxSessions` sessions and about `maxBytes`
 * of JSON each, a session travelling with the blobs it names (a blob is sent once per request). A
 * session larger than the bound on its own goes alone.
 */
import type { AgentBlob, AgentSession } from './session.js';

export interface SyncItem {
  session: AgentSession;
  blobs: AgentBlob[];
}

export interface SyncBatch {
  sessions: AgentSession[];
  blobs: AgentBlob[];
  /** Size of the request body, near enough (JSON of the parts). */
  bytes: number;
}

export function batchesOf(items: readonly SyncItem[], maxBytes: number, maxSessions: number): SyncBatch[] {
  const out: SyncBatch[] = [];
  let current: SyncBatch = { sessions: [], blobs: [], bytes: ENVELOPE };
  let shas = new Set<string>();
  for (const item of items) {
    const fresh = item.blobs.filter((b) => !shas.has(b.sha256));
    const size = jsonBytes(item.session) + fresh.reduce((n, b) => n + jsonBytes(b), 0);
    if (current.sessions.length > 0 && (current.sessions.length >= maxSessions || current.bytes + size > maxBytes)) {
      out.push(current);
      current = { sessions: [], blobs: [], bytes: ENVELOPE };
      shas = new Set();
    }
    for (const b of item.blobs) {
      if (shas.has(b.sha256)) continue;
      shas.add(b.sha256);
      current.blobs.push(b);
      current.bytes += jsonBytes(b);
    }
    current.sessions.push(item.session);
    current.bytes += jsonBytes(item.session);
  }
  if (current.sessions.length > 0) out.push(current);
  return out;
}

/** `{"schemaVersion":1,"sessions":[],"blobs":[]}` and separators, roughly. */
const ENVELOPE = 64;

function jsonBytes(v: unknown): number {
  return Buffer.byteLength(JSON.stringify(v), 'utf8') + 1;
}
