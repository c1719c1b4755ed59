/**
 * The store thread: owns the process's one DuckDB database and runs the store tasks. Tasks are async
 * and many run at once (each on its own connection); DuckDB parallelises the heavy ones itself. In
 * the background it folds trace summary parts into merged rows.
 */
import { join } from 'node:path';
import { parentPort, workerData } from 'node:worker_threads';
import { Database } from './db.js';
import { storeDirs } from './layout.js';
import { QUARANTINE_DIR } from './walGuard.js';
import { checkHealth } from './health.js';
import * as meta from './admin/meta.js';
import { verifySecret } from './admin/identity.js';
import { migrate } from './migrate.js';
import { adminHandlers } from './admin/handlers.js';
import { scoreHandlers } from './scores/handlers.js';
import { evalHandlers } from './evals/handlers.js';
import { workerHandlers } from './workers/handlers.js';
import { promptHandlers } from './prompts/handlers.js';
import { metricsHandlers } from './metrics/handlers.js';
import { tenantUsage } from './admin/usage.js';
import { knownOfSessions } from './agents/known.js';
import * as manifest from './spans/manifest.js';
import * as search from './spans/search.js';
import { exportSpans, removeStaleExports } from './spans/spanExport.js';
import * as reads from './spans/reads.js';
import { LocalSegmentStore } from './spans/segmentStore.js';
import { compactOnce, purgeReplaced } from './spans/compaction.js';
import { rollUpOnce } from './spans/rollups.js';
import { FileEngine } from './spans/fileEngine.js';
import { pruneCommittedLogs } from './spans/manifest.js';
import { applyRetention } from './spans/retention.js';
import { advanceSettledKeys } from './spans/settledKeys.js';
import { mergeParts, reclaimSummaryBlocks } from './spans/summaryMerge.js';
import { BACKGROUND_JOBS, type BackgroundJob } from './ops/stats.js';
import { setTraceHintSlots, stopFilling, traceHints } from './spans/traceHints.js';
import { ApiError } from '../core/errors.js';
import { dispatchTask } from '../pool/taskPool.js';
import type { StoreTasks, StoreThreadData } from './storeTasks.js';
import { logsAwaitCheckpoint, retireAfterCheckpoint } from './spans/checkpointedLogs.js';

const { database, background: schedule } = workerData as StoreThreadData;
const segments = new LocalSegmentStore(storeDirs(database.dataDir).segments);
setTraceHintSlots(schedule.traceHintSlots);
let opened: Promise<Database> | undefined;
let compactor: Promise<FileEngine> | undefined;
/** Set by `close`: a task arriving after it must not open the database again (the thread is about to end). */
let closed = false;
/** `faultSleep` tasks started (fault injection only). */
let faultSleeps = 0;

function db(): Promise<Database> {
  if (closed) return Promise.reject(new ApiError('unavailable', 'The store is closed: the server is shutting down'));
  opened ??= Database.open(database).then((d) => {
    // The main thread decides what a dead database means for the process (it exits to be restarted).
    d.onFatal = (e) => parentPort!.postMessage({ tracelakeFatal: { message: e.message } });
    d.beforeCheckpoint = () => retireAfterCheckpoint(d, database.dataDir);
    return d;
  });
  return opened;
}

async function src(): Promise<reads.SpanSource> {
  const d = await db();
  return { db: d, segments, hints: traceHints(d) };
}

/**
 * Background work of the store thread, one job at a time: folding summary parts into merged rows
 * (often), compacting small segments (every few seconds) and rolling up the compacted ones,
 * deleting replaced files after a grace period longer than any query, forgetting old committed log
 * names.
 */
