import { readFileSync } from 'node:fs';

/** Peak resident set of a live process (VmHWM of /proc/<pid>/status), in MiB. */
export function peakRssMiB(pid: number): number {
  const kb = Number(/VmHWM:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))![1]);
  return kb / 1024;
}
