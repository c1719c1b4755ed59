/**
 * native-bench/admission: the admission index (src/core/ingest/admission.ts, typed arrays) against
 * the one it replaced (test/helpers/admissionReference.ts: span ids as strings in a Set per trace)
 * on the HTTP thread's workload: requests of `--spans` spans in traces of `--per-trace`, fresh
 * random ids as the decoder makes them, each admitted then settled durable, `--total` spans through
 * an index of `--capacity` (the server's default 1M), so most of the run evicts as it goes.
 *
 *   npm run build && node dist/native-bench/admission.js [--total 4000000] [--rounds 3]
 *
 * Each variant runs in a child process of its own (`--expose-gc`), the two alternating round by
 * round; each child prints the time a span of admit + settle, what its garbage collector did
 * meanwhile (pauses by kind, from `PerformanceObserver`), the heap and typed-array bytes still held
 * after a full collection at the end, and its peak RSS.
 */
import { spawnSync } from 'node:child_process';
import { PerformanceObserver } from 'node:perf_hooks';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { AdmissionIndex } from '../src/core/ingest/admission.js';
import { bytesToHex } from '../src/core/otlp/ids.js';
import { ReferenceAdmissionIndex } from '../test/helpers/admissionReference.js';
import { median } from './alternating.js';
import { arg, textArg } from './args.js';
import { memoryMiB } from './procThreads.js';

const VARIANTS = ['strings', 'typed'] as const;
type Variant = (typeof VARIANTS)[number];

interface Figures {
  variant: Variant;
  microsPerSpan: number;
  /** The whole loop's CPU a span: making the requests' ids too, and the collector's helper threads. */
  cpuMicrosPerSpan: number;
  scavenges: number;
  scavengeMs: number;
  majorGcs: number;
  majorMs: number;
  heapMiB: number;
  arrayBuffersMiB: number;
  peakRssMiB: number;
  size: number;
}

async function runChild(variant: Variant): Promise<Figures> {
  const total = arg('total', 4_000_000);
  const spans = arg('spans', 512);
  const perTrace = arg('per-trace', 8);
  const capacity = arg('capacity', 1_000_000);
  const index =
    variant === 'typed' ? new AdmissionIndex(100_000, capacity) : new ReferenceAdmissionIndex(100_000, capacity);
  const gc = { scavenges: 0, scavengeMs: 0, majorGcs: 0, majorMs: 0 };
  const observer = new PerformanceObserver((list) => {
    for (const e of list.getEntries()) {
      // 1: a scavenge (minor); 4: mark-sweep-compact (major); others (incremental, weak) aside.
      const kind = (e as unknown as { detail?: { kind?: number } }).detail?.kind;
      if (kind === 1) {
        gc.scavenges++;
        gc.scavengeMs += e.duration;
      } else if (kind === 4) {
        gc.majorGcs++;
        gc.majorMs += e.duration;
      }
    }
  });
  observer.observe({ entryTypes: ['gc'] });
  const bytes = new Uint8Array(16);
  const words = new Uint32Array(bytes.buffer);
  // xorshift32: random enough for ids, and cheap beside what is measured (crypto's was 80% of a run).
  let state = 0x9e3779b9;
  const randomId = (length: number) => {
    for (let w = 0; w < length / 4; w++) {
      state ^= state << 13;
      state ^= state >>> 17;
      state ^= state << 5;
      words[w] = state;
    }
    return bytesToHex(bytes.subarray(0, length));
  };
  const traceIds: string[] = new Array(spans / perTrace);
  const traceOf: number[] = new Array(spans);
  const spanIds: string[] = new Array(spans);
  for (let i = 0; i < spans; i++) traceOf[i] = Math.floor(i / perTrace);
  let admitting = 0;
  const cpu = process.cpuUsage();
  for (let done = 0; done < total; done += spans) {
    // Fresh strings each request, as the decoder makes them.
    for (let k = 0; k < traceIds.length; k++) traceIds[k] = randomId(16);
    for (let i = 0; i < spans; i++) spanIds[i] = randomId(8);
    const t0 = performance.now();
    const a = index.admit({ scope: 'tenant/app/env', traceIds: traceIds.slice(), traceOf, spanIds: spanIds.slice() });
    index.settle(a.ticket, true);
    admitting += performance.now() - t0;
  }
  const cpuMicros = process.cpuUsage(cpu);
  // The collector's entries reach the observer from the event loop.
  await new Promise((resolve) => setTimeout(resolve, 50));
  observer.disconnect();
  (globalThis as { gc?: () => void }).gc!();
  const mem = process.memoryUsage();
  return {
    variant,
    microsPerSpan: (admitting * 1000) / total,
    cpuMicrosPerSpan: (cpuMicros.user + cpuMicros.system) / total,
    ...gc,
    heapMiB: mem.heapUsed / 2 ** 20,
    arrayBuffersMiB: mem.arrayBuffers / 2 ** 20,
    peakRssMiB: memoryMiB(process.pid, 'VmHWM'),
    size: index.size,
  };
}

function main(): void {
  const rounds = arg('rounds', 3);
  const passOn = process.argv.slice(2);
  const results: Record<Variant, Figures[]> = { strings: [], typed: [] };
  for (let round = 0; round < rounds; round++) {
    for (const variant of VARIANTS) {
      const child = spawnSync(
        process.execPath,
        ['--expose-gc', fileURLToPath(import.meta.url), ...passOn, '--child', variant],
        { encoding: 'utf8' },
      );
      if (child.status !== 0) throw new Error(`${variant}: ${child.stderr}`);
      const f = JSON.parse(child.stdout) as Figures;
      results[variant].push(f);
      console.log(
        `round ${round + 1} ${variant.padEnd(7)} ${f.microsPerSpan.toFixed(3)} µs a span (the loop's CPU ${f.cpuMicrosPerSpan.toFixed(3)}); scavenges ${f.scavenges} (${f.scavengeMs.toFixed(0)} ms), ` +
          `major ${f.majorGcs} (${f.majorMs.toFixed(0)} ms); held after GC: heap ${f.heapMiB.toFixed(1)} MiB + typed arrays ${f.arrayBuffersMiB.toFixed(1)} MiB; peak RSS ${f.peakRssMiB.toFixed(0)} MiB; ${f.size} span ids`,
      );
    }
  }
  const of = (v: Variant, k: keyof Omit<Figures, 'variant'>) => median(results[v].map((f) => f[k]));
  const ratio = (k: keyof Omit<Figures, 'variant'>, digits = 1) =>
    `${of('strings', k).toFixed(digits)} → ${of('typed', k).toFixed(digits)} (${(of('typed', k) / of('strings', k)).toFixed(2)}×)`;
  console.log(
    `medians, strings → typed: µs a span ${ratio('microsPerSpan', 3)}; the loop's CPU µs a span ${ratio('cpuMicrosPerSpan', 3)}`,
  );
  console.log(
    `  scavenge ms ${ratio('scavengeMs')}; major GC ms ${ratio('majorMs')}; heap MiB ${ratio('heapMiB')}; typed arrays MiB ${of('strings', 'arrayBuffersMiB').toFixed(1)} → ${of('typed', 'arrayBuffersMiB').toFixed(1)}; peak RSS MiB ${ratio('peakRssMiB')}`,
  );
}

if (import.meta.url === pathToFileURL(process.argv[1]!).href) {
  const child = textArg('child', '');
  if (child) process.stdout.write(JSON.stringify(await runChild(child as Variant)));
  else main();
}
