/**
 * Where the server's time and memory went in a minute of the soak (soak.ts): its CPU (all threads,
 * /proc), the store thread's background jobs and its tasks (the operations metrics, queueing
 * included), DuckDB's memory by instance and the summary parts waiting to be merged.
 */
import type { TestServer } from '../test/helpers/server.js';
import { processCpu } from './procThreads.js';
import { histograms, values } from './serverMetrics.js';

export interface ServerReading {
  /** performance.now() when read. */
  at: number;
  cpuSeconds: number;
  backgroundSeconds: Map<string, number>;
  tasks: Map<string, { count: number; sum: number }>;
  memoryBytes: Map<string, number>;
  partsWaiting: number;
}

export async function readServer(server: TestServer, pid: number): Promise<ServerReading> {
  const [backgroundSeconds, tasks, memoryBytes, parts] = await Promise.all([
    values(server, 'tracelake_background_seconds_total', 'job'),
    histograms(server, 'tracelake_store_task_duration_seconds', 'task', '0.25'),
    values(server, 'tracelake_duckdb_memory_bytes', 'instance'),
    values(server, 'tracelake_summary_parts_waiting', ''),
  ]);
  return {
    at: performance.now(),
    cpuSeconds: processCpu(pid),
    backgroundSeconds,
    tasks,
    memoryBytes,
    partsWaiting: parts.get('') ?? 0,
  };
}

/** A minute between two readings. */
export interface Where {
  /** The server's CPU, in cores busy on average. */
  cores: number;
  /** Seconds of each background job in the minute. */
  background: Record<string, number>;
  /** The store tasks of the minute with the most time: count and mean ms, queueing included. */
  tasks: Record<string, { count: number; meanMs: number }>;
  storeMemoryMiB: number;
  compactionMemoryMiB: number;
  partsWaiting: number;
}

const TOP_TASKS = 5;

export function whereBetween(a: ServerReading, b: ServerReading): Where {
  const background = Object.fromEntries(
    [...b.backgroundSeconds].map(([job, s]) => [job, s - (a.backgroundSeconds.get(job) ?? 0)]),
  );
  const tasks = [...b.tasks]
    .map(([task, h]) => {
      const before = a.tasks.get(task) ?? { count: 0, sum: 0 };
      return { task, count: h.count - before.count, sum: h.sum - before.sum };
    })
    .filter((x) => x.count > 0)
    .sort((x, y) => y.sum - x.sum)
    .slice(0, TOP_TASKS);
  return {
    cores: (b.cpuSeconds - a.cpuSeconds) / ((b.at - a.at) / 1000),
    background,
    tasks: Object.fromEntries(tasks.map((x) => [x.task, { count: x.count, meanMs: (1000 * x.sum) / x.count }])),
    storeMemoryMiB: (b.memoryBytes.get('store') ?? 0) / 2 ** 20,
    compactionMemoryMiB: (b.memoryBytes.get('compaction') ?? 0) / 2 ** 20,
    partsWaiting: b.partsWaiting,
  };
}

export function whereLine(w: Where): string {
  const jobs = Object.entries(w.background)
    .filter(([, s]) => s >= 0.05)
    .sort((x, y) => y[1] - x[1])
    .map(([job, s]) => `${job} ${s.toFixed(1)}`)
    .join(', ');
  const tasks = Object.entries(w.tasks)
    .map(([task, t]) => `${task} ${t.count} × ${t.meanMs.toFixed(0)}`)
    .join(', ');
  return [
    `  where: CPU ${w.cores.toFixed(2)} cores`,
    `background s ${jobs || '–'}`,
    `store tasks (n × mean ms) ${tasks || '–'}`,
    `DuckDB MiB store ${w.storeMemoryMiB.toFixed(0)} compaction ${w.compactionMemoryMiB.toFixed(0)}`,
    `parts waiting ${w.partsWaiting.toLocaleString('en-US')}`,
  ].join(' · ');
}
