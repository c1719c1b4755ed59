/**
 * A process as /proc tells it: its CPU by thread (`threads`, `idle`) or in all (`start`), its minor
 * page faults (`threads`), its memory (`rss`, `ingest`, `threads`).
 */
import { readdirSync, readFileSync } from 'node:fs';

/** A /proc `stat` line's name, CPU seconds (user + system, and system alone) and minor page faults. */
function parseStat(stat: string): { name: string; cpu: number; sys: number; minorFaults: number } {
  const f = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return {
    name: stat.slice(stat.indexOf('(') + 1, stat.lastIndexOf(')')),
    cpu: (Number(f[11]) + Number(f[12])) / 100,
    sys: Number(f[12]) / 100,
    minorFaults: Number(f[7]),
  };
}

/** CPU seconds (user + system) of process `pid`, all its threads, ended ones included. */
export function processCpu(pid: number): number {
  return parseStat(readFileSync(`/proc/${pid}/stat`, 'utf8')).cpu;
}

/** Minor page faults of process `pid` so far, all its threads, ended ones included. */
export function processMinorFaults(pid: number): number {
  return parseStat(readFileSync(`/proc/${pid}/stat`, 'utf8')).minorFaults;
}

/** CPU seconds (user + system) of each thread of `pid`, by thread id, with the thread's name. */
export function threadTimes(pid: number): Map<number, { name: string; cpu: number; sys: number; minorFaults: number }> {
  const out = new Map<number, { name: string; cpu: number; sys: number; minorFaults: number }>();
  for (const tid of readdirSync(`/proc/${pid}/task`)) {
    try {
      out.set(Number(tid), parseStat(readFileSync(`/proc/${pid}/task/${tid}/stat`, 'utf8')));
    } catch {
      // The thread ended meanwhile.
    }
  }
  return out;
}

/** A field of /proc/<pid>/status in MiB (VmRSS: resident now; VmHWM: the high-water mark). */
export function memoryMiB(pid: number, field: 'VmRSS' | 'VmHWM'): number {
  return Number(new RegExp(`${field}:\\s+(\\d+)`).exec(readFileSync(`/proc/${pid}/status`, 'utf8'))![1]) / 1024;
}
