/** Per-thread CPU of a process from /proc, for the benches that look at a server by thread (`threads`, `idle`). */
import { readdirSync, readFileSync } from 'node:fs';

/** CPU seconds (user + system) of each thread of `pid`, by thread id, with the thread's name. */
export function threadTimes(pid: number): Map<number, { name: string; cpu: number; sys: number }> {
  const out = new Map<number, { name: string; cpu: number; sys: number }>();
  for (const tid of readdirSync(`/proc/${pid}/task`)) {
    try {
      const stat = readFileSync(`/proc/${pid}/task/${tid}/stat`, 'utf8');
      const f = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      const name = stat.slice(stat.indexOf('(') + 1, stat.lastIndexOf(')'));
      out.set(Number(tid), { name, cpu: (Number(f[11]) + Number(f[12])) / 100, sys: Number(f[12]) / 100 });
    } catch {
      // The thread ended meanwhile.
    }
  }
  return out;
}
