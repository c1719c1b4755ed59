/**
 * A `POST /v1/agents/sync` body → the batch that is stored, on a compute thread (it is CPU work):
 * the envelope is checked (a wrong one is a 400), then each session and each blob on its own (a
 * malformed one is rejected with its reason, the others go on), sessions are clamped to the tenant's
 * tier and scrubbed of secrets, blobs are checked against their hash, clamped and — text ones —
 * scrubbed too (a scrubbed blob gets the hash of its new bytes, and the sessions naming it follow).
 *
 * The result is encoded as the ingest log's `agents` record: what the log keeps and replays is the
 * scrubbed, clamped batch, never the request as sent. The batch itself is handed to `rowsOf`, in
 * the same thread, which maps it once (ingest/scan.ts) for the row keys the coordinator admits.
 */
import type { IValidation } from 'typia';
import { checkBlob, sha256Hex } from '../core/agents/blobs.js';
import {
  isTextMedia,
  MAX_INPUT_DEPTH,
  nestingDepth,
  scrubSessions,
  scrubTexts,
  type Findings,
} from '../core/agents/scrub.js';
import type { AgentBlob, AgentEvent, AgentSession } from '../core/agents/session.js';
import { STORABLE_TIMES, unstorableTime } from '../core/agents/map.js';
import { clampSession, keepsBlob, type TierCeiling } from '../core/agents/tier.js';
import { validationError } from '../core/errors.js';
import { cutText, parseMendedJson } from '../core/text.js';
import { checked, jsonBodyText } from '../contract/checked.js';
import {
  validateAgentBlob,
  validateAgentSession,
  validateAgentSyncBody,
  type SyncRejection,
} from '../contract/agents.js';
import type { BlobRecord } from './rows.js';

/** The batch as stored: sessions ready to map, blobs ready to keep. */
export interface AgentBatch {
  sessions: AgentSession[];
  blobs: BlobRecord[];
}

export interface PreparedAgents {
  /** The batch encoded for the ingest log (an `agents` record body). */
  body: Uint8Array;
  /** Agent and id of each session kept, in order. */
  sessions: { agent: string; id: string }[];
  rejected: SyncRejection[];
  blobShas: string[];
  /** Each kept blob's size in bytes, by hash. */
  blobBytes: Record<string, number>;
  findings: Findings;
}

export async function prepareAgentBatch<R>(
  raw: Uint8Array,
  contentType: string | undefined,
  ceiling: TierCeiling,
  rowsOf: (batch: AgentBatch) => R,
): Promise<PreparedAgents & R> {
  return prepareAgentEnvelope(parseBody(raw, contentType), ceiling, rowsOf);
}

/** `prepareAgentBatch` of a body already parsed (a worker run's session, built in the same thread: runTrace.ts). */
export async function prepareAgentEnvelope<R>(
  body: unknown,
  ceiling: TierCeiling,
  rowsOf: (batch: AgentBatch) => R,
): Promise<PreparedAgents & R> {
  const envelope = checked('body', validateAgentSyncBody(body));
  if (envelope.schemaVersion !== 1)
    throw validationError('body', {
      schemaVersion: `must be 1 (this server reads version 1 sessions), got ${envelope.schemaVersion}`,
    });
  const rejected: SyncRejection[] = [];
  const findings: Findings = {};

  const blobs = new Map<string, BlobRecord>();
  for (const [index, item] of (envelope.blobs ?? []).entries()) {
    const v = validateAgentBlob(item);
    const id = idOf(item, 'sha256');
    if (!v.success) {
      rejected.push({ index, id, reason: `blob: ${reasonOf(v)}` });
      continue;
    }
    const check = checkBlob(v.data);
    if (!check.ok) {
      rejected.push({ index, id, reason: `blob: ${check.reason}` });
      continue;
    }
    if (keepsBlob(ceiling, check.data.length))
      blobs.set(v.data.sha256, { sha256: v.data.sha256, mediaType: v.data.mediaType, data: check.data });
  }
  const renamed = await scrubTextBlobs(blobs, findings);

  const clamped: AgentSession[] = [];
  const seen = new Set<string>();
  for (const [index, item] of envelope.sessions.entries()) {
    const v = validateAgentSession(item);
    const id = idOf(item, 'id');
    if (!v.success) {
      rejected.push({ index, id, reason: reasonOf(v) });
      continue;
    }
    const problem =
      structureProblem(v.data) ??
      (seen.has(`${v.data.agent.name}\u0000${id}`) ? 'the same session is in the batch twice' : null);
    if (problem) {
      rejected.push({ index, id, reason: problem });
      continue;
    }
    seen.add(`${v.data.agent.name}\u0000${id}`);
    clamped.push(clampSession(v.data, ceiling));
  }
  const sessions = (await scrubSessions(clamped, findings)).map((s) =>
    renamed.size > 0 ? followRenames(s, renamed) : s,
  );
  rejected.sort((a, b) => a.index - b.index);
  const batch = { sessions, blobs: [...blobs.values()] };
  return {
    ...rowsOf(batch),
    body: encodeAgentBatch(batch),
    sessions: sessions.map((s) => ({ agent: s.agent.name, id: s.id })),
    rejected,
    blobShas: [...blobs.keys()],
    blobBytes: Object.fromEntries([...blobs].map(([sha, b]) => [sha, b.data.byteLength])),
    findings,
  };
}

