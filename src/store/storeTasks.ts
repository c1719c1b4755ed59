/** Tasks of the store thread (store/storeThread.ts), with their input and output. */
import type { SecretVerdict } from '../auth/secret.js';
import type { Pin } from '../core/admin/rules.js';
import type { Filter } from '../core/filter/index.js';
import type { WalDamage } from './walGuard.js';
import type { DatabaseOptions } from './db.js';
import type { AppView, KeyRecord, KeyView, NewApp, NewKey, Scope } from './admin/meta.js';
import type { DependencyCheck } from './health.js';
import type { GenerationReport } from './spans/generation.js';
import type { CompactionPolicy } from './spans/compaction.js';
import type { SpanKeyWords } from './spans/manifest.js';
import type { Page, SessionView, SpanDetail, SpanView, TraceSummary } from './spans/reads.js';
import type { ReadScope } from './scope.js';
import type { SearchAnswer, SearchQuery, TraceListItem } from './spans/search.js';
import type { ExportFile, ExportFormat } from './spans/spanExport.js';
import type { AdminTasks } from './admin/handlers.js';
import type { EvalTasks } from './evals/handlers.js';
import type { PromptTasks } from './prompts/handlers.js';
import type { AgentStoreTasks } from './agents/tasks.js';
import type { MetricsTasks } from './metrics/handlers.js';
import type { ScoreTasks } from './scores/handlers.js';
import type { WorkerTasks } from './workers/handlers.js';

/** Tasks of the store thread, the one owner of the DuckDB database. */
export interface StoreTasks
  extends ScoreTasks,
    AdminTasks,
    EvalTasks,
    PromptTasks,
    AgentStoreTasks,
    MetricsTasks,
    WorkerTasks {
  init: {
    in: { bootstrap: { keyHash: string; keyPrefix: string }; secret: { check: string; fresh: boolean } };
    out: {
      applied: number[];
      secret: SecretVerdict;
      bootstrapped: Scope | null;
      local: (Scope & { plan: string }) | null;
      orphanSegments: number;
      walDamage: WalDamage | null;
    };
  };
  fillTraceHints: { in: Record<string, never>; out: null };
  findKey: { in: { keyHash: string }; out: KeyRecord | null };
  touchKey: { in: { id: string; atMs: number }; out: null };
  findEnvironment: { in: { tenantId: string; appId: string; name: string }; out: { id: string; kind: string } | null };
  createKey: { in: NewKey; out: KeyView };
  sessionScope: { in: { tenantId: string; appId: string }; out: { environmentId: string; plan: string } | null };
  selectEnvironment: {
    in: { tenantId: string; appId: string; name: string; createPreview: boolean; maxEnvironments?: number | null };
    out: { id: string; kind: string } | null;
  };
  listKeys: { in: { tenantId: string; appId: string; pin: Pin | null }; out: KeyView[] };
  revokeKey: { in: { tenantId: string; appId: string; pin: Pin | null; id: string }; out: string | null };
  createApp: { in: NewApp; out: AppView | null };
  listApps: { in: { tenantId: string; id?: string }; out: AppView[] };
  readBlob: { in: ReadScope & { sha256: string }; out: { mediaType: string; data: Uint8Array } | null };
  health: { in: { checks: ('duckdb' | 'data_dir' | 'disk' | 'segments' | 'quarantine')[] }; out: DependencyCheck[] };
  /** Flushed generations, committed in one transaction. */
  commitGenerations: { in: { reports: GenerationReport[] }; out: null };
  committedLogs: { in: { names: string[] }; out: string[] };
  recentSpanKeys: { in: { sinceMs: number; limit: number }; out: SpanKeyWords[] };
  tenantUsage: { in: { tenantId: string }; out: { month: string; monthSpans: number; storedBytes: number } };
  traceSpans: { in: { scope: ReadScope; traceId: string }; out: (SpanView & { graph: Record<string, unknown> })[] };
  traceWithSpans: {
    in: { scope: ReadScope; traceId: string };
    out: {
      trace: TraceSummary & { metadata: Record<string, unknown> };
      spans: (SpanView & { graph: Record<string, unknown> })[];
    } | null;
  };
  spanDetail: { in: { scope: ReadScope; spanId: string; traceId?: string }; out: SpanDetail | null };
  tracesWhere: {
    in: { scope: ReadScope; column: 'session_id' | 'run_id'; value: string; limit: number; offset: number };
    out: Page<TraceSummary>;
  };
  listSessions: {
    in: { scope: ReadScope; fromMs: number; toMs: number; limit: number; offset: number; userId?: string };
    out: Page<SessionView>;
  };
  searchTraces: { in: { query: SearchQuery; filter: Filter }; out: SearchAnswer<TraceListItem> };
  searchSpans: { in: { query: SearchQuery; filter: Filter }; out: SearchAnswer<Record<string, unknown>> };
  exportSpans: {
    in: { query: SearchQuery; filter: Filter; format: ExportFormat; limit: number | null };
    out: ExportFile;
  };
  checkpoint: { in: Record<string, never>; out: null };
  /** Fault injection only (`GET /v1/_faults/store-sleep`): holds a slot of the store thread for `ms`, and counts. */
  faultSleep: { in: { ms: number }; out: { sleeps: number } };
  close: { in: Record<string, never>; out: null };
}

export interface StoreThreadData {
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
