import type { AdminTasks } from './tasks.js';
import { isOperatorCommand } from '../../core/admin/operatorApi.js';
import { ApiError } from '../../core/errors.js';
import * as apps from './apps.js';
import * as environments from './environments.js';
import { runOperatorCommand } from './operator.js';
import type { Database } from '../db.js';

/** The store thread's handlers of the administration tasks. */
export function adminHandlers(db: () => Promise<Database>, dataDir: string): { [K in keyof AdminTasks]: (input: AdminTasks[K]['in']) => Promise<AdminTasks[K]['out']> } {
  return {
    async operator({ command, nowMs, secret }) {
      // Typed out already; checked again because a secret reset here would pull the secret from under the server.
      if (!isOperatorCommand(command)) throw new ApiError('forbidden', 'secret reset needs the server stopped');
      const key = Buffer.from(secret);
      return runOperatorCommand({ db: await db(), dataDir, secret: async () => key }, command, nowMs, 'operator');
    },
    listEnvironments: async (ref) => environments.listEnvironments(await db(), ref),
    createEnvironment: async ({ name, kind, ...ref }) => environments.createEnvironment(await db(), ref, name, kind),
    updateEnvironment: async ({ id, patch, ...ref }) => environments.updateEnvironment(await db(), ref, id, patch),
    deleteEnvironment: async ({ id, confirmationName, deletedAt, ...ref }) =>
      environments.deleteEnvironment(await db(), ref, id, confirmationName, deletedAt),
    updateApp: async ({ patch, by, ...ref }) => apps.updateApp(await db(), ref, patch, by),
    deleteApp: async ({ callerAppId, confirmationName, deletedAt, ...ref }) => apps.deleteApp(await db(), ref, callerAppId, confirmationName, deletedAt),
  };
}
