/**
 * Assembles a Tracelake server from a Config: the store thread, auth, the route table and the HTTP
 * front end. `main.ts` runs it as a process; nothing here reads process.env or argv.
 */
import { existsSync, mkdirSync, readFileSync, unlinkSync } from 'node:fs';
import { createServer } from 'node:net';
import { join, resolve } from 'node:path';
import type { MessagePort } from 'node:worker_threads';
import type { Logger } from 'pino';
import { generateKey, hashKey, isWellFormedKey, shownPrefix } from './auth/keys.js';
import { abandonSecret, confirmSecret, prepareSecret, refusalFor, secretCheck, StartRefusal } from './auth/secret.js';
import { writeFileAtomic } from './durableFile.js';
import { firstStartBlock } from './firstStart.js';
import type { Config } from './config.js';
import { parsePriceTable } from './core/cost/pricing.js';
import { parsePlans, planOf } from './core/plans.js';
import { GitService } from './git/service.js';
import { RateLimiter } from './core/rateLimit.js';
import { Authenticator } from './http/auth.js';
import { Router } from './http/router.js';
import { INGESTION_CHECKS, runChecks } from './http/routes/health.js';
import { allRoutes } from './http/routeTable.js';
import { Liveness } from './http/liveness.js';
import { PromptCache } from './http/promptCache.js';
import { PromptRenderer } from './http/promptRenderer.js';
import { RefusalLog } from './http/refusalLog.js';
import { HttpServer } from './http/server.js';
import { chooseFrontEnd } from './http/frontEnds.js';
import { findPortHolder } from './http/portHolder.js';
import { EXIT_PORT_IN_USE, PortInUse, portInUseMessage } from './http/portInUse.js';
import { WorkerService } from './http/workerService.js';
import { listenMetrics, type MetricsListener } from './http/metricsServer.js';
import type { GrpcListener } from './http/grpcFrontEnd.js';
import type { OpsMetrics } from './http/opsMetrics.js';
import { IngestCoordinator } from './ingest/coordinator.js';
import { LogSyncThread } from './ingest/logSync.js';
import { AckPriority } from './ingest/ackPriority.js';
import { createComputeClient } from './ingest/computeClient.js';
import { createStoreClient } from './store/storeClient.js';
import { DATABASE_FILE, ingestLogDir } from './store/layout.js';
import { QUARANTINE_DIR } from './store/walGuard.js';

const ROOT = new URL('../../', import.meta.url);

/** What DuckDB says when its database file is damaged (checked by test/reliability/corruption.test.ts). */
const DAMAGED_DATABASE =
  /not a valid DuckDB database file|Corrupt database file|Could not read enough bytes|checksum .* does not match/i;

/** Small segments of one app and day that are compacted together whatever their size. */
const COMPACTION_MIN_FILES = 16;

export interface Running {
  port: number;
  /** Drains in-flight requests, checkpoints DuckDB and stops the store thread. */
  stop(): Promise<void>;
}

export function packageVersion(): string {
  return (JSON.parse(readFileSync(new URL('package.json', ROOT), 'utf8')) as { version: string }).version;
}

export interface Hooks {
  /**
   * The store died (a fatal DuckDB error: its instance is invalidated). Acked data is safe in the
   * ingest log and the database; the process should exit non-zero so its supervisor restarts it.
   */
  onFatal?(reason: string): void;
}

