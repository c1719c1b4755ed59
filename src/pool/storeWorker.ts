/**
 * The store thread: owns the process's one DuckDB database and runs the store tasks. Tasks are async
 * and many run at once (each on its own connection); DuckDB parallelises the heavy ones itself.
 */
import { workerData } from 'node:worker_threads';
import { ApiError, toErrorData } from '../core/errors.js';
import { Database } from '../store/db.js';
import { checkHealth } from '../store/health.js';
import * as meta from '../store/meta.js';
import { migrate } from '../store/migrate.js';
import type { StoreTasks, StoreWorkerData, TaskMessage, TaskName, TaskResult } from './tasks.js';

const { database } = workerData as StoreWorkerData;
let opened: Promise<Database> | undefined;

function db(): Promise<Database> {
  opened ??= Database.open(database);
  return opened;
}

type Handlers = { [K in TaskName]: (input: StoreTasks[K]['in']) => Promise<StoreTasks[K]['out']> };

const handlers: Handlers = {
  async init({ bootstrap }) {
    const d = await db();
    const applied = await migrate(d);
    const bootstrapped = await meta.bootstrap(d, bootstrap);
    return { applied, bootstrapped, local: await meta.localScope(d) };
  },
  findKey: async ({ keyHash }) => meta.findKeyByHash(await db(), keyHash),
  touchKey: async ({ id, atMs }) => (await meta.touchKey(await db(), id, atMs), null),
  findEnvironment: async ({ tenantId, appId, name }) => meta.findEnvironmentByName(await db(), tenantId, appId, name),
  createKey: async (k) => meta.insertKey(await db(), k),
  listKeys: async ({ tenantId, appId }) => meta.listKeys(await db(), tenantId, appId),
  revokeKey: async ({ tenantId, appId, id }) => meta.revokeKey(await db(), tenantId, appId, id),
  health: async ({ checks }) => checkHealth(db, database.dataDir, checks),
  async checkpoint() {
    await (await db()).checkpoint();
    return null;
  },
  async close() {
    if (opened) {
      const d = await opened;
      await d.checkpoint();
      d.close();
      opened = undefined;
    }
    return null;
  },
};

export default async function dispatch(message: TaskMessage): Promise<TaskResult> {
  const handler = handlers[message.task] as (input: unknown) => Promise<unknown>;
  try {
    return { ok: true, value: (await handler(message.input)) as never };
  } catch (e) {
    if (e instanceof ApiError) return { ok: false, error: toErrorData(e) };
    throw e;
  }
}