const background = {
  timer: null as NodeJS.Timeout | null,
  running: false,
  verified: false,
  /** Segment files replaced by compaction since the start (operations metrics). */
  compactions: 0,
  /** Merges of summary parts run since the start, and the parts they folded (operations metrics). */
  merges: 0,
  partsMerged: 0,
  /**
   * Whether parts may wait to be merged: so at the start (migrations and the log's replay write
   * them) and after every commit of generations — after the start the one writer of parts
   * (test/store/partsWriters.test.ts holds it). An idle store then runs no merge transaction.
   */
  partsWaiting: true,
  /** Whether a compacted file may wait for its rollup (rollups.ts): so at the start and after a compaction. */
  rollupsWaiting: true,
  last: { wal: 0, merge: 0, settle: 0, compaction: 0, purge: 0, prune: 0, retention: 0 },
  /** Seconds spent in each job since the start (operations metrics): what the store does beside its tasks. */
  seconds: Object.fromEntries(BACKGROUND_JOBS.map((job) => [job, 0])) as Record<BackgroundJob, number>,
  async timed<T>(job: BackgroundJob, work: () => Promise<T>): Promise<T> {
    const started = performance.now();
    try {
      return await work();
    } finally {
      this.seconds[job] += (performance.now() - started) / 1000;
    }
  },
  start() {
    this.timer ??= setInterval(() => void this.tick(), TICK_MS);
  },
  async tick() {
    if (this.running || !opened) return;
    this.running = true;
    const d = await db();
    const now = Date.now();
    try {
      if (!this.verified) {
        // Once per start: a segment whose footer cannot be read would fail every search over it.
        this.verified = true;
        await this.timed('verify', () => verifySegments(d, null));
      }
      if (now - this.last.wal >= WAL_INTERVAL_MS) {
        this.last.wal = now;
        const checkpointed = await this.timed('checkpoint', () =>
          d.checkpointIfLarge(undefined, logsAwaitCheckpoint(database.dataDir)),
        );
        if (!checkpointed) d.recordWal();
      }
      if (this.partsWaiting && now - this.last.merge >= MERGE_INTERVAL_MS) {
        this.last.merge = now;
        // Cleared before the merge: a commit that ends while it runs sets it again.
        this.partsWaiting = false;
        this.merges++;
        this.partsMerged += await this.timed('merge', () => mergeParts(d)).catch((e: unknown) => {
          this.partsWaiting = true;
          throw e;
        });
      }
      // Never beside a merge: the merge adds the keys it writes before the cutoff (settledKeys.ts).
      if (now - this.last.settle >= SETTLE_INTERVAL_MS) {
        this.last.settle = now;
        await this.timed('settle', () => advanceSettledKeys(d, BigInt(now) * 1_000_000n));
      }
      if (schedule.compactionIntervalMs > 0 && now - this.last.compaction >= schedule.compactionIntervalMs) {
        this.last.compaction = now;
        // Keep going while there is work, but let the next merge in between.
        compactor ??= FileEngine.open(segments.root, '1GiB');
        const engine = await compactor;
        const replaced = await this.timed('compaction', () => compactOnce(d, engine, segments, schedule.compaction));
        this.compactions += replaced;
        if (replaced > 0) {
          this.last.compaction = 0;
          this.rollupsWaiting = true;
        }
      }
      // A file a tick: a store that predates rollups catches up in the background, reads meanwhile
      // reading the spans of the files not rolled up yet.
      if (this.rollupsWaiting) this.rollupsWaiting = (await this.timed('rollup', () => rollUpOnce(d, segments))) > 0;
      if (now - this.last.retention >= RETENTION_INTERVAL_MS) {
        this.last.retention = now;
        const dropped = await this.timed('retention', () => applyRetention(d, schedule.retentionDays, now));
        if (dropped.segments > 0 || dropped.traces > 0)
          report('info', "retention dropped spans past their apps' retention", dropped);
        // The dropped files go with the next purge, after the grace period.
      }
      if (now - this.last.purge >= PURGE_INTERVAL_MS) {
        this.last.purge = now;
        await this.timed('purge', () => purgeReplaced(d, segments, 2 * database.queryTimeoutMs));
      }
      if (now - this.last.prune >= PRUNE_INTERVAL_MS) {
        this.last.prune = now;
        await this.timed('prune', () => pruneCommittedLogs(d));
      }
    } catch (err) {
      report('warn', 'background store work failed; retrying', err);
    } finally {
      this.running = false;
    }
  },
  async stop() {
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
    while (this.running) await new Promise((r) => setTimeout(r, 5));
  },
};

