/**
 * native-bench/pageFaults: what a page the kernel hands out anew costs on this machine, against a
 * page already resident, in the same run. Memory a process gives back (an allocator's purge, an
 * unmapped buffer) and takes again costs one minor fault a page; on a virtual machine whose host
 * takes back the guest's free pages, that fault goes out to the host too. `threads` prints the
 * server's minor faults a span; this prints what each one costs, to weigh them with (`ingest`
 * prints it too, with its budgets: the machine of the day).
 *
 *   npm run build && node dist/native-bench/pageFaults.js [--mib 256] [--rounds 5]
 *
 * Each round maps `--mib` MiB (a Buffer that large is its own mapping), writes a byte in each 4 KiB
 * page (a fault each), then writes them all again (resident: no fault).
 */
import { pathToFileURL } from 'node:url';
import { arg } from './args.js';

const PAGE = 4096;

/** Microseconds a page to write one byte in each page of `buf`. */
function touch(buf: Buffer, value: number): number {
  const t0 = performance.now();
  for (let i = 0; i < buf.length; i += PAGE) buf[i] = value;
  return ((performance.now() - t0) * 1000) / (buf.length / PAGE);
}

/** Medians over `rounds` of a fresh page's first write and a resident page's, in µs. */
function pageWriteMicros(mib: number, rounds: number): { fresh: number; resident: number } {
  const fresh: number[] = [];
  const resident: number[] = [];
  for (let round = 0; round < rounds; round++) {
    // allocUnsafeSlow: no pool, no fill — the pages are the kernel's until written.
    const buf = Buffer.allocUnsafeSlow(mib * 1024 * 1024);
    fresh.push(touch(buf, 1));
    resident.push(touch(buf, 2));
  }
  const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
  return { fresh: median(fresh), resident: median(resident) };
}

/** One line for a bench's output: the machine's cost of a page fault. */
export function pageFaultLine(mib = 64, rounds = 5): string {
  const { fresh, resident } = pageWriteMicros(mib, rounds);
  return `a page written first (a minor fault): ${fresh.toFixed(2)} µs; a resident page written again: ${resident.toFixed(3)} µs; ratio ${(fresh / resident).toFixed(0)}× (${mib} MiB, ${rounds} rounds, medians)`;
}

if (import.meta.url === pathToFileURL(process.argv[1]!).href)
  console.log(pageFaultLine(arg('mib', 256), arg('rounds', 5)));
