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
import { join } from 'node:path';
import { startServer } from '../test/helpers/server.js';
import { arg, textArg } from './args.js';
import { threadTimes } from './procThreads.js';

const SECONDS = arg('seconds', 20);
const SETTLE = arg('settle', 15);
const ROUNDS = arg('rounds', 3);
const BASELINE = textArg('baseline', '');

const sleep = (s: number) => new Promise((r) => setTimeout(r, s * 1000));

/** One idle window of a build's server: CPU ms a second, of all its threads and of the main one. */
async function idleWindow(main: string): Promise<{ total: number; main: number }> {
  const server = await startServer({ args: ['--workers', '1', '--duckdb-threads', '2', '--duckdb-memory', '1GiB'], main });
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

const builds: [string, string][] = [['this build', new URL('../src/main.js', import.meta.url).pathname]];
if (BASELINE) builds.unshift(['baseline', join(BASELINE, 'dist', 'src', 'main.js')]);
const seen = new Map<string, { total: number[]; main: number[] }>(builds.map(([name]) => [name, { total: [], main: [] }]));
for (let round = 0; round < ROUNDS; round++) {
  for (const [name, main] of round % 2 ? [...builds].reverse() : builds) {
    const w = await idleWindow(main);
    seen.get(name)!.total.push(w.total);
    seen.get(name)!.main.push(w.main);
    console.log(`  round ${round + 1} ${name}: ${w.total.toFixed(1)} ms/s, main thread ${w.main.toFixed(1)}`);
  }
}
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[xs.length >> 1]!;
console.log(`an idle server's CPU, ${SECONDS} s after ${SETTLE} s, medians of ${ROUNDS} (ms of CPU a second)`);
for (const [name] of builds) {
  const s = seen.get(name)!;
  const ratio = (k: 'total' | 'main') => (BASELINE && name === 'this build' ? ` (${(median(s[k]) / median(seen.get('baseline')![k])).toFixed(2)}×)` : '');
  console.log(`  ${name.padEnd(10)} all threads ${median(s.total).toFixed(1)}${ratio('total')}, main thread ${median(s.main).toFixed(1)}${ratio('main')}`);
}
