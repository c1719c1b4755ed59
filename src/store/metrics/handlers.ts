import type { MetricsPlan } from '../../core/metrics/plan.js';
import type { ReadScope } from '../scope.js';
import type { Filter } from '../../core/filter/index.js';
import type { TasksOf } from '../../pool/tasks.js';
import type { BackgroundCounts } from '../ops/stats.js';
import type { Database } from '../db.js';
import { storeStats } from '../ops/stats.js';
import type { SpanSource } from '../spans/reads.js';
import { queryMetrics } from './metrics.js';

/** The store thread's handlers of the metrics tasks; `background` counts the background's work since the start. */
export function metricsHandlers(
  src: () => Promise<SpanSource>,
  db: () => Promise<Database>,
  dataDir: string,
  background: () => Promise<BackgroundCounts>,
) {
  return {
    queryMetrics: async ({ plan, scope, filter }: { plan: MetricsPlan; scope: ReadScope; filter: Filter }) =>
      queryMetrics(await src(), plan, scope, filter),
    storeStats: async () => storeStats(await db(), dataDir, await background()),
  };
}

/** The store-thread tasks of metricsHandlers: each handler's input and output. */
export type MetricsTasks = TasksOf<ReturnType<typeof metricsHandlers>>;
