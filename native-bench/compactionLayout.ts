/**
 * native-bench/compactionLayout: how compaction lays a day's spans out in files, and what that
 * costs a trace by id. Loads the peers dataset (`--spans`, default 1M) through a server of this
 * build as the peers bench does (8 clients, OTLP/protobuf, then waits for compaction), keeps the
 * store, and reports its live files, how many compacted files each trace's time range touches, and
 * the median of a trace by id read in process (`traceWithSpans`, trace hints on) over a sample of
 * the traces. With `--baseline <checkout>` that build's server loads the same dataset into a
 * store of its own, and both stores are read by this build's code, alternating, so the difference
 * is the files' layout alone.
 *
 *   npm run build && node dist/native-bench/compactionLayout.js [--spans 1000000] [--baseline /path/to/built/checkout]
 */
import { rmSync } from 'node:fs';
import { join } from 'node:path';
import { Database, storeDirs } from '../src/store/db.js';
import { segmentsFor } from '../src/store/spans/manifest.js';
import { traceWithSpans } from '../src/store/spans/reads.js';
import { LocalSegmentStore } from '../src/store/spans/segmentStore.js';
import { hintsFilled, traceHints } from '../src/store/spans/traceHints.js';
import { arg, buildModule, textArg } from './args.js';

const SPANS = arg('spans', 1_000_000);
const BASELINE = textArg('baseline', '');
/** Every how many traces (by id) one is read. */
const SAMPLE_EVERY = 400;

/** Loads the dataset through a server of the build at `root` ('' for this one) and keeps its store. */
async function load(root: string): Promise<string> {
  const at = (path: string) => buildModule(root, path);
  const { generateDataset, defaultEndMs } = (await import(at('native-bench/peers/dataset.js'))) as typeof import('./peers/dataset.js');
  const { TracelakePeer } = (await import(at('native-bench/peers/tracelake.js'))) as typeof import('./peers/tracelake.js');
  const peer = new TracelakePeer((line) => console.log(`  ${root ? 'baseline' : 'this build'}: ${line}`));
  const loaded = await peer.load(generateDataset({ spans: SPANS, seed: 1, endMs: defaultEndMs(), scoresPerTrace: 1 }));
  console.log(`  ${root ? 'baseline' : 'this build'}: ${loaded.spansPerSecond.toFixed(0)} spans/s, ${loaded.bytesPerSpan.toFixed(1)} bytes a span`);
  await peer.stop();
  return peer.dataDir;
}

/** A kept store opened in process: its layout, and its trace read. */
async function open(name: string, dataDir: string) {
  const db = await Database.open({ dataDir, threads: 2, memoryLimit: '2GiB', queryTimeoutMs: 600_000 });
  const segments = new LocalSegmentStore(storeDirs(dataDir).segments);
  const src = { db, segments, hints: traceHints(db) };
  await hintsFilled(db);
  const [scope] = await db.query<{ tenantId: string; appId: string }>('SELECT tenant_id::VARCHAR AS "tenantId", app_id::VARCHAR AS "appId" FROM traces LIMIT 1');
  const readScope = { ...scope!, environmentId: null };
  const levels = await db.query<{ level: number; files: number }>('SELECT level, count(*)::INTEGER AS files FROM segments WHERE replaced_at IS NULL GROUP BY level ORDER BY level');
  const traces = await db.query<{ trace_id: string; s: string; e: string }>('SELECT trace_id, start_ns::VARCHAR AS s, end_ns::VARCHAR AS e FROM traces ORDER BY trace_id');
  const touched = new Map<number, number>();
  for (const t of traces) {
    const n = (await segmentsFor(db, segments, readScope, BigInt(t.s), BigInt(t.e) + 1n)).length;
    touched.set(n, (touched.get(n) ?? 0) + 1);
  }
  const share = [...touched].sort(([a], [b]) => a - b).map(([n, count]) => `${n} file${n === 1 ? '' : 's'} ${((100 * count) / traces.length).toFixed(1)}%`);
  console.log(`${name}: live files ${levels.map((l) => `level ${l.level}: ${l.files}`).join(', ')}; ${traces.length.toLocaleString('en-US')} traces by the files their range touches: ${share.join(', ')}`);
  return { db, dataDir, sample: traces.filter((_, i) => i % SAMPLE_EVERY === 0).map((t) => t.trace_id), read: (id: string) => traceWithSpans(src, readScope, id) };
}

const stores = [await open('this build', await load(''))];
if (BASELINE) stores.unshift(await open('baseline', await load(BASELINE)));
const names = BASELINE ? ['baseline', 'this build'] : ['this build'];
const times: number[][] = stores.map(() => []);
// A warm-up round, then two timed ones; the stores take turns read by read.
for (let round = 0; round < 3; round++) {
  for (let i = 0; i < stores[0]!.sample.length; i++) {
    const order = i % 2 ? [...stores.keys()].reverse() : [...stores.keys()];
    for (const s of order) {
      const store = stores[s]!;
      const id = store.sample[i % store.sample.length]!;
      const started = performance.now();
      if (!(await store.read(id))) throw new Error(`${names[s]}: trace ${id} not found`);
      if (round > 0) times[s]!.push(performance.now() - started);
    }
  }
}
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[xs.length >> 1]!;
const medians = times.map(median);
console.log(`trace by id, this build's read over each store (median of ${times[0]!.length}): ${names.map((n, i) => `${n} ${medians[i]!.toFixed(2)} ms`).join(', ')}${BASELINE ? `; ratio ${(medians[1]! / medians[0]!).toFixed(2)}×` : ''}`);
for (const store of stores) {
  store.db.close();
  rmSync(store.dataDir, { recursive: true, force: true });
}
