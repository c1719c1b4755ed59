import type { BackgroundCounts } from '../ops/stats.js';
import type { MetricsTasks } from './tasks.js';
import type { Database } from '../db.js';
import { storeStats } from '../ops/stats.js';
import type { SpanSource } from '../spans/reads.js';
import { queryMetrics } from './metrics.js';

/** The store thread's handlers of the metrics tasks; `background` counts the background's work since the start. */
export function metricsHandlers(
  src: () => Promise<SpanSource>,
  db: () => Promise<Database>,
  dataDir: string,
  background: () => BackgroundCounts,
): { [K in keyof MetricsTasks]: (input: MetricsTasks[K]['in']) => Promise<MetricsTasks[K]['out']> } {
  return {
    queryMetrics: async ({ plan, scope, filter }) => queryMetrics(await src(), plan, scope, filter),
    storeStats: async () => storeStats(await db(), dataDir, background()),
  };
}