const TICK_MS = 250;
/** How often the WAL watermark is recorded (and the WAL checkpointed when large). */
const WAL_INTERVAL_MS = 1_000;
/** How often parts are folded into merged summaries (reads merge the newer parts themselves). */
const MERGE_INTERVAL_MS = 2_000;
const PURGE_INTERVAL_MS = 10_000;
/** How often the settled keys' cutoff moves (settledKeys.ts): a minute of summaries' keys a time. */
const SETTLE_INTERVAL_MS = 60_000;
const PRUNE_INTERVAL_MS = 3_600_000;
/** Retention runs at start and then hourly. */
const RETENTION_INTERVAL_MS = 3_600_000;

type Handlers = { [K in keyof StoreTasks]: (input: StoreTasks[K]['in']) => Promise<StoreTasks[K]['out']> };

const handlers: Handlers = {
  async init({ bootstrap, secret: candidate }) {
    const d = await db();
    // Before anything writes: files no manifest row names are leftovers of a crash — or, when the
    // WAL was found damaged, files whose manifest rows were lost with it (then they are kept).
    const orphanSegments = await manifest.sweepOrphans(
      d,
      segments,
      d.walDamage ? join(database.dataDir, QUARANTINE_DIR, 'segments') : null,
    );
    removeStaleExports(database.dataDir);
    const applied = await migrate(d);
    const secret = await verifySecret(d, candidate.check, candidate.fresh);
    const walDamage = d.walDamage;
    if (secret !== 'ok') return { applied, secret, bootstrapped: null, local: null, orphanSegments, walDamage };
    const bootstrapped = await meta.bootstrap(d, bootstrap);
    background.start();
    return { applied, secret, bootstrapped, local: await meta.localScope(d), orphanSegments, walDamage };
  },
  fillTraceHints: async () => {
    // Once the server listens: filling from a large store's summaries took most of this thread's
    // start (native-bench/restart), and a trace read meanwhile only goes without its hint.
    traceHints(await db());
    return null;
  },
  findKey: async ({ keyHash }) => meta.findKeyByHash(await db(), keyHash),
  touchKey: async ({ id, atMs }) => {
    await meta.touchKey(await db(), id, atMs);
    return null;
  },
  findEnvironment: async ({ tenantId, appId, name }) => meta.findEnvironmentByName(await db(), tenantId, appId, name),
  createKey: async (k) => meta.insertKey(await db(), k),
  selectEnvironment: async (q) => meta.selectEnvironment(await db(), q),
  sessionScope: async ({ tenantId, appId }) => meta.sessionScope(await db(), tenantId, appId),
  listKeys: async ({ tenantId, appId, pin }) => meta.listKeys(await db(), tenantId, appId, undefined, pin),
  revokeKey: async ({ tenantId, appId, pin, id }) => meta.revokeKey(await db(), tenantId, appId, id, pin),
  createApp: async (a) => meta.createApp(await db(), a),
  listApps: async ({ tenantId, id }) => meta.listApps(await db(), tenantId, id),
  readBlob: async ({ sha256, ...scope }) => reads.readBlob(await db(), scope, sha256),
  health: async ({ checks }) => checkHealth(db, database.dataDir, checks),
  commitGenerations: async ({ reports }) => {
    await manifest.commitGenerations(await db(), segments, reports);
    background.partsWaiting = true;
    return null;
  },
  committedLogs: async ({ names }) => manifest.committedLogs(await db(), names),
  recentSpanKeys: async ({ sinceMs, limit }) => {
    // The start reads these files: the ones it cannot read are set aside first.
    await verifySegments(await db(), sinceMs);
    return manifest.recentSpanKeys(await db(), segments, sinceMs, limit);
  },
  tenantUsage: async ({ tenantId }) => tenantUsage(await db(), tenantId, Date.now()),
  traceSpans: async ({ scope, traceId }) => reads.traceSpans(await src(), scope, traceId),
  traceWithSpans: async ({ scope, traceId }) => reads.traceWithSpans(await src(), scope, traceId),
  spanDetail: async ({ scope, spanId, traceId }) => reads.spanDetail(await src(), scope, spanId, traceId),
  tracesWhere: async ({ scope, column, value, limit, offset }) =>
    reads.tracesWhere(await db(), scope, column, value, limit, offset),
  listSessions: async ({ scope, ...q }) => reads.listSessions(await db(), scope, q),
  searchTraces: async ({ query, filter }) => search.searchTraces(await src(), query, filter),
  searchSpans: async ({ query, filter }) => search.searchSpans(await src(), query, filter),
  exportSpans: async ({ query, filter, format, limit }) => exportSpans(await src(), query, filter, format, limit),
  agentsKnown: async ({ scope, traceIds, blobShas }) => knownOfSessions(await src(), scope, traceIds, blobShas),
  ...scoreHandlers(db, segments),
  ...adminHandlers(db, database.dataDir),
  ...evalHandlers(db),
  ...workerHandlers(db),
  ...promptHandlers(db, segments),
  ...metricsHandlers(src, db, database.dataDir, async () => ({
    compactions: background.compactions,
    summaryMerges: background.merges,
    summaryPartsMerged: background.partsMerged,
    backgroundSeconds: { ...background.seconds },
    compactionMemory: compactor ? await (await compactor).memory() : {},
  })),
  async faultSleep({ ms }) {
    faultSleeps++;
    await new Promise((r) => setTimeout(r, ms));
    return { sleeps: faultSleeps };
  },
  async checkpoint() {
    await (await db()).checkpoint();
    return null;
  },
  async close() {
    await background.stop();
    // Tasks still running (a last-used stamp, a commit) finish before the database closes.
    const deadline = Date.now() + 10_000;
    while (running > 1 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 5));
    closed = true;
    if (compactor) (await compactor).close();
    compactor = undefined;
    if (opened) {
      const d = await opened;
      await stopFilling(d);
      await mergeParts(d).catch(() => undefined);
      // The file is left without the holes the summaries' rewrites made (see reclaimSummaryBlocks).
      await reclaim(d).catch((e: unknown) =>
        report('warn', "could not give the summaries' free blocks back at shutdown", e),
      );
      await d.checkpoint();
      d.close();
      opened = undefined;
    }
    return null;
  },
};

