/**
 * The store thread: owns the process's one DuckDB database and runs the store tasks. Tasks are async
 * and many run at once (each on its own connection); DuckDB parallelises the heavy ones itself.
 */
import { workerData } from 'node:worker_threads';
import { Database } from '../store/db.js';
import { checkHealth } from '../store/health.js';
import * as meta from '../store/admin/meta.js';
import { migrate } from '../store/migrate.js';
import { adminHandlers } from '../store/admin/handlers.js';
import { scoreHandlers } from '../store/scores/handlers.js';
import * as search from '../store/spans/search.js';
import * as reads from '../store/spans/reads.js';
import { SpanWriter } from '../store/spans/writer.js';
import { dispatchTask } from './taskPool.js';
import type { StoreTasks, StoreWorkerData } from './tasks.js';

const { database } = workerData as StoreWorkerData;
let opened: Promise<Database> | undefined;
/** One writer per database: its serialisation is what makes replays idempotent (see spanWriter.ts). */
let writer: Promise<SpanWriter> | undefined;

function db(): Promise<Database> {
  opened ??= Database.open(database);
  return opened;
}

type Handlers = { [K in keyof StoreTasks]: (input: StoreTasks[K]['in']) => Promise<StoreTasks[K]['out']> };

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
  selectEnvironment: async (q) => meta.selectEnvironment(await db(), q),
  sessionScope: async ({ tenantId, appId }) => meta.sessionScope(await db(), tenantId, appId),
  listKeys: async ({ tenantId, appId }) => meta.listKeys(await db(), tenantId, appId),
  revokeKey: async ({ tenantId, appId, id }) => meta.revokeKey(await db(), tenantId, appId, id),
  createApp: async (a) => meta.createApp(await db(), a),
  listApps: async ({ tenantId, id }) => meta.listApps(await db(), tenantId, id),
  readBlob: async ({ sha256, ...scope }) => reads.readBlob(await db(), scope, sha256),
  health: async ({ checks }) => checkHealth(db, database.dataDir, checks),
  async writeSpans(batch) {
    // Assigned before any await, so concurrent first calls share one writer.
    writer ??= db().then((d) => new SpanWriter(d));
    return (await writer).write(batch);
  },
  traceSpans: async ({ scope, traceId }) => reads.traceSpans(await db(), scope, traceId),
  traceSummary: async ({ scope, traceId }) => reads.traceSummary(await db(), scope, traceId),
  spanDetail: async ({ scope, spanId, traceId }) => reads.spanDetail(await db(), scope, spanId, traceId),
  tracesWhere: async ({ scope, column, value, limit, offset }) => reads.tracesWhere(await db(), scope, column, value, limit, offset),
  listSessions: async ({ scope, ...q }) => reads.listSessions(await db(), scope, q),
  searchTraces: async ({ query, filter }) => search.searchTraces(await db(), query, filter),
  searchSpans: async ({ query, filter }) => search.searchSpans(await db(), query, filter),
  ...scoreHandlers(db),
  ...adminHandlers(db),
  async checkpoint() {
    await (await db()).checkpoint();
    return null;
  },
  async close() {
    // Tasks still running (a last-used stamp, a group commit) finish before the database closes.
    const deadline = Date.now() + 10_000;
    while (running > 1 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 5));
    if (opened) {
      const d = await opened;
      await d.checkpoint();
      d.close();
      opened = undefined;
      writer = undefined;
    }
    return null;
  },
};

/** Tasks in progress in this thread, the calling one included. */
let running = 0;

export default async (message: { task: keyof StoreTasks; input: unknown }) => {
  running++;
  try {
    return await dispatchTask<StoreTasks>(handlers, message);
  } finally {
    running--;
  }
};
