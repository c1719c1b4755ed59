/**
 * Integration (Linux): the acknowledgement path runs first. With the default `--background-nice 5`
 * every thread of the server but the main thread and the ingest log's sync thread runs at nice 5 —
 * threads that start later included (the sweep runs every second); with 0 none is lowered.
 */
import { readdirSync, readFileSync } from 'node:fs';
import t from 'tap';
import { exportRequest, hex } from '../helpers/otlp.js';
import { call, rootCredentials, serverFor, type TestServer } from '../helpers/server.js';

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
  const r = await call(server, 'POST', '/v1/traces', { rawBody: JSON.stringify(exportRequest([{ traceId: hex(16) }])), headers: { authorization: root.key, 'x-service-app-id': root.appId, 'content-type': 'application/json', 'x-tracelake-wait': 'visible' } });
  if (r.status !== 200) throw new Error(`ingest answered ${r.status}`);
}

t.test('by default, every thread but the main thread and the log sync thread at nice 5', { skip: process.platform !== 'linux' && 'Linux only' }, async (t) => {
  const server = await serverFor(t);
  await ingestOnce(server);
  const pid = server.child.pid!;
  // Lowered by a sweep every second: wait for the state, not for a clock.
  const deadline = Date.now() + 10_000;
  let kept: number[] = [];
  for (;;) {
    const nice = niceness(pid);
    kept = [...nice].filter(([tid, n]) => n === 0 && tid !== pid).map(([tid]) => tid);
    const lowered = [...nice].filter(([, n]) => n === 5).length;
    if ((kept.length === 1 && lowered + 2 === nice.size) || Date.now() > deadline) {
      t.equal(nice.get(pid), 0, 'the main thread keeps the priority');
      t.equal(kept.length, 1, 'and one other thread (the log sync thread)');
      t.equal(lowered + 2, nice.size, `the ${lowered} others run at nice 5`);
      break;
    }
    await new Promise((r) => setTimeout(r, 100));
  }
});

t.test('--background-nice 0 lowers no thread', { skip: process.platform !== 'linux' && 'Linux only' }, async (t) => {
  const server = await serverFor(t, { args: ['--background-nice', '0'] });
  await ingestOnce(server);
  await new Promise((r) => setTimeout(r, 1500)); // a sweep would have run: nothing may have changed
  const nice = niceness(server.child.pid!);
  t.same([...nice.values()].filter((n) => n !== 0), [], `all ${nice.size} threads at nice 0`);
});
