/**
 * native-bench/compactionLayout: how compaction lays a day's spans out in files, and what that
 * costs a trace by id. Loads the peers dataset (`--spans`, default 1M) through a server of this
 * build as the peers bench does (8 clients, OTLP/protobuf, then waits for compaction), keeps the
 * store, and reports its live files, how many compacted files each trace's time range touches, and
 * the median of a trace by id read in process (`traceWithSpans`, trace hints on) over a sample of
 * the traces (`readAB.ts`: a warm-up pass, then a timed one). With `--baseline <checkout>` that
 * build's server loads the same dataset into a store of its own, and both stores are read by this
 * build's code, alternating, so the difference is the files' layout alone.
 *
 *   npm run build && node dist/native-bench/compactionLayout.js [--spans 1000000] [--baseline /path/to/built/checkout]
 */
import { rmSync } from 'node:fs';
import { Database } from '../src/store/db.js';
import { storeDirs } from '../src/store/layout.js';
import { segmentsFor } from '../src/store/spans/manifest.js';
import { traceWithSpans } from '../src/store/spans/reads.js';
import { LocalSegmentStore } from '../src/store/spans/segmentStore.js';
import { hintsFilled, traceHints } from '../src/store/spans/traceHints.js';
import { arg, buildModule, textArg } from './args.js';
import { alternate, printMedians } from './readAB.js';

const SPANS = arg('spans', 1_000_000);
const BASELINE = textArg('baseline', '');
/** Every how many traces (by id) one is read. */
const SAMPLE_EVERY = 400;

/** Loads the dataset through a server of the build at `root` ('' for this one) and keeps its store. */
async function load(root: string): Promise<string> {
  const at = (path: string) => buildModule(root, path);
  const { generateDataset, defaultEndMs } = (await import(
    at('native-bench/peers/dataset.js')
  )) as typeof import('./peers/dataset.js');
  const { TracelakePeer } = (await import(
    at('native-bench/peers/tracelake.js')
  )) as typeof import('./peers/tracelake.js');
  const peer = new TracelakePeer((line) => console.log(`  ${root ? 'baseline' : 'this build'}: ${line}`));
  const loaded = await peer.load(generateDataset({ spans: SPANS, seed: 1, endMs: defaultEndMs(), scoresPerTrace: 1 }));
  console.log(
    `  ${root ? 'baseline' : 'this build'}: ${loaded.spansPerSecond.toFixed(0)} spans/s, ${loaded.bytesPerSpan.toFixed(1)} bytes a span`,
  );
  await peer.stop();
  return peer.dataDir;
}

/** A kept store opened in process: its layout, and its trace read. */
async function open(name: string, dataDir: string) {
  const db = await Database.open({ dataDir, threads: 2, memoryLimit: '2GiB', queryTimeoutMs: 600_000 });
  const segments = new LocalSegmentStore(storeDirs(dataDir).segments);
  const src = { db, segments, hints: traceHints(db) };
  await hintsFilled(db);
  const [scope] = await db.query<{ tenantId: string; appId: string }>(
    'SELECT tenant_id::VARCHAR AS "tenantId", app_id::VARCHAR AS "appId" FROM traces LIMIT 1',
  );
  const readScope = { ...scope!, environmentId: null };
  const levels = await db.query<{ level: number; files: number }>(
    'SELECT level, count(*)::INTEGER AS files FROM segments WHERE replaced_at IS NULL GROUP BY level ORDER BY level',
  );
  const traces = await db.query<{ trace_id: string; s: string; e: string }>(
    'SELECT trace_id, start_ns::VARCHAR AS s, end_ns::VARCHAR AS e FROM traces ORDER BY trace_id',
  );
  const touched = new Map<number, number>();
  for (const t of traces) {
    const n = (await segmentsFor(db, segments, readScope, BigInt(t.s), BigInt(t.e) + 1n)).length;
    touched.set(n, (touched.get(n) ?? 0) + 1);
  }
  const share = [...touched]
    .sort(([a], [b]) => a - b)
    .map(([n, count]) => `${n} file${n === 1 ? '' : 's'} ${((100 * count) / traces.length).toFixed(1)}%`);
  console.log(
    `${name}: live files ${levels.map((l) => `level ${l.level}: ${l.files}`).join(', ')}; ${traces.length.toLocaleString('en-US')} traces by the files their range touches: ${share.join(', ')}`,
  );
  return {
    db,
    dataDir,
    sample: traces.filter((_, i) => i % SAMPLE_EVERY === 0).map((t) => t.trace_id),
    read: (id: string) => traceWithSpans(src, readScope, id),
  };
}

const stores: [string, Awaited<ReturnType<typeof open>>][] = [['this build', await open('this build', await load(''))]];
if (BASELINE) stores.unshift(['baseline', await open('baseline', await load(BASELINE))]);
// The same dataset in both stores: the same traces, read by this build's code alternating.
const sample = stores[0]![1].sample;
const cases = { 'a trace by id': (i: number) => ({ id: sample[i]!, found: true }) };
const times = await alternate(stores, cases, sample.length);
printMedians(`trace by id, this build's read over each store (median of ${sample.length})`, stores, cases, times);
for (const [, store] of stores) {
  store.db.close();
  rmSync(store.dataDir, { recursive: true, force: true });
}
