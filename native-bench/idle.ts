/**
 * native-bench/idle: what an idle server costs — the CPU a second of each thread of a fresh server
 * that nobody talks to (/proc's per-thread times over `--seconds`, after `--settle` seconds for the
 * start's own tail: the module loader's leftovers, V8's memory reducer). With `--baseline <checkout>`
 * that build's server takes turns with this one's, `--rounds` times, and the ratios are printed
 * (the reference is the baseline). The main thread is the HTTP thread; the others have only the
 * kernel's ids.
 *
 *   npm run build && node dist/native-bench/idle.js [--seconds 20] [--settle 15] [--rounds 3] [--baseline /path/to/built/checkout]
 */
import { startServer } from '../test/helpers/server.js';
import { alternating, median, serverBuilds } from './alternating.js';
import { arg, textArg } from './args.js';
import { threadTimes } from './procThreads.js';

const SECONDS = arg('seconds', 20);
const SETTLE = arg('settle', 15);
const ROUNDS = arg('rounds', 3);
const BASELINE = textArg('baseline', '');

const sleep = (s: number) => new Promise((r) => setTimeout(r, s * 1000));

/** One idle window of a build's server: CPU ms a second, of all its threads and of the main one. */
async function idleWindow(main: string): Promise<{ total: number; main: number }> {
  const server = await startServer({
    args: ['--workers', '1', '--duckdb-threads', '2', '--duckdb-memory', '1GiB'],
    main,
  });
  try {
    const pid = server.child.pid!;
    await sleep(SETTLE);
    const before = threadTimes(pid);
    await sleep(SECONDS);
    const after = threadTimes(pid);
    /** Milliseconds of CPU a second of thread `tid` over the window. */
    const rate = (tid: number) => ((after.get(tid)!.cpu - (before.get(tid)?.cpu ?? 0)) * 1000) / SECONDS;
    return { total: [...after.keys()].reduce((n, tid) => n + rate(tid), 0), main: rate(pid) };
  } finally {
    await server.stop();
  }
}

const builds = serverBuilds(BASELINE);
const seen = await alternating(builds, ROUNDS, async (main, name, round) => {
  const w = await idleWindow(main);
  console.log(`  round ${round + 1} ${name}: ${w.total.toFixed(1)} ms/s, main thread ${w.main.toFixed(1)}`);
  return w;
});
console.log(`an idle server's CPU, ${SECONDS} s after ${SETTLE} s, medians of ${ROUNDS} (ms of CPU a second)`);
const medianOf = (name: string, k: 'total' | 'main') => median(seen.get(name)!.map((w) => w[k]));
for (const [name] of builds) {
  const ratio = (k: 'total' | 'main') =>
    BASELINE && name === 'this build' ? ` (${(medianOf(name, k) / medianOf('baseline', k)).toFixed(2)}×)` : '';
  console.log(
    `  ${name.padEnd(10)} all threads ${medianOf(name, 'total').toFixed(1)}${ratio('total')}, main thread ${medianOf(name, 'main').toFixed(1)}${ratio('main')}`,
  );
}