/** Rewrites the summaries into the database file's holes when they fit (summaryMerge.ts), and says so. */
async function reclaim(d: Database): Promise<void> {
  const done = await reclaimSummaryBlocks(d);
  if (done)
    report('info', "the summaries were rewritten into the database file's free blocks", {
      free_blocks_before: done.freeBefore,
      blocks: done.blocksBefore,
    });
}

/** Sets aside the segments (created since `sinceMs`) whose footers cannot be read, and says so. */
async function verifySegments(d: Database, sinceMs: number | null): Promise<void> {
  const damaged = await manifest.verifySegments(
    d,
    segments,
    join(database.dataDir, QUARANTINE_DIR, 'segments'),
    sinceMs,
  );
  if (damaged.length > 0) {
    report(
      'error',
      `${damaged.length} segment file(s) could not be read and were set aside in quarantine/segments; their spans are unreadable until the files are restored (docs/reliability.md)`,
      { files: damaged },
    );
  }
}

/** Hands a background event to the main thread's log (the store thread has no logger of its own). */
function report(level: 'info' | 'warn' | 'error', msg: string, detail: unknown): void {
  const err = detail instanceof Error ? { message: detail.message, stack: detail.stack } : detail;
  parentPort?.postMessage({ tracelakeLog: { level, msg, err } });
}

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
