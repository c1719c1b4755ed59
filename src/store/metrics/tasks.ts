/** Store-thread tasks of metrics: the API's (`GET /v1/metrics`) and the operations metrics' (part of StoreTasks). */
import type { Filter } from '../../core/filter/index.js';
import type { MetricsPlan } from '../../core/metrics/plan.js';
import type { StoreStats } from '../ops/stats.js';
import type { MetricsAnswer } from './metrics.js';
import type { ReadScope } from '../scope.js';

export interface MetricsTasks {
  queryMetrics: { in: { plan: MetricsPlan; scope: ReadScope; filter: Filter }; out: MetricsAnswer };
  storeStats: { in: Record<string, never>; out: StoreStats };
}
