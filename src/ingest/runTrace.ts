/**
 * A worker run's trace, made in a compute thread: the store's text of the run (store/workers/trace.ts)
 * → the run as a coding-agent session, prepared as a sync batch is (agentsBatch.ts: checked against
 * the session contract, clamped to the plan's tier, scrubbed), and the figures of its ended turns.
 * The HTTP thread gets back bytes for the ingest log and a few numbers, never the run's events.
 */
import type { TierCeiling } from '../core/agents/tier.js';
import type { CostFn } from '../core/otlp/fields.js';
import { runTrace, type RunTrace } from '../core/workers/thread.js';
import type { RunTraceText } from '../store/workers/trace.js';
import { prepareAgentEnvelope, type AgentBatch, type PreparedAgents } from './agentsBatch.js';

export interface PreparedRunTrace<R = unknown> {
  /** The session as an agents batch (with what `rowsOf` made of it); null while no turn of the run has ended. */
  prepared: (PreparedAgents & R) | null;
  figures: RunTrace['figures'];
}

export async function prepareRunTrace<R>(
  text: string,
  ceiling: TierCeiling,
  rowsOf: (batch: AgentBatch) => R,
  costOf?: CostFn,
): Promise<PreparedRunTrace<R>> {
  const { run, turns, events } = JSON.parse(text) as RunTraceText;
  const stored = events.map((e) => ({
    ...e,
    event: e.event === null ? null : (JSON.parse(e.event) as Record<string, unknown>),
  }));
  const { session, figures } = runTrace(run, turns, stored, costOf);
  const prepared = session
    ? await prepareAgentEnvelope({ schemaVersion: 1, sessions: [session] }, ceiling, rowsOf)
    : null;
  return { prepared, figures };
}
