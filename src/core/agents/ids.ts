/**
 * Trace and span ids of agent sessions, derived from what names a session and its events: the same
 * transcript read twice — or read again after it grew — gives the same ids, so a re-sync is
 * recognised span by span (ingest admission and the store's known spans) and nothing is stored twice.
 * node:crypto is used for SHA-256 only.
 */
import { createHash } from 'node:crypto';

export interface SessionKey {
  tenantId: string;
  appId: string;
  agent: string;
  sessionId: string;
}

function digest(parts: readonly string[]): string {
  const h = createHash('sha256');
  // NUL cannot occur in the JSON strings these come from unescaped; it separates unambiguously.
  for (const p of parts) h.update(p).update('\u0000');
  return h.digest('hex');
}

/** 32 lowercase hex characters; never all zeros (an invalid trace id) in practice. */
export function sessionTraceId(k: SessionKey): string {
  return digest(['trace', k.tenantId, k.appId, k.agent, k.sessionId]).slice(0, 32);
}

/** 16 lowercase hex characters for one span of the session, named by its role and event id. */
export function sessionSpanId(k: SessionKey, role: string, eventId: string): string {
  return digest(['span', k.tenantId, k.appId, k.agent, k.sessionId, role, eventId]).slice(0, 16);
}
