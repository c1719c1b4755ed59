/** Tasks of the compute threads (ingest/computeThread.ts), with their input and output. */
import type { TierCeiling } from '../core/agents/tier.js';
import type { PreparedAgents } from './agentsBatch.js';
import type { PreparedRunTrace } from './runTrace.js';
import type { PreparedWorkerEvents } from './workerEvents.js';
import type { ReplayedLog } from './computeIngest.js';
import type { RowsHeld, ScanInput, ScanOutcome } from './scan.js';
import type { Scope } from '../store/admin/meta.js';

export interface AgentComputeTasks {
  /**
   * A sync request's body → the batch to store (checked, clamped, scrubbed), what was rejected, and
   * the row keys of the batch mapped for `scope` (the thread holds the rows for the request's record).
   */
  prepareAgents: {
    in: { body: Uint8Array; contentType: string | undefined; ceiling: TierCeiling; scope: Scope };
    out: PreparedAgents & RowsHeld;
  };
  /** A worker run's text from the store (`workerTraceInputs`) → its session as a batch to store (as `prepareAgents`), and its ended turns' figures. */
  prepareRunTrace: { in: { text: string; ceiling: TierCeiling; scope: Scope }; out: PreparedRunTrace<RowsHeld> };
  /** A worker's `POST …/leases/{id}/events` body → its events checked, as the store inserts them. */
  prepareWorkerEvents: { in: { body: Uint8Array | null; contentType: string | undefined }; out: PreparedWorkerEvents };
}

/** Tasks of the compute pool: the CPU work of ingestion, and the segments it writes. */
export interface ComputeTasks extends AgentComputeTasks {
  /** The row keys of an OTLP/JSON body or a coding-agent batch, for admission (the main thread reads protobuf itself). */
  scan: { in: ScanInput; out: ScanOutcome };
  /** Re-reads a log file a crash left and writes its rows as segments (not yet committed). */
  replayLog: { in: { path: string; name: string; record?: number }; out: ReplayedLog };
}

export interface ComputeThreadData {
  /** The price table's JSON, parsed once per thread. */
  pricing: unknown;
  dataDir: string;
}
