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
