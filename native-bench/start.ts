/**
 * native-bench/start: what a server's start costs — the wall time from spawn to its `listening`
 * line and the CPU its process (every thread) used by then, on a fresh data directory (the
 * migrations run) with the test suite's settings. The suite starts a few hundred servers, and an
 * operator's restart waits for this. With `--baseline <checkout>` that build's server takes turns
 * with this one's, `--rounds` times, and the ratios are printed (the reference is the baseline).
 *
 *   npm run build && node dist/native-bench/start.js [--rounds 10] [--baseline /path/to/built/checkout]
 */
import { startServer } from '../test/helpers/server.js';
import { alternating, printStarts, serverBuilds } from './alternating.js';
import { arg, textArg } from './args.js';
import { processCpu } from './procThreads.js';

const ROUNDS = arg('rounds', 10);
const BASELINE = textArg('baseline', '');

async function oneStart(main: string): Promise<{ readyMs: number; cpuMs: number }> {
  const t0 = performance.now();
  const server = await startServer({ main });
  const readyMs = performance.now() - t0;
  const cpuMs = processCpu(server.child.pid!) * 1000;
  await server.stop();
  return { readyMs, cpuMs };
}

const builds = serverBuilds(BASELINE);
const seen = await alternating(builds, ROUNDS, (main) => oneStart(main));
printStarts(`a server's start on a fresh data directory, medians of ${ROUNDS}`, builds, seen);
