/**
 * native-bench/restart: how long a server killed with SIGKILL takes to listen again on a large
 * store (issue 53's budget: 3 s to `listening` at 10M spans). A synthetic store of `--spans` spans
 * is written once (its segments all recent, as after a burst of ingest); each build then restarts on
 * its own copy, `--rounds` times, taking turns, each start ended by SIGKILL. The CPU its process used
 * by `listening` is printed beside the wall time. With `--baseline <checkout>`, ratios to that build.
 *
 *   npm run build && node dist/native-bench/restart.js [--spans 10000000] [--rounds 5] [--baseline /path/to/built/checkout]
 */
import { copyOfStore, startServer } from '../test/helpers/server.js';
import { alternating, printStarts, serverBuilds } from './alternating.js';
import { arg, textArg } from './args.js';
import { processCpu } from './procThreads.js';
import { syntheticStore } from './syntheticStore.js';

const SPANS = arg('spans', 10_000_000);
const ROUNDS = arg('rounds', 5);
const BASELINE = textArg('baseline', '');
const KEY = 'sk_service_' + 'Restart'.repeat(6);

const store = await syntheticStore('restart', KEY, SPANS);
const builds = serverBuilds(BASELINE);
const copies = new Map(builds.map(([name]) => [name, copyOfStore(store.dataDir)]));

async function oneRestart(main: string, name: string): Promise<{ readyMs: number; cpuMs: number }> {
  const t0 = performance.now();
  const server = await startServer({ main, dataDir: copies.get(name)!, startTimeoutMs: 120_000 });
  const readyMs = performance.now() - t0;
  const cpuMs = processCpu(server.child.pid!) * 1000;
  await server.stop('SIGKILL');
  return { readyMs, cpuMs };
}

// The first start after the load migrates nothing but warms the page cache: not counted.
for (const [name, main] of builds) await oneRestart(main, name);
const seen = await alternating(builds, ROUNDS, oneRestart);
printStarts(
  `a restart after SIGKILL on a store of ${SPANS.toLocaleString('en-US')} spans, medians of ${ROUNDS}`,
  builds,
  seen,
);
process.exit(0);
