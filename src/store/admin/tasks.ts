/** Store-thread tasks of tenancy administration: environments, app updates and deletes, operator commands (part of StoreTasks). */
import type { OperatorCommand } from '../../core/admin/operatorApi.js';
import type { AppPatch, Deletion, EnvironmentKind, EnvironmentPatch } from '../../core/admin/rules.js';
import type { AppDeletion } from './apps.js';
import type { AppRef, EnvironmentView } from './environments.js';
import type { AppView } from './meta.js';

export interface AdminTasks {
  listEnvironments: { in: AppRef; out: EnvironmentView[] };
  createEnvironment: { in: AppRef & { name: string; kind: EnvironmentKind }; out: EnvironmentView };
  updateEnvironment: { in: AppRef & { id: string; patch: EnvironmentPatch }; out: EnvironmentView };
  /** `keyHashes`: the removed keys, for the main thread's auth cache. */
  deleteEnvironment: { in: AppRef & { id: string; confirmationName: string; deletedAt: string }; out: { deletion: Deletion; keyHashes: string[] } };
  updateApp: { in: AppRef & { patch: AppPatch; by: string }; out: AppView };
  /** A CLI command sent to the operator API; `secret` hashes the keys it mints and signs tokens. */
  operator: { in: { command: OperatorCommand; nowMs: number; secret: Uint8Array }; out: unknown };
  deleteApp: {
    in: AppRef & { callerAppId: string; confirmationName?: string; deletedAt: string };
    out: { deletion: AppDeletion; keyHashes: string[] };
  };
}
