/**
 * The threads of Node's platform among `tids` (the process's threads as its modules load): V8's
 * worker pool (`--v8-pool-size`, 4 by default, one a core with 0), the platform's delayed-task
 * thread and the inspector's signal thread. Node creates them before any script runs, right after
 * the main thread, so theirs are the lowest ids; libuv's pool starts later, as modules are read.
 * (Should thread ids wrap around during the start, a few other threads are taken for them: they
 * would then keep the process's priority, nothing worse.)
 */
export function platformThreads(
  tids: readonly number[],
  pid: number,
  execArgv: readonly string[],
  nodeOptions: string,
  cores: number,
): number[] {
  // node reads NODE_OPTIONS before the command line's options, which override it.
  const flag = [...nodeOptions.split(/\s+/), ...execArgv]
    .map((a) => /^--v8-pool-size=(\d+)$/.exec(a)?.[1])
    .filter((v) => v !== undefined)
    .pop();
  const pool = flag === undefined ? 4 : Number(flag) === 0 ? cores : Number(flag);
  return tids
    .filter((t) => t !== pid)
    .sort((a, b) => a - b)
    .slice(0, pool + 2);
}
