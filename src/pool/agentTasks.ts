/** Tasks of coding-agent sync (part of StoreTasks and ComputeTasks). */
import type { TierCeiling } from '../core/agents/tier.js';
import type { PreparedAgents } from '../ingest/agentsBatch.js';
import type { PreparedRunTrace } from '../ingest/runTrace.js';
import type { RowsHeld } from '../ingest/scan.js';
import type { PreparedWorkerEvents } from '../ingest/workerEvents.js';
import type { KnownOfSessions } from '../store/agents/known.js';
import type { Scope } from '../store/admin/meta.js';
import type { ReadScope } from '../store/scope.js';

export interface AgentStoreTasks {
  /** Span ids of these traces and the blobs of these hashes that the store already holds. */
  agentsKnown: { in: { scope: ReadScope & { environmentId: string }; traceIds: string[]; blobShas: string[] }; out: KnownOfSessions };
}

export interface AgentComputeTasks {
  /**
   * A sync request's body → the batch to store (checked, clamped, scrubbed), what was rejected, and
   * the row keys of the batch mapped for `scope` (the worker holds the rows for the request's record).
   */
  prepareAgents: { in: { body: Uint8Array; contentType: string | undefined; ceiling: TierCeiling; scope: Scope }; out: PreparedAgents & RowsHeld };
  /** A worker run's text from the store (`workerTraceInputs`) → its session as a batch to store (as `prepareAgents`), and its ended turns' figures. */
  prepareRunTrace: { in: { text: string; ceiling: TierCeiling; scope: Scope }; out: PreparedRunTrace<RowsHeld> };
  /** A worker's `POST …/leases/{id}/events` body → its events checked, as the store inserts them. */
  prepareWorkerEvents: { in: { body: Uint8Array | null; contentType: string | undefined }; out: PreparedWorkerEvents };
}