/**
 * What the contract cannot say: unique event ids, parents that are sub-agent starts, and tool
 * arguments the scrubber can walk whole (MAX_INPUT_DEPTH).
 */
function structureProblem(s: AgentSession): string | null {
  const time = unstorableTime(s);
  if (time) return `${time.where}: ${time.value} is outside the times a span can have (${STORABLE_TIMES})`;
  const ids = new Set<string>();
  const subagents = new Set<string>();
  for (const [i, e] of s.events.entries()) {
    if (e.type === 'tool_call' && nestingDepth(e.input, MAX_INPUT_DEPTH) > MAX_INPUT_DEPTH)
      return `events[${i}].input: nested deeper than ${MAX_INPUT_DEPTH} levels`;
    if (ids.has(e.id)) return `events: the id "${e.id}" is used twice`;
    ids.add(e.id);
    if (e.parentId != null && !subagents.has(e.parentId))
      return `events: "${e.id}" names "${e.parentId}" as its parent, which is not an earlier subagent_start`;
    if (e.type === 'subagent_start') subagents.add(e.id);
  }
  return null;
}

/** Scrubs text blobs in place (in one run of the scrubber); returns old → new hash (and size) of those that changed. */
async function scrubTextBlobs(
  blobs: Map<string, BlobRecord>,
  findings: Findings,
): Promise<Map<string, { sha256: string; bytes: number }>> {
  const renamed = new Map<string, { sha256: string; bytes: number }>();
  const texts = [...blobs]
    .filter(([, blob]) => isTextMedia(blob.mediaType))
    .map(([sha, blob]) => ({ sha, blob, text: Buffer.from(blob.data).toString('utf8') }));
  const clean = await scrubTexts(
    texts.map((x) => x.text),
    'blob.txt',
    findings,
  );
  texts.forEach(({ sha, blob, text }, i) => {
    if (clean[i] === text) return;
    const data = Buffer.from(clean[i]!, 'utf8');
    const next = { sha256: sha256Hex(data), mediaType: blob.mediaType, data };
    blobs.delete(sha);
    blobs.set(next.sha256, next);
    renamed.set(sha, { sha256: next.sha256, bytes: data.length });
  });
  return renamed;
}

function followRenames(s: AgentSession, renamed: ReadonlyMap<string, { sha256: string; bytes: number }>): AgentSession {
  const events = s.events.map((e): AgentEvent => {
    if (!('content' in e)) return e;
    return {
      ...e,
      content: e.content.map((p) =>
        p.type === 'blob' && renamed.has(p.sha256) ? { ...p, ...renamed.get(p.sha256)! } : p,
      ),
    } as AgentEvent;
  });
  return { ...s, events };
}

/** The log record body of a batch: JSON, blob bytes in base64. */
export function encodeAgentBatch(batch: AgentBatch): Uint8Array {
  const blobs = batch.blobs.map((b) => ({
    sha256: b.sha256,
    mediaType: b.mediaType,
    data: Buffer.from(b.data).toString('base64'),
  }));
  return Buffer.from(JSON.stringify({ sessions: batch.sessions, blobs }), 'utf8');
}

export function decodeAgentBatch(body: Uint8Array): AgentBatch {
  const parsed = JSON.parse(Buffer.from(body.buffer, body.byteOffset, body.byteLength).toString('utf8')) as {
    sessions: AgentSession[];
    blobs: Omit<AgentBlob, 'bytes'>[];
  };
  return {
    sessions: parsed.sessions,
    blobs: parsed.blobs.map((b) => ({ sha256: b.sha256, mediaType: b.mediaType, data: Buffer.from(b.data, 'base64') })),
  };
}

function parseBody(raw: Uint8Array, contentType: string | undefined): unknown {
  const text = jsonBodyText(raw, contentType) ?? '';
  if (text.trim() === '') throw validationError('body', { body: 'is empty' });
  try {
    // Half a character in a transcript (an agent that cut its own text inside an emoji) is mended,
    // not refused: the sender cannot fix its agent's files (docs/decisions.md, "Coding-agent sessions").
    return parseMendedJson(text);
  } catch (e) {
    throw validationError('body', { body: `not valid JSON: ${(e as Error).message}` });
  }
}

/** The first few validation errors in words: `events[3].timestamp: expected string & Format<"date-time">`. */
function reasonOf(v: IValidation.IFailure): string {
  const shown = v.errors
    .slice(0, 3)
    .map(
      (e) =>
        `${e.path.replace(/^\$input\.?/, '') || 'item'}: ${e.expected === 'undefined' ? 'unknown property' : `expected ${e.expected}`}`,
    );
  return v.errors.length > 3 ? `${shown.join('; ')}; and ${v.errors.length - 3} more` : shown.join('; ');
}

/** The item's id as sent (its first 256 units, never half a character), when it has one that is text. */
function idOf(item: unknown, key: string): string {
  const v = typeof item === 'object' && item !== null ? (item as Record<string, unknown>)[key] : undefined;
  return typeof v === 'string' ? cutText(v, 256) : '';
}
