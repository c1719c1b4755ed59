/**
 * A command line for a process a test starts (a server, the CLI, a worker) that runs it without the
 * test runner's hook, and that dies with the test process. tap loads `@tapjs/processinfo` into the test process, and it puts
 * `--import=…processinfo…` into the NODE_OPTIONS of every process spawned from there, whatever
 * environment the spawn is given — so every server, and each of its threads, loaded the hook too:
 * a server took 4.9 s of CPU to start instead of 2.6 (2 cores), and the suite starts
 * hundreds. What the hook records there is never used: only the pure modules' unit tests count for
 * coverage, and they start no process (test/coverage-map.mjs).
 *
 * So the command runs through env(1), which drops NODE_OPTIONS after the hook has put it back and
 * gives the program the rest of it; env execs the program, so the pid is the program's. env is
 * named by its path: a test may give the child a PATH without /usr/bin (a worker without sh).
 *
 * And through setpriv(1) (util-linux), which asks the kernel to kill the child when the test
 * process ends (`--pdeathsig`, kept across the execs): a test process that dies without its exit
 * handlers — tap's timeout, a kill, a crash — left its servers running for good (four were found an
 * hour later, each with its threads awake), on a machine whose two cores the suite needs.
 */
const RUNNER_HOOK = /"?--import=[^"\s]*@tapjs\/processinfo[^"\s]*"?/g;
const SETPRIV = '/usr/bin/setpriv';

export function unhooked(
  command: string,
  args: readonly string[],
  env: NodeJS.ProcessEnv = process.env,
): [string, string[]] {
  const options = (env.NODE_OPTIONS ?? '').replace(RUNNER_HOOK, '').trim();
  return [
    SETPRIV,
    [
      '--pdeathsig',
      'KILL',
      '/usr/bin/env',
      '-u',
      'NODE_OPTIONS',
      ...(options ? [`NODE_OPTIONS=${options}`] : []),
      command,
      ...args,
    ],
  ];
}
