/**
 * The thread boundary: every task the worker threads run, with its input and output. Imported
 * type-only by both sides, so the two cannot drift apart.
 */
import type { SecretVerdict } from '../auth/secret.js';
import type { Pin } from '../core/admin/rules.js';
import type { WalDamage } from '../store/walGuard.js';
import type { ErrorData } from '../core/errors.js';
import type { Filter } from '../core/filter/index.js';
import type { DependencyCheck } from '../store/health.js';
import type { DatabaseOptions } from '../store/db.js';
import type { AppView, KeyRecord, KeyView, NewApp, NewKey, Scope } from '../store/admin/meta.js';
import type { GenerationReport, ReplayedLog, ScanInput, ScanOutcome } from '../ingest/workerIngest.js';
import type { CompactionPolicy } from '../store/spans/compaction.js';
import type { SpanKeys } from '../store/spans/manifest.js';
import type { Page, SessionView, SpanDetail, SpanView, TraceSummary } from '../store/spans/reads.js';
import type { ReadScope } from '../store/scope.js';
import type { SearchAnswer, SearchQuery, TraceListItem } from '../store/spans/search.js';
import type { ExportFile, ExportFormat } from '../store/spans/spanExport.js';
import type { AdminTasks } from './adminTasks.js';
import type { EvalTasks } from './evalTasks.js';
import type { PromptTasks } from './promptTasks.js';
import type { AgentComputeTasks, AgentStoreTasks } from './agentTasks.js';
import type { MetricsTasks } from './metricsTasks.js';
import type { ScoreTasks } from './scoreTasks.js';
import type { WorkerTasks } from './workerTasks.js';

/** Any table of tasks: name → input and output. */
export type TaskTable<T> = { [K in keyof T]: { in: unknown; out: unknown } };

/** ApiErrors cannot cross threads as instances; they travel as data and are rebuilt. */
export type TaskResult<Out> = { ok: true; value: Out } | { ok: false; error: ErrorData };

/** Tasks of the store thread, the one owner of the DuckDB database. */
export interface StoreTasks extends ScoreTasks, AdminTasks, EvalTasks, PromptTasks, AgentStoreTasks, MetricsTasks, WorkerTasks {
  init: {
    in: { bootstrap: { keyHash: string; keyPrefix: string }; secret: { check: string; fresh: boolean } };
    out: { applied: number[]; secret: SecretVerdict; bootstrapped: Scope | null; local: (Scope & { plan: string }) | null; orphanSegments: number; walDamage: WalDamage | null };
  };
  findKey: { in: { keyHash: string }; out: KeyRecord | null };
  touchKey: { in: { id: string; atMs: number }; out: null };
  findEnvironment: { in: { tenantId: string; appId: string; name: string }; out: { id: string; kind: string } | null };
  createKey: { in: NewKey; out: KeyView };
  sessionScope: { in: { tenantId: string; appId: string }; out: { environmentId: string; plan: string } | null };
  selectEnvironment: { in: { tenantId: string; appId: string; name: string; createPreview: boolean }; out: { id: string; kind: string } | null };
  listKeys: { in: { tenantId: string; appId: string; pin: Pin | null }; out: KeyView[] };
  revokeKey: { in: { tenantId: string; appId: string; pin: Pin | null; id: string }; out: string | null };
  createApp: { in: NewApp; out: AppView | null };
  listApps: { in: { tenantId: string; id?: string }; out: AppView[] };
  readBlob: { in: ReadScope & { sha256: string }; out: { mediaType: string; data: Uint8Array } | null };
  health: { in: { checks: ('duckdb' | 'data_dir' | 'disk' | 'segments' | 'quarantine')[] }; out: DependencyCheck[] };
  /** Flushed generations, committed in one transaction. */
  commitGenerations: { in: { reports: GenerationReport[] }; out: null };
  committedLogs: { in: { names: string[] }; out: string[] };
  recentSpanKeys: { in: { sinceMs: number; limit: number }; out: SpanKeys[] };
  tenantUsage: { in: { tenantId: string }; out: { month: string; monthSpans: number; storedBytes: number } };
  traceSpans: { in: { scope: ReadScope; traceId: string }; out: (SpanView & { graph: Record<string, unknown> })[] };
  traceWithSpans: {
    in: { scope: ReadScope; traceId: string };
    out: { trace: TraceSummary & { metadata: Record<string, unknown> }; spans: (SpanView & { graph: Record<string, unknown> })[] } | null;
  };
  spanDetail: { in: { scope: ReadScope; spanId: string; traceId?: string }; out: SpanDetail | null };
  tracesWhere: { in: { scope: ReadScope; column: 'session_id' | 'run_id'; value: string; limit: number; offset: number }; out: Page<TraceSummary> };
  listSessions: { in: { scope: ReadScope; fromMs: number; toMs: number; limit: number; offset: number; userId?: string }; out: Page<SessionView> };
  searchTraces: { in: { query: SearchQuery; filter: Filter }; out: SearchAnswer<TraceListItem> };
  searchSpans: { in: { query: SearchQuery; filter: Filter }; out: SearchAnswer<Record<string, unknown>> };
  exportSpans: { in: { query: SearchQuery; filter: Filter; format: ExportFormat; limit: number | null }; out: ExportFile };
  checkpoint: { in: Record<string, never>; out: null };
  /** Fault injection only (`GET /v1/_faults/store-sleep`): holds a slot of the store thread for `ms`, and counts. */
  faultSleep: { in: { ms: number }; out: { sleeps: number } };
  close: { in: Record<string, never>; out: null };
}

export interface StoreWorkerData {
  database: DatabaseOptions;
  background: StoreBackground;
}

/** What the store thread does on its own, and how often. */
export interface StoreBackground {
  /** Milliseconds between looks for compaction work; 0 turns compaction off. */
  compactionIntervalMs: number;
  compaction: CompactionPolicy;
  /** Days spans are kept when an app sets none; 0 keeps them. */
  retentionDays: number;
  /** Slots of the trace hints table (store/spans/traceHints.ts), filled in the background; 0 turns hints off. */
  traceHintSlots: number;
}

/** Tasks of the compute pool: the CPU work of ingestion, and the segments it writes. */
export interface ComputeTasks extends AgentComputeTasks {
  /** The row keys of an OTLP/JSON body or a coding-agent batch, for admission (the main thread reads protobuf itself). */
  scan: { in: ScanInput; out: ScanOutcome };
  /** Re-reads a log file a crash left and writes its rows as segments (not yet committed). */
  replayLog: { in: { path: string; name: string; record?: number }; out: ReplayedLog };
}

export interface ComputeWorkerData {
  /** The price table's JSON, parsed once per worker. */
  pricing: unknown;
  dataDir: string;
}
