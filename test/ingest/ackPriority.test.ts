/**
 * Integration (Linux): the acknowledgement path runs first. With the default `--background-nice 5`
 * every thread of the server but the main thread, the ingest log's sync thread and Node's platform
 * threads (V8's pool, which does the main thread's concurrent GC) runs at nice 5 —
 * threads that start later included (the sweep runs every second); with 0 none is lowered. The
 * tests wait for sweeps through the operations metrics, never for a clock.
 */
import { readdirSync, readFileSync } from 'node:fs';
import t from 'tap';
import { hex } from '../helpers/otlp.js';
import { opsMetric } from '../helpers/opsMetrics.js';
import { rootCredentials, serverFor, type TestServer } from '../helpers/server.js';
import { until } from '../helpers/until.js';
import { exportSpans } from '../helpers/exportSpans.js';

/** The nice value of each of the process's threads, by thread id. */
function niceness(pid: number): Map<number, number> {
  const out = new Map<number, number>();
  for (const tid of readdirSync(`/proc/${pid}/task`)) {
    try {
      const stat = readFileSync(`/proc/${pid}/task/${tid}/stat`, 'utf8');
      out.set(Number(tid), Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[16]));
    } catch {
      // The thread ended meanwhile.
    }
  }
  return out;
}

/** Sends an export, so the threads that start with the first ingestion (libuv's pool) exist. */
async function ingestOnce(server: TestServer): Promise<void> {
  const root = rootCredentials(server);
  const r = await exportSpans(server, root, [{ traceId: hex(16) }]);
  if (r.status !== 200) throw new Error(`ingest answered ${r.status}`);
}

/**
 * Waits for a sweep that started after this call: the sweep runs on the main thread in one go, as
 * does the scrape, so a count above the one read now belongs to a sweep begun after it.
 */
async function nextSweep(server: TestServer): Promise<void> {
  const before = await opsMetric(server, 'tracelake_priority_sweeps_total');
  if (!(await until(async () => (await opsMetric(server, 'tracelake_priority_sweeps_total')) > before)))
    throw new Error('no priority sweep came');
}

t.test(
  'by default, every thread but the main, log sync and platform threads at nice 5',
  { skip: process.platform !== 'linux' && 'Linux only' },
  async (t) => {
    const server = await serverFor(t, { args: ['--metrics-listen', 'api'] });
    const platform = (
      (await server.waitForLog((l) => l.msg.startsWith('background threads:'))).platform_threads as number[]
    ).slice();
    await ingestOnce(server);
    const pid = server.child.pid!;
    const started = [...niceness(pid).keys()].filter((tid) => tid !== pid).sort((a, b) => a - b);
    t.equal(
      platform.length,
      6,
      "Node's platform: V8's pool of 4, its delayed-task thread, the inspector's signal thread",
    );
    t.same(platform, started.slice(0, 6), 'the first threads the process created');
    // V8 and libuv may start a thread between a sweep and the look at /proc: the next sweep lowers it.
    let nice = niceness(pid);
    for (let sweeps = 0; sweeps < 5; sweeps++) {
      await nextSweep(server);
      nice = niceness(pid);
      if ([...nice.values()].filter((n) => n === 0).length === 2 + platform.length) break;
    }
    const kept = [...nice].filter(([tid, n]) => n === 0 && tid !== pid && !platform.includes(tid)).map(([tid]) => tid);
    const lowered = [...nice].filter(([, n]) => n === 5).length;
    t.equal(nice.get(pid), 0, 'the main thread keeps the priority');
    t.same(
      platform.map((tid) => nice.get(tid)),
      platform.map(() => 0),
      'so do the platform threads',
    );
    t.equal(kept.length, 1, 'and one other thread (the log sync thread)');
    t.equal(lowered + 2 + platform.length, nice.size, `the ${lowered} others run at nice 5`);
    t.ok(
      (await opsMetric(server, 'tracelake_background_threads_lowered')) >= lowered,
      'the metrics count the lowered threads',
    );
  },
);

t.test('--background-nice 0 lowers no thread', { skip: process.platform !== 'linux' && 'Linux only' }, async (t) => {
  const server = await serverFor(t, { args: ['--background-nice', '0', '--metrics-listen', 'api'] });
  await ingestOnce(server);
  await nextSweep(server);
  const nice = niceness(server.child.pid!);
  t.same(
    [...nice.values()].filter((n) => n !== 0),
    [],
    `all ${nice.size} threads at nice 0 after a sweep`,
  );
  t.equal(await opsMetric(server, 'tracelake_background_threads_lowered'), 0, 'and the metrics say so');
});
