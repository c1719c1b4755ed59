/**
 * Where the server's time and memory went in a minute of the soak (soak.ts): its CPU (all threads,
 * /proc), the store thread's background jobs and its tasks (the operations metrics, queueing
 * included), DuckDB's memory by instance and tag, the summary parts waiting to be merged — one scrape a reading.
 */
import type { TestServer } from '../test/helpers/server.js';
import { processCpu } from './procThreads.js';
import { histogramsIn, metricsText, seriesIn } from './serverMetrics.js';

export interface ServerReading {
  /** performance.now() when read. */
  at: number;
  cpuSeconds: number;
  backgroundSeconds: Map<string, number>;
  tasks: Map<string, { count: number; sum: number }>;
  /** DuckDB's memory by instance, then tag. */
  memoryBytes: Record<string, Record<string, number>>;
  partsWaiting: number;
}

export async function readServer(server: TestServer, pid: number): Promise<ServerReading> {
  const text = await metricsText(server);
  const background = seriesIn(text, 'tracelake_background_seconds_total');
  const tasks = histogramsIn(text, 'tracelake_store_task_duration_seconds', 'task', '0.25');
  const memory = seriesIn(text, 'tracelake_duckdb_memory_bytes');
  const parts = seriesIn(text, 'tracelake_summary_parts_waiting');
  const memoryBytes: Record<string, Record<string, number>> = {};
  for (const { labels, value } of memory) (memoryBytes[labels.instance!] ??= {})[labels.tag!] = value;
  return {
    at: performance.now(),
    cpuSeconds: processCpu(pid),
    backgroundSeconds: new Map(background.map((s) => [s.labels.job!, s.value])),
    tasks,
    memoryBytes,
    partsWaiting: parts[0]?.value ?? 0,
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
  /** DuckDB's memory by instance: MiB in all, and the tags holding the most. */
  memory: Record<string, { mib: number; top: Record<string, number> }>;
  partsWaiting: number;
}

const TOP_TASKS = 5;
const TOP_TAGS = 3;

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
    memory: Object.fromEntries(
      Object.entries(b.memoryBytes).map(([instance, tags]) => [
        instance,
        {
          mib: Object.values(tags).reduce((n, x) => n + x, 0) / 2 ** 20,
          top: Object.fromEntries(
            Object.entries(tags)
              .sort((x, y) => y[1] - x[1])
              .slice(0, TOP_TAGS)
              .map(([tag, bytes]) => [tag, bytes / 2 ** 20]),
          ),
        },
      ]),
    ),
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
    `DuckDB MiB ${
      Object.entries(w.memory)
        .map(
          ([instance, m]) =>
            `${instance} ${m.mib.toFixed(0)} (${Object.entries(m.top)
              .map(([tag, mib]) => `${tag} ${mib.toFixed(0)}`)
              .join(', ')})`,
        )
        .join(', ') || '–'
    }`,
    `parts waiting ${w.partsWaiting.toLocaleString('en-US')}`,
  ].join(' · ');
}
