/**
 * What a session used, per model — the figures the sync command prints and that ccusage reports
 * for the same files — and a fingerprint that changes when a session grows.
 */
import type { CostFn } from '../otlp/fields.js';
import { roundUsd } from '../cost/money.js';
import type { AgentSession } from './session.js';

export interface ModelUsage {
  inputTokens: number;
  outputTokens: number;
  cacheReadTokens: number;
  cacheCreationTokens: number;
  /** USD from the price table; 0 for models it does not price. */
  cost: number;
}

/** Usage per model of the sessions' assistant messages. */
export function usageByModel(
  sessions: readonly AgentSession[],
  costOf?: CostFn,
  into: Record<string, ModelUsage> = {},
): Record<string, ModelUsage> {
  for (const s of sessions) {
    for (const e of s.events) {
      if (e.type !== 'assistant_message' || !e.usage) continue;
      const u = e.usage;
      const m = (into[e.model] ??= {
        inputTokens: 0,
        outputTokens: 0,
        cacheReadTokens: 0,
        cacheCreationTokens: 0,
        cost: 0,
      });
      const read = u.cacheReadTokens ?? 0;
      const created = u.cacheCreationTokens ?? 0;
      m.inputTokens += u.inputTokens;
      m.outputTokens += u.outputTokens;
      m.cacheReadTokens += read;
      m.cacheCreationTokens += created;
      m.cost = roundUsd(
        m.cost +
          (costOf?.(e.model, {
            inputTokens: u.inputTokens + read + created,
            outputTokens: u.outputTokens,
            cachedInputTokens: read,
          }) ?? 0),
      );
    }
  }
  return into;
}

/** Changes whenever the session gains an event or ends: a session with the same one was sent already. */
export function fingerprint(s: AgentSession): string {
  const last = s.events[s.events.length - 1];
  return `${s.events.length}/${last?.id ?? ''}/${s.endedAt ? 'ended' : 'open'}`;
}
