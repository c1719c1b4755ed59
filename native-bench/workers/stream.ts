/**
 * native-bench/workers: what a live thread costs. A worker reports its turn's events in batches
 * (as `tracelake worker` does: up to 200 at a time); each batch is stored, then pushed to every
 * open stream of the run. Measured against a reference in the same run: the batch's own round trip
 * (the worker's POST until its answer), so the ratio is what the push adds on top of storing.
 *
 *   npm run build && node dist/native-bench/workers/stream.js [--batches 300] [--events 50] [--watchers 4]
 *
 * 1. A real server (child process, fresh data dir) with a `local` git repository connected.
 * 2. A run is launched and claimed with the bootstrap key (no agent: the bench is the reporting
 *    path), `--watchers` streams are opened on it.
 * 3. `--batches` batches of `--events` output lines are posted one after another; each watcher
 *    records when each batch arrives. Figures: events/s stored, the POST round trip (p50, p99),
 *    the delivery latency from the POST's start to the batch's arrival on a stream (p50, p99), and
 *    the end of the turn: complete (which traces the run before answering) for the whole thread.
 */
import { join } from 'node:path';
import { percentile } from '../loadClient.js';
import { workingRepo } from '../../test/helpers/git.js';
import { startServer, tempDir } from '../../test/helpers/server.js';
import { arg } from '../args.js';

const BATCHES = arg('batches', 300);
const EVENTS = arg('events', 50);
const WATCHERS = arg('watchers', 4);
const KEY = 'sk_service_' + 'Workers'.repeat(6);

const dir = tempDir('tracelake-workers-bench-');
workingRepo(join(dir, 'git', 'acme', 'shop'), { 'README.md': '# Shop\n' });
const server = await startServer({
  dataDir: join(dir, 'data'),
  env: { TRACELAKE_BOOTSTRAP_KEY: KEY },
  args: ['--git-root', join(dir, 'git')],
});
const appId = server.bootstrap!.app_id as string;
const headers = { authorization: `Bearer ${KEY}`, 'x-service-app-id': appId, 'content-type': 'application/json' };
const api = async (path: string, body?: unknown) => {
  const r = await fetch(server.url + path, {
    method: 'POST',
    headers,
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  if (r.status >= 300) throw new Error(`${path} answered ${r.status}: ${await r.text()}`);
  return ((await r.json()) as { data: Record<string, any> }).data;
};

await api(`/v1/apps/${appId}/git/connect`, { provider: 'local', repository: 'acme/shop' });
const run = await api('/v1/workers/runs', { task_prompt: 'bench', profile: 'bench' });
const claim = await api('/v1/workers/claim', { worker: 'bench', profiles: ['bench'] });
const lease = claim.lease_id as string;

/** When each batch (by its first seq) arrived, per watcher. */
const arrivals: Map<number, number>[] = [];
const aborts: AbortController[] = [];
await Promise.all(
  Array.from({ length: WATCHERS }, async () => {
    const seen = new Map<number, number>();
    arrivals.push(seen);
    const abort = new AbortController();
    aborts.push(abort);
    const res = await fetch(`${server.url}/v1/workers/runs/${run.id}/stream`, { headers, signal: abort.signal });
    const reader = res.body!.getReader();
    const decoder = new TextDecoder();
    let buffer = '';
    void (async () => {
      try {
        for (;;) {
          const { value, done } = await reader.read();
          if (done) return;
          buffer += decoder.decode(value, { stream: true });
          let end: number;
          while ((end = buffer.indexOf('\n\n')) >= 0) {
            const block = buffer.slice(0, end);
            buffer = buffer.slice(end + 2);
            if (!block.startsWith('event: events')) continue;
            const events = JSON.parse(block.slice(block.indexOf('data: ') + 6)) as { seq: number }[];
            seen.set(events[0]!.seq, performance.now());
          }
        }
      } catch {
        // closed at the end
      }
    })();
  }),
);

const sentAt = new Map<number, number>();
const roundTrips: number[] = [];
const line = 'x'.repeat(100);
const started = performance.now();
for (let b = 0; b < BATCHES; b++) {
  const first = b * EVENTS;
  const at = new Date().toISOString();
  const events = Array.from({ length: EVENTS }, (_, i) => ({
    seq: first + i,
    at,
    kind: 'stdout',
    text: `${line} ${first + i}`,
  }));
  const t0 = performance.now();
  sentAt.set(first, t0);
  await api(`/v1/workers/leases/${lease}/events`, { events });
  roundTrips.push(performance.now() - t0);
}
const elapsed = (performance.now() - started) / 1000;
// Every batch reaches every watcher (the last ones may still be on their way).
const deadline = Date.now() + 10_000;
while (arrivals.some((m) => m.size < BATCHES) && Date.now() < deadline) await new Promise((r) => setTimeout(r, 20));
const deliveries = arrivals.flatMap((m) => [...m].map(([seq, t]) => t - sentAt.get(seq)!));
const t1 = performance.now();
await api(`/v1/workers/leases/${lease}/complete`, { status: 'succeeded', reason: 'exit', exit_code: 0 });
const completeMs = performance.now() - t1;
for (const a of aborts) a.abort();

const sorted = (xs: number[]) => [...xs].sort((a, b) => a - b);
const rt = sorted(roundTrips);
const dl = sorted(deliveries);
const fmt = (v: number) => v.toFixed(2);
console.log(
  JSON.stringify({
    batches: BATCHES,
    events_per_batch: EVENTS,
    watchers: WATCHERS,
    delivered: `${deliveries.length} of ${BATCHES * WATCHERS}`,
  }),
);
console.log(
  `stored: ${Math.round((BATCHES * EVENTS) / elapsed)} events/s (${BATCHES} batches of ${EVENTS}, one at a time)`,
);
console.log(
  `reference, the batch's round trip: p50 ${fmt(percentile(rt, 0.5))} ms, p99 ${fmt(percentile(rt, 0.99))} ms`,
);
console.log(
  `delivery to ${WATCHERS} live streams:  p50 ${fmt(percentile(dl, 0.5))} ms, p99 ${fmt(percentile(dl, 0.99))} ms  (${fmt(percentile(dl, 0.5) / percentile(rt, 0.5))}× and ${fmt(percentile(dl, 0.99) / percentile(rt, 0.99))}× the round trip)`,
);
console.log(`complete (traces the run before answering): ${fmt(completeMs)} ms`);
await server.stop();
