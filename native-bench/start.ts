/**
 * native-bench/start: what a server's start costs — the wall time from spawn to its `listening`
 * line and the CPU its process (every thread) used by then, on a fresh data directory (the
 * migrations run) with the test suite's settings. The suite starts a few hundred servers, and an
 * operator's restart waits for this. With `--baseline <checkout>` that build's server takes turns
 * with this one's, `--rounds` times, and the ratios are printed (the reference is the baseline).
 *
 *   npm run build && node dist/native-bench/start.js [--rounds 10] [--baseline /path/to/built/checkout]
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { startServer } from '../test/helpers/server.js';
import { arg, textArg } from './args.js';

const ROUNDS = arg('rounds', 10);
const BASELINE = textArg('baseline', '');

/** CPU seconds (user + system) of process `pid`, all its threads, ended ones included. */
function processCpu(pid: number): number {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  const f = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return (Number(f[11]) + Number(f[12])) / 100;
}

async function oneStart(main: string): Promise<{ readyMs: number; cpuMs: number }> {
  const t0 = performance.now();
  const server = await startServer({ main });
  const readyMs = performance.now() - t0;
  const cpuMs = processCpu(server.child.pid!) * 1000;
  await server.stop();
  return { readyMs, cpuMs };
}

const builds: [string, string][] = [['this build', new URL('../src/main.js', import.meta.url).pathname]];
if (BASELINE) builds.unshift(['baseline', join(BASELINE, 'dist', 'src', 'main.js')]);
const seen = new Map<string, { readyMs: number[]; cpuMs: number[] }>(builds.map(([name]) => [name, { readyMs: [], cpuMs: [] }]));
for (let round = 0; round < ROUNDS; round++) {
  for (const [name, main] of round % 2 ? [...builds].reverse() : builds) {
    const s = await oneStart(main);
    seen.get(name)!.readyMs.push(s.readyMs);
    seen.get(name)!.cpuMs.push(s.cpuMs);
  }
}
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[xs.length >> 1]!;
console.log(`a server's start on a fresh data directory, medians of ${ROUNDS}`);
for (const [name] of builds) {
  const s = seen.get(name)!;
  const ratio = (k: 'readyMs' | 'cpuMs') => (BASELINE && name === 'this build' ? ` (${(median(s[k]) / median(seen.get('baseline')![k])).toFixed(2)}×)` : '');
  console.log(`  ${name.padEnd(10)} listening after ${median(s.readyMs).toFixed(0)} ms${ratio('readyMs')}, ${median(s.cpuMs).toFixed(0)} ms of CPU by then${ratio('cpuMs')}`);
}
