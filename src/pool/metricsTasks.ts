/** Store-thread tasks of metrics (part of StoreTasks). */
import type { MetricsPlan } from '../core/metrics/plan.js';
import type { MetricsAnswer } from '../store/metrics/metrics.js';
import type { ReadScope } from '../store/spans/reads.js';
import type { CompiledFilter } from '../store/spans/search.js';

export interface MetricsTasks {
  queryMetrics: { in: { plan: MetricsPlan; scope: ReadScope; filter: CompiledFilter }; out: MetricsAnswer };
}
