/**
 * native-bench/workers/agentStart: what starting and ending an agent costs the worker (`runAgent`,
 * src/worker/agentProcess.ts) for a command that does nothing (`true`): the spawn, the pipes, the
 * group's stop, and the guard that stops the group if the worker dies first. With `--baseline
 * <checkout>` that build's `runAgent` runs in the same process, start by start alternating, and the
 * ratio is printed (the reference is the baseline).
 *
 *   npm run build && node dist/native-bench/workers/agentStart.js [--starts 200] [--baseline /path/to/built/checkout]
 */
import { arg, buildModule, textArg } from '../args.js';

const STARTS = arg('starts', 200);
const BASELINE = textArg('baseline', '');

type RunAgent = typeof import('../../src/worker/agentProcess.js').runAgent;
const load = async (root: string) =>
  ((await import(buildModule(root, 'src/worker/agentProcess.js'))) as { runAgent: RunAgent }).runAgent;
const builds: [string, RunAgent][] = [['this build', await load('')]];
if (BASELINE) builds.unshift(['baseline', await load(BASELINE)]);

const spec = {
  argv: ['true'],
  cwd: process.cwd(),
  env: {},
  prompt: '',
  timeoutMs: 10_000,
  maxOutputBytes: 1 << 20,
  maxLineChars: 1000,
  onLine() {},
};
const times = new Map<string, number[]>(builds.map(([name]) => [name, []]));
// A warm-up pass, then the timed one; the builds take turns at going first.
for (let pass = 0; pass < 2; pass++) {
  for (let i = 0; i < STARTS; i++) {
    for (const [name, runAgent] of i % 2 ? [...builds].reverse() : builds) {
      const started = performance.now();
      const exit = await runAgent(spec).exited;
      if (exit.code !== 0) throw new Error(`${name}: \`true\` ended ${JSON.stringify(exit)}`);
      if (pass === 1) times.get(name)!.push(performance.now() - started);
    }
  }
}
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[xs.length >> 1]!;
console.log(`an agent started and ended (\`true\`), ${STARTS} starts each (median ms)`);
console.log(
  '  ' +
    builds.map(([name]) => `${name} ${median(times.get(name)!).toFixed(2)}`).join(', ') +
    (BASELINE ? `; ratio ${(median(times.get('this build')!) / median(times.get('baseline')!)).toFixed(2)}×` : ''),
);