export async function startTracelake(config: Config, log: Logger, hooks: Hooks = {}): Promise<Running> {
  // First: a front end that cannot serve, or a port another process holds, is refused before the store is opened.
  const { frontEnd, fallback } = chooseFrontEnd(config.frontEnd);
  await refuseTakenPort(config.host, config.port);
  if (config.grpcPort !== null) await refuseTakenPort(config.host, config.grpcPort);
  const dataDir = resolve(config.dataDir);
  checkWritable(dataDir);
  const storeExisted = existsSync(join(dataDir, DATABASE_FILE));
  const candidate = prepareSecret(dataDir);
  if (!storeExisted && !candidate.pending && !config.allowNewStore) {
    throw new StartRefusal(
      `${dataDir} has a secret but no ${DATABASE_FILE}: the store's database is missing. Restore it from a backup, ` +
        `or start with --allow-new-store (TRACELAKE_ALLOW_NEW_STORE=on) to begin a new, empty store there.`,
    );
  }
  const secret = candidate.secret;
  // Parsed (and so checked) once at start: a broken price table stops the start, not a request.
  const pricing = parsePriceTable(JSON.parse(readFileSync(new URL('data/pricing.json', ROOT), 'utf8')));
  const plans = parsePlans(JSON.parse(readFileSync(config.plansFile ?? new URL('data/plans.json', ROOT), 'utf8')));

  if (config.bootstrapKey !== undefined && !isWellFormedKey(config.bootstrapKey)) {
    throw new Error('TRACELAKE_BOOTSTRAP_KEY must be sk_service_ followed by 32 to 128 letters and digits');
  }
  const bootstrapKey = config.bootstrapKey ?? generateKey();

  // Loaded only when served: prom-client (and the OpenTelemetry API it looks for) is many modules
  // that every start of a server whose metrics are off, the default, would load for nothing
  // (native-bench/RESULTS.md, "Figures behind the code").
  const ops: OpsMetrics | null =
    config.metricsListen.kind === 'off' ? null : new (await import('./http/opsMetrics.js')).OpsMetrics();
  const store = createStoreClient(
    { dataDir, threads: config.duckdbThreads, memoryLimit: config.duckdbMemory, queryTimeoutMs: config.queryTimeoutMs },
    {
      compactionIntervalMs: config.compactionIntervalMs,
      compaction: {
        targetRows: config.compactionRows,
        minFiles: COMPACTION_MIN_FILES,
        maxAgeMs: config.compactionAgeMs,
      },
      retentionDays: config.retentionDays,
      traceHintSlots: config.traceHints,
    },
    config.maxQueue,
    config.maxQueueWaitMs,
    (m) => {
      const fatal = (m as { tracelakeFatal?: { message: string } }).tracelakeFatal;
      if (!fatal) return workerLog(log, m);
      liveness.markFatal(fatal.message);
      log.fatal(
        { error: fatal.message },
        'the database failed and cannot be used any more; exiting to be restarted (acked data is kept)',
      );
      hooks.onFatal?.(fatal.message);
    },
  );
  if (ops) store.observer = (task, ok, seconds) => ops.storeTask(task, ok, seconds);
  const liveness = new Liveness(() => runChecks(store, INGESTION_CHECKS, null));
  const init = await store
    .run('init', {
      bootstrap: { keyHash: hashKey(secret, bootstrapKey), keyPrefix: shownPrefix(bootstrapKey) },
      secret: { check: secretCheck(secret), fresh: candidate.pending },
    })
    .catch(async (e: unknown) => {
      await store.destroy().catch(() => undefined);
      if (candidate.pending) abandonSecret(dataDir);
      throw DAMAGED_DATABASE.test((e as Error).message)
        ? new StartRefusal(
            `The database ${join(dataDir, DATABASE_FILE)} is damaged and cannot be opened (${(e as Error).message}). Restore it from a backup of the data directory; the segment files under segments/ hold the spans themselves (docs/segments.md).`,
          )
        : e;
    });
  if (init.secret !== 'ok') {
    if (candidate.pending) abandonSecret(dataDir);
    await store.run('close', {}).catch(() => undefined);
    await store.destroy();
    throw refusalFor(init.secret, dataDir);
  }
  if (candidate.pending) confirmSecret(dataDir);
  if (init.applied.length > 0) log.info({ versions: init.applied }, 'migrated');
  if (init.walDamage) {
    log.error(
      {
        reason: init.walDamage.reason,
        found_bytes: init.walDamage.foundBytes,
        expected_bytes: init.walDamage.expectedBytes,
        copy: init.walDamage.copy,
        set_aside_segments: init.orphanSegments,
      },
      'the DuckDB WAL was damaged: what DuckDB could not replay from it is lost from the database; the WAL as found and the segment files no manifest row names are kept in quarantine/ (see docs/reliability.md)',
    );
  } else if (init.orphanSegments > 0)
    log.warn(
      { files: init.orphanSegments },
      'deleted segment files no manifest row named (left by a crash before their commit)',
    );
  if (init.bootstrapped) {
    log.info(
      {
        tenant_id: init.bootstrapped.tenantId,
        app_id: init.bootstrapped.appId,
        environment_id: init.bootstrapped.environmentId,
        // Printed once, only when we made it up; a key the operator chose is theirs already.
        ...(config.bootstrapKey === undefined ? { api_key: bootstrapKey } : {}),
      },
      'bootstrap',
    );
  }

  const auth = new Authenticator(
    store,
    secret,
    config.mode === 'local' ? init.local : null,
    (err) => log.warn({ err }, 'could not record key use'),
    (plan) => planOf(plans, plan).max_environments_per_app,
  );
  const routes = allRoutes(secret, config);

  const version = packageVersion();
  const logDir = ingestLogDir(dataDir);
  mkdirSync(logDir, { recursive: true });
  let ingest: IngestCoordinator | undefined;
  const logSync = new LogSyncThread();
  const priority = new AckPriority(config.backgroundNice, () => (logSync.tid === null ? [] : [logSync.tid]));
  log.info(
    { nice: config.backgroundNice, platform_threads: priority.platform },
    'background threads: lowered as they start; the main thread, the log sync thread and these kept',
  );
  const greetings: { workerId: string; port: MessagePort }[] = [];
  const compute = createComputeClient({
    threads: config.workers,
    maxQueue: config.maxQueue,
    pricing,
    dataDir,
    onMessage: (m) => {
      const hello = (m as { tracelakeWorker?: { workerId: string; port: MessagePort } }).tracelakeWorker;
      if (!hello) return workerLog(log, m);
      if (ingest) ingest.attach(hello.workerId, hello.port);
      else greetings.push(hello);
    },
  });
  ingest = new IngestCoordinator(
    store,
    compute,
    {
      logDir,
      quarantineDir: join(dataDir, QUARANTINE_DIR, 'ingest-log'),
      maxSpansPerTrace: config.maxSpansPerTrace,
      dedupeSpans: config.dedupeSpans,
      maxBacklogBytes: config.ingestBacklogBytes,
      visibleTimeoutMs: 30_000,
      flush: {
        maxRows: config.segmentRows,
        maxBodyBytes: Math.max(1, Math.floor(config.ingestBacklogBytes / (4 * config.workers))),
        maxAgeMs: config.flushIntervalMs,
      },
      sync: logSync.sync,
      workers: config.workers,
    },
    log,
  );
  if (ops) {
    ingest.phaseObserver = (phase, seconds) => ops.ingestPhase(phase, seconds);
    ingest.times.stageObserver = (stage, seconds) => ops.generationStage(stage, seconds);
    ingest.times.visibleObserver = (seconds) => ops.ingestVisible(seconds);
  }
  for (const g of greetings.splice(0)) ingest.attach(g.workerId, g.port);
  await ingest.whenWorkers(config.workers);
  const recovered = await ingest.start();
  if (recovered.files > 0)
    log.info(
      {
        files: recovered.files,
        spans: recovered.spans,
        discarded_bytes: recovered.discardedBytes,
        lost_records: recovered.lostRecords,
      },
      'replayed the ingest log',
    );
  const workers = new WorkerService(
    store,
    compute,
    ingest,
    plans,
    log,
    {
      leaseMs: config.workerLeaseSeconds * 1000,
      maxAttempts: config.workerMaxAttempts,
      maxSpansPerTrace: config.maxSpansPerTrace,
    },
    (hash) => auth.forget(hash),
  );
  const renderer = new PromptRenderer();
  // Tenants are never deleted: the first one stays the bootstrap's (git/service.ts, `localFor`).
  const tenants = (await store.run('operator', {
    command: { name: 'tenant list' },
    nowMs: Date.now(),
    secret,
  })) as { id: string }[];
  const server = new HttpServer(
    config,
    new Router(routes),
    {
      store,
      compute,
      ingest,
      auth,
      log,
      pricing,
      plans,
      rateLimiter: new RateLimiter(config.rateLimit, config.rateBurst),
      version,
      startedAt: new Date(),
      liveness,
      refusals: new RefusalLog((fields, msg) => log.warn(fields, msg)),
      git: new GitService(store, secret, {
        gitRoot: config.gitRoot === undefined ? null : resolve(config.gitRoot),
        githubApiUrl: config.githubApiUrl,
        firstTenantId: tenants[0]?.id ?? null,
      }),
      prompts: new PromptCache(),
      renderer,
      ops,
      workers,
    },
    log,
    frontEnd,
  );
  workers.start();
  let metrics: MetricsListener | null = null;
  if (ops) {
    const coordinator = ingest;
    ops.attach({
      queues: () => [
        {
          pool: 'store',
          depth: store.queueSize,
          rejections: store.rejections,
          abandoned: store.abandoned,
          shed: store.shed,
        },
        {
          pool: 'compute',
          depth: compute.queueSize,
          rejections: compute.rejections,
          abandoned: compute.abandoned,
          shed: compute.shed,
        },
      ],
      ingest: () => ({ backlogBytes: coordinator.backlogBytes, ...coordinator.counts }),
      store: () => store.run('storeStats', {}),
      priority: () => ({ sweeps: priority.sweeps, lowered: priority.lowered }),
    });
    if (config.metricsListen.kind === 'listen') {
      const { host, port } = config.metricsListen;
      metrics = await listenMetrics(ops, host, port, (err) => log.warn({ err }, 'a Prometheus scrape failed'));
      log.info({ port: metrics.port, host, path: '/metrics' }, 'metrics listening');
    }
  }
  // Taken between the check at start and now: refused all the same (nothing was acknowledged yet,
  // and what the store holds is durable whether or not it is closed first).
  const port = await server.listen().catch((e: unknown) => {
    throw e instanceof PortInUse ? portRefusal(e.host, e.port) : e;
  });
  const grpc = config.grpcPort === null ? null : await listenOtlpGrpc(config, config.grpcPort, server);
  if (fallback) log.info({ reason: fallback }, 'serving through node:http');
  log.info(
    {
      port,
      host: config.host,
      mode: config.mode,
      data_dir: dataDir,
      version,
      pid: process.pid,
      node: process.version,
      front_end: frontEnd.name,
      http: frontEnd.build,
      grpc_port: grpc?.port ?? null,
    },
    'listening',
  );
  // Trace hints fill from the stored summaries from now on, not before serving (storeThread.ts).
  void store.run('fillTraceHints', {}).catch((err: unknown) => log.warn({ err }, 'trace hints were not filled'));
  // For the person who just started it; on stderr, as stdout is the JSON log tools parse.
  if (init.bootstrapped) {
    process.stderr.write(
      firstStartBlock({
        host: config.host,
        port,
        publicUrl: config.publicUrl,
        appId: init.bootstrapped.appId,
        key: config.bootstrapKey === undefined ? bootstrapKey : null,
      }),
    );
  }

  return {
    port,
    async stop() {
      workers.stop();
      const drained = await server.drain(config.shutdownTimeoutMs);
      await Promise.all([metrics?.close(), grpc?.close()]);
      if (!drained) log.warn('shutdown timeout: some requests were still in flight');
      // What the workers hold goes into committed segments, so the next start replays nothing.
      await ingest.drain();
      await store.run('close', {});
      priority.stop();
      await Promise.all([store.destroy(), compute.destroy(), logSync.close(), renderer.close()]);
    },
  };
}

