/**
 * native-bench/workers/endTurn: what a long turn costs everyone else. A worker posts its agent
 * events in batches, each checked against the session contract before it is stored, and its
 * `complete` traces the run before it answers (the run's agent events become a coding-agent session
 * trace); whatever part of either runs on the HTTP thread holds every other request behind it. Each
 * round a fresh run gets `--events` agent events (in batches of 1,000, the contract's maximum) and
 * is completed, while a probe sends `GET /health` one after another; the figures are the posts and
 * the `complete` themselves and the probe's longest wait during each, against the probe's median
 * wait while idle (the reference, in the same run), and for the posts the probe's waiting beyond
 * that median, summed over them, a post: how long a post keeps the HTTP thread (or, on 2 cores,
 * the CPU) from other requests. With `--baseline <checkout>` that build's server is measured too,
 * round by round alternating with this build's, and the ratios are printed.
 *
 *   npm run build && node dist/native-bench/workers/endTurn.js [--events 15000] [--rounds 5] [--baseline /path/to/built/checkout]
 */
import { join } from 'node:path';
import { workingRepo } from '../../test/helpers/git.js';
import { startServer, tempDir, type TestServer } from '../../test/helpers/server.js';
import { arg, buildModule, textArg } from '../args.js';

const EVENTS = arg('events', 15_000);
const ROUNDS = arg('rounds', 5);
const BASELINE = textArg('baseline', '');
const BATCH = 1000;
const KEY = 'sk_service_' + 'Workers'.repeat(6);

interface Build {
  name: string;
  server: TestServer;
  api: (path: string, body?: unknown) => Promise<Record<string, any>>;
  /** Per round: the posts and the complete, the probe's longest wait during each, its median wait idle (ms). */
  posts: number[];
  postStall: number[];
  /** The probe's waiting beyond its idle median during the posts, summed, a post. */
  postHeld: number[];
  complete: number[];
  stall: number[];
  idle: number[];
}

