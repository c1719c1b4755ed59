/**
 * Server builds measured turn by turn (`idle`, `start`): this build, and with `--baseline <checkout>`
 * that one's server, each round in the other order, so a drift of the machine falls on both.
 */
import { join } from 'node:path';

/** The builds' names and server entry points: the baseline first when there is one. */
export function serverBuilds(baseline: string): [string, string][] {
  const builds: [string, string][] = [['this build', new URL('../src/main.js', import.meta.url).pathname]];
  if (baseline) builds.unshift(['baseline', join(baseline, 'dist', 'src', 'main.js')]);
  return builds;
}

/** Runs `measure` for every build, `rounds` times, the order flipped each round; the results by build name. */
export async function alternating<T>(
  builds: [string, string][],
  rounds: number,
  measure: (main: string, name: string, round: number) => Promise<T>,
): Promise<Map<string, T[]>> {
  const seen = new Map<string, T[]>(builds.map(([name]) => [name, []]));
  for (let round = 0; round < rounds; round++) {
    for (const [name, main] of round % 2 ? [...builds].reverse() : builds)
      seen.get(name)!.push(await measure(main, name, round));
  }
  return seen;
}

export const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[xs.length >> 1]!;

/** A start measured: wall time to the `listening` line, and the process's CPU by then. */
export interface StartSeen {
  readyMs: number;
  cpuMs: number;
}

/** Prints each build's median start, with ratios to the baseline's when there is one. */
export function printStarts(title: string, builds: [string, string][], seen: Map<string, StartSeen[]>): void {
  console.log(title);
  const medianOf = (name: string, k: keyof StartSeen) => median(seen.get(name)!.map((s) => s[k]));
  const hasBaseline = seen.has('baseline');
  for (const [name] of builds) {
    const ratio = (k: keyof StartSeen) =>
      hasBaseline && name === 'this build' ? ` (${(medianOf(name, k) / medianOf('baseline', k)).toFixed(2)}×)` : '';
    console.log(
      `  ${name.padEnd(10)} listening after ${medianOf(name, 'readyMs').toFixed(0)} ms${ratio('readyMs')}, ${medianOf(name, 'cpuMs').toFixed(0)} ms of CPU by then${ratio('cpuMs')}`,
    );
  }
}
