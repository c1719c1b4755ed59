import type { MetricsTasks } from '../../pool/metricsTasks.js';
import type { SpanSource } from '../spans/reads.js';
import { queryMetrics } from './metrics.js';

/** The store thread's handlers of the metrics tasks. */
export function metricsHandlers(src: () => Promise<SpanSource>): { [K in keyof MetricsTasks]: (input: MetricsTasks[K]['in']) => Promise<MetricsTasks[K]['out']> } {
  return {
    queryMetrics: async ({ plan, scope, filter }) => queryMetrics(await src(), plan, scope, filter),
  };
}
