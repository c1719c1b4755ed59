/**
 * The thread boundary: every task the store thread runs, with its input and output. Imported
 * type-only by both sides, so the two cannot drift apart.
 */
import type { ErrorData } from '../core/errors.js';
import type { DatabaseOptions } from '../store/db.js';
import type { KeyRecord, KeyView, NewKey, Scope } from '../store/meta.js';

export interface DependencyCheck {
  name: string;
  status: 'healthy' | 'unhealthy';
  latencyMs: number;
  error?: string;
  /** Extra facts of the check, e.g. free bytes. */
  detail?: Record<string, number | string>;
}

export interface StoreTasks {
  init: { in: { bootstrap: { keyHash: string; keyPrefix: string } }; out: { applied: number[]; bootstrapped: Scope | null; local: Scope | null } };
  findKey: { in: { keyHash: string }; out: KeyRecord | null };
  touchKey: { in: { id: string; atMs: number }; out: null };
  findEnvironment: { in: { tenantId: string; appId: string; name: string }; out: { id: string; kind: string } | null };
  createKey: { in: NewKey; out: KeyView };
  listKeys: { in: { tenantId: string; appId: string }; out: KeyView[] };
  revokeKey: { in: { tenantId: string; appId: string; id: string }; out: string | null };
  health: { in: { checks: ('duckdb' | 'data_dir' | 'disk' | 'segments')[] }; out: DependencyCheck[] };
  checkpoint: { in: Record<string, never>; out: null };
  close: { in: Record<string, never>; out: null };
}

export type TaskName = keyof StoreTasks;

export interface TaskMessage<K extends TaskName = TaskName> {
  task: K;
  input: StoreTasks[K]['in'];
}

/** ApiErrors cannot cross threads as instances; they travel as data and are rebuilt. */
export type TaskResult<K extends TaskName = TaskName> = { ok: true; value: StoreTasks[K]['out'] } | { ok: false; error: ErrorData };

export interface StoreWorkerData {
  database: DatabaseOptions;
}
