/** Store-thread tasks of metrics: the API's (`GET /v1/metrics`) and the operations metrics' (part of StoreTasks). */
import type { MetricsPlan } from '../core/metrics/plan.js';
import type { StoreStats } from '../http/opsMetrics.js';
import type { MetricsAnswer } from '../store/metrics/metrics.js';
import type { ReadScope } from '../store/scope.js';
import type { CompiledFilter } from '../store/spans/search.js';

export interface MetricsTasks {
  queryMetrics: { in: { plan: MetricsPlan; scope: ReadScope; filter: CompiledFilter }; out: MetricsAnswer };
  storeStats: { in: Record<string, never>; out: StoreStats };
}
