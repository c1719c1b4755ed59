import type { OperatorCommand } from '../../core/admin/operatorApi.js';
import type { AppPatch, EnvironmentKind, EnvironmentPatch } from '../../core/admin/rules.js';
import type { AppRef } from './environments.js';
import type { TasksOf } from '../../pool/tasks.js';
import { isOperatorCommand } from '../../core/admin/operatorApi.js';
import { ApiError } from '../../core/errors.js';
import * as apps from './apps.js';
import * as environments from './environments.js';
import { runOperatorCommand } from './operator.js';
import type { Database } from '../db.js';

/** The store thread's handlers of the administration tasks. */
export function adminHandlers(db: () => Promise<Database>, dataDir: string) {
  return {
    /** A CLI command sent to the operator API; `secret` hashes the keys it mints and signs tokens. */
    async operator({ command, nowMs, secret }: { command: OperatorCommand; nowMs: number; secret: Uint8Array }) {
      // Typed out already; checked again because a secret reset here would pull the secret from under the server.
      if (!isOperatorCommand(command)) throw new ApiError('forbidden', 'secret reset needs the server stopped');
      const key = Buffer.from(secret);
      return runOperatorCommand({ db: await db(), dataDir, secret: async () => key }, command, nowMs, 'operator');
    },
    listEnvironments: async (ref: AppRef) => environments.listEnvironments(await db(), ref),
    createEnvironment: async ({
      name,
      kind,
      maxEnvironments,
      ...ref
    }: AppRef & { name: string; kind: EnvironmentKind; maxEnvironments: number | null }) =>
      environments.createEnvironment(await db(), ref, name, kind, maxEnvironments),
    updateEnvironment: async ({ id, patch, ...ref }: AppRef & { id: string; patch: EnvironmentPatch }) =>
      environments.updateEnvironment(await db(), ref, id, patch),
    /** `keyHashes`: the removed keys, for the main thread's auth cache. */
    deleteEnvironment: async ({
      id,
      confirmationName,
      deletedAt,
      ...ref
    }: AppRef & { id: string; confirmationName: string; deletedAt: string }) =>
      environments.deleteEnvironment(await db(), ref, id, confirmationName, deletedAt),
    updateApp: async ({ patch, by, ...ref }: AppRef & { patch: AppPatch; by: string }) =>
      apps.updateApp(await db(), ref, patch, by),
    deleteApp: async ({
      callerAppId,
      confirmationName,
      deletedAt,
      ...ref
    }: AppRef & { callerAppId: string; confirmationName?: string; deletedAt: string }) =>
      apps.deleteApp(await db(), ref, callerAppId, confirmationName, deletedAt),
  };
}

/** The store-thread tasks of adminHandlers: each handler's input and output. */
export type AdminTasks = TasksOf<ReturnType<typeof adminHandlers>>;