/**
 * The OTLP/gRPC port, feeding the HTTP pipeline. Loaded only when served: grpc-js is many modules a
 * server with the port off would load for nothing.
 */
async function listenOtlpGrpc(config: Config, port: number, server: HttpServer): Promise<GrpcListener> {
  const { listenGrpc } = await import('./http/grpcFrontEnd.js');
  const options = { host: config.host, port, maxMessageBytes: config.maxOtlpBodyBytes };
  return listenGrpc(options, (wire) => server.accept(wire)).catch((e: unknown) => {
    throw e instanceof PortInUse ? portRefusal(e.host, e.port) : e;
  });
}

/**
 * Refuses the start when another process listens on the port, before anything else is opened: a
 * bind of a probe socket, closed at once (the front end binds for good once the store is ready).
 */
async function refuseTakenPort(host: string, port: number): Promise<void> {
  if (port === 0) return;
  const probe = createServer();
  const taken = await new Promise<boolean>((resolve, reject) => {
    probe.once('error', (e: NodeJS.ErrnoException) => (e.code === 'EADDRINUSE' ? resolve(true) : reject(e)));
    probe.listen({ host, port, exclusive: true }, () => probe.close(() => resolve(false)));
  });
  if (taken) throw portRefusal(host, port);
}

function portRefusal(host: string, port: number): StartRefusal {
  return new StartRefusal(portInUseMessage(host, port, findPortHolder(port)), EXIT_PORT_IN_USE);
}

/**
 * Refuses to start on a data directory that cannot be written (read-only mount, wrong owner, full
 * disk): better one clear line now than every ingest failing later. Root passes permission checks,
 * so the test is a real write.
 */
function checkWritable(dataDir: string): void {
  const probe = join(dataDir, `.write-probe-${process.pid}`);
  try {
    mkdirSync(dataDir, { recursive: true });
    writeFileAtomic(probe, 'tracelake\n');
    unlinkSync(probe);
  } catch (e) {
    throw new StartRefusal(
      `The data directory ${dataDir} is not writable (${(e as NodeJS.ErrnoException).code ?? (e as Error).message}): Tracelake needs to write its store there.`,
    );
  }
}

/** Logs what a worker thread reported on its own (background failures). */
function workerLog(log: Logger, m: unknown): void {
  const entry = (m as { tracelakeLog?: { level: 'info' | 'warn' | 'error'; msg: string; err: unknown } }).tracelakeLog;
  if (entry) log[entry.level](entry.level === 'info' ? (entry.err as object) : { err: entry.err }, entry.msg);
}