async function start(name: string, root: string): Promise<Build> {
  const dir = tempDir('tracelake-endturn-bench-');
  workingRepo(join(dir, 'git', 'acme', 'shop'), { 'README.md': '# Shop\n' });
  const main = root ? new URL(buildModule(root, 'src/main.js'), 'file://').pathname : undefined;
  const server = await startServer({
    dataDir: join(dir, 'data'),
    env: { TRACELAKE_BOOTSTRAP_KEY: KEY },
    args: ['--git-root', join(dir, 'git'), '--workers', '2'],
    ...(main ? { main } : {}),
  });
  const appId = server.bootstrap!.app_id as string;
  const headers = { authorization: `Bearer ${KEY}`, 'x-service-app-id': appId, 'content-type': 'application/json' };
  const api = async (path: string, body?: unknown) => {
    const r = await fetch(server.url + path, {
      method: 'POST',
      headers,
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
    if (r.status >= 300) throw new Error(`${name} ${path} answered ${r.status}: ${await r.text()}`);
    return ((await r.json()) as { data: Record<string, any> }).data;
  };
  await api(`/v1/apps/${appId}/git/connect`, { provider: 'local', repository: 'acme/shop' });
  return { name, server, api, posts: [], postStall: [], postHeld: [], complete: [], stall: [], idle: [] };
}

/** `GET /health` one after another until `stop` resolves; the wait of each, in ms. */
async function probe(url: string, stop: Promise<unknown>): Promise<number[]> {
  let done = false;
  const end = () => (done = true);
  stop.then(end, end);
  const waits: number[] = [];
  while (!done) {
    const t0 = performance.now();
    await (await fetch(url + '/health')).arrayBuffer();
    waits.push(performance.now() - t0);
  }
  return waits;
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[xs.length >> 1]!;

/** A run with EVENTS agent events in its one turn, completed under the probe. */
async function round(b: Build, r: number): Promise<void> {
  const run = await b.api('/v1/workers/runs', { task_prompt: `bench round ${r}`, profile: 'bench' });
  const claim = await b.api('/v1/workers/claim', { worker: 'bench', profiles: ['bench'] });
  if (claim.run?.id !== run.id) throw new Error(`${b.name}: claimed ${String(claim.run?.id)}, not ${String(run.id)}`);
  const at = new Date().toISOString();
  const batches = Array.from({ length: Math.ceil(EVENTS / BATCH) }, (_, k) =>
    Array.from({ length: Math.min(BATCH, EVENTS - k * BATCH) }, (_, i) => {
      const seq = k * BATCH + i;
      return {
        seq,
        at,
        kind: 'agent',
        event: {
          type: 'assistant_message',
          model: 'gpt-4o',
          content: [{ type: 'text', text: `${'x'.repeat(100)} ${seq}` }],
          usage: { inputTokens: 1200, outputTokens: 300 },
        },
      };
    }),
  );
  const idle = median(await probe(b.server.url, new Promise((resolve) => setTimeout(resolve, 300))));
  const p0 = performance.now();
  const posted = (async () => {
    for (const events of batches) await b.api(`/v1/workers/leases/${claim.lease_id as string}/events`, { events });
    b.posts.push(performance.now() - p0);
  })();
  const during = await probe(b.server.url, posted);
  await posted;
  b.postStall.push(Math.max(...during));
  b.postHeld.push(during.reduce((sum, w) => sum + Math.max(0, w - idle), 0) / batches.length);
  const t0 = performance.now();
  const completed = b.api(`/v1/workers/leases/${claim.lease_id as string}/complete`, {
    status: 'succeeded',
    reason: 'exit',
    exit_code: 0,
  });
  const waits = await probe(
    b.server.url,
    completed.then(() => {
      b.complete.push(performance.now() - t0);
    }),
  );
  const turn = await completed;
  if (turn.status !== 'succeeded') throw new Error(`${b.name}: the turn ended ${String(turn.status)}`);
  b.stall.push(Math.max(...waits));
  b.idle.push(idle);
}

const builds: Build[] = [await start('this build', '')];
if (BASELINE) builds.unshift(await start('baseline', BASELINE));
try {
  // A warm-up round, then the timed ones; the builds take turns at going first.
  for (const b of builds) await round(b, -1);
  for (const b of builds)
    b.posts.length = b.postStall.length = b.postHeld.length = b.complete.length = b.stall.length = b.idle.length = 0;
  for (let r = 0; r < ROUNDS; r++) for (const b of r % 2 ? [...builds].reverse() : builds) await round(b, r);
} finally {
  await Promise.all(builds.map((b) => b.server.stop()));
}
const fmt = (v: number) => v.toFixed(1);
console.log(`a turn of ${EVENTS.toLocaleString('en-US')} agent events completed, ${ROUNDS} rounds (median ms)`);
for (const b of builds) {
  const idle = median(b.idle);
  console.log(`  ${b.name}: /health idle ${idle.toFixed(2)}`);
  console.log(
    `    the posts (${EVENTS / BATCH} of ${BATCH}) ${fmt(median(b.posts))}; /health's longest wait during them ${fmt(median(b.postStall))} (${fmt(median(b.postStall) / idle)}×), its waiting beyond idle ${fmt(median(b.postHeld))} a post`,
  );
  console.log(
    `    complete ${fmt(median(b.complete))}; /health's longest wait during it ${fmt(median(b.stall))} (${fmt(median(b.stall) / idle)}×)`,
  );
}
if (BASELINE) {
  const [base, ours] = builds as [Build, Build];
  const ratio = (k: 'posts' | 'postStall' | 'postHeld' | 'complete' | 'stall') =>
    `${(median(ours[k]) / median(base[k])).toFixed(2)}×`;
  console.log(
    `  ratio to the baseline: the posts ${ratio('posts')}, longest wait during them ${ratio('postStall')}, waiting beyond idle ${ratio('postHeld')}; complete ${ratio('complete')}, longest wait during it ${ratio('stall')}`,
  );
}
