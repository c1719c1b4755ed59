import type { Logger } from 'pino';
import type { PriceTable } from '../core/cost/pricing.js';
import type { PlanTable } from '../core/plans.js';
import type { GitService } from '../git/service.js';
import type { IngestCoordinator } from '../ingest/coordinator.js';
import type { RateLimiter } from '../core/rateLimit.js';
import type { ComputeClient } from '../ingest/computeClient.js';
import type { StoreClient } from '../store/storeClient.js';
import type { TaskRunner } from '../pool/taskPool.js';
import type { ComputeTasks } from '../ingest/computeTasks.js';
import type { StoreTasks } from '../store/storeTasks.js';
import type { Authenticator } from './auth.js';
import type { Liveness } from './liveness.js';
import type { PromptCache } from './promptCache.js';
import type { PromptRenderer } from './promptRenderer.js';
import type { OpsMetrics } from './opsMetrics.js';
import type { RefusalLog } from './refusalLog.js';
import type { WorkerService } from './workerService.js';

/** The long-lived parts handlers reach through their context. */
export interface Services {
  store: StoreClient;
  compute: ComputeClient;
  ingest: IngestCoordinator;
  auth: Authenticator;
  log: Logger;
  /** The price table as loaded from data/pricing.json. */
  pricing: PriceTable;
  plans: PlanTable;
  rateLimiter: RateLimiter;
  version: string;
  startedAt: Date;
  liveness: Liveness;
  /** Warns (rate-limited) about OTLP exports refused whole or in part. */
  refusals: RefusalLog;
  /** Git connections' providers, and the discovery of repository prompts. */
  git: GitService;
  /** Answers of prompt fetches (the applications' hot path). */
  prompts: PromptCache;
  /** Renders prompts on a thread of its own, within a time and an output budget. */
  renderer: PromptRenderer;
  /** Prometheus operations metrics; null when `--metrics-listen` is off. */
  ops: OpsMetrics | null;
  /** Worker runs: live threads, claims waiting for work, the lease sweep, tracing. */
  workers: WorkerService;
}

/**
 * The services as one request's handler sees them: the pools carry the request's abort signal, so
 * a task still waiting for a worker when the client goes away is dropped (pool/taskPool.ts).
 */
export type RequestServices = Omit<Services, 'store' | 'compute'> & {
  store: TaskRunner<StoreTasks>;
  compute: TaskRunner<ComputeTasks>;
};
