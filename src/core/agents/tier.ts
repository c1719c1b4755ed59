/**
 * The tier ceiling of a plan (data/plans.json `agents_tier`) applied to a session before anything of
 * it is stored:
 *   metrics      token counts, costs, durations and tool names; no message, reasoning or tool content
 *   transcripts  content too, but blobs over the plan's size cap are dropped (a text part says so)
 *   full         everything
 */
import type { AgentEvent, AgentSession, ContentPart } from './session.js';

export const AGENT_TIERS = ['metrics', 'transcripts', 'full'] as const;
export type AgentTier = (typeof AGENT_TIERS)[number];

export interface TierCeiling {
  tier: AgentTier;
  /** Largest blob kept on the transcripts tier; null keeps every size. */
  blobCapBytes: number | null;
}

export function isAgentTier(v: unknown): v is AgentTier {
  return typeof v === 'string' && (AGENT_TIERS as readonly string[]).includes(v);
}

/** The session as the tier allows it to be stored (a new object; the input is not changed). */
export function clampSession(session: AgentSession, ceiling: TierCeiling): AgentSession {
  if (ceiling.tier === 'full') return session;
  if (ceiling.tier === 'transcripts')
    return { ...session, events: session.events.map((e) => capBlobs(e, ceiling.blobCapBytes)) };
  const { title: _title, ...rest } = session;
  return { ...rest, events: session.events.map(metricsOnly) };
}

/** Whether a blob of `bytes` may be stored under the ceiling. */
export function keepsBlob(ceiling: TierCeiling, bytes: number): boolean {
  if (ceiling.tier === 'metrics') return false;
  return ceiling.tier === 'full' || ceiling.blobCapBytes === null || bytes <= ceiling.blobCapBytes;
}

function metricsOnly(e: AgentEvent): AgentEvent {
  switch (e.type) {
    case 'user_message':
    case 'assistant_message':
    case 'tool_result':
      return { ...e, content: [] };
    case 'reasoning':
      return { ...e, text: '' };
    case 'tool_call': {
      const { input: _input, ...rest } = e;
      return rest;
    }
    case 'subagent_start':
      return { ...e, prompt: null };
    case 'subagent_end':
      return { ...e, result: null };
    case 'system':
      return { ...e, text: null };
  }
}

function capBlobs(e: AgentEvent, cap: number | null): AgentEvent {
  if (cap === null || !('content' in e)) return e;
  return { ...e, content: e.content.map((p) => capPart(p, cap)) } as AgentEvent;
}

function capPart(p: ContentPart, cap: number): ContentPart {
  if (p.type !== 'blob' || p.bytes <= cap) return p;
  return { type: 'text', text: `[blob not kept: ${p.mediaType}, ${p.bytes} bytes, over this plan's ${cap}-byte cap]` };
}
