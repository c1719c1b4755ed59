/**
 * native-bench/spanById: one span by id without its trace (`spanDetail`, the store function behind
 * `GET /v1/spans/{id}`) in process, over `--spans` synthetic spans (default 10M: one compacted-like
 * file a day going back from now, 172,800 spans each): a span of the newest hour, one of the oldest
 * day, and an id that does not exist, medians over `--reads` reads. With `--baseline <checkout>`
 * that build's store reads a copy of the same store in the same run, read by read alternating, and
 * the ratios are printed (the reference is the baseline).
 *
 *   npm run build && node dist/native-bench/spanById.js [--spans 10000000] [--reads 40] [--baseline /path/to/built/checkout]
 */
import { copyFileSync, rmSync, symlinkSync } from 'node:fs';
import { join } from 'node:path';
import { tempDir } from '../test/helpers/server.js';
import { arg, buildModule, textArg } from './args.js';
import { loadSynthetic, syntheticSpanId } from './synthetic.js';

const SPANS = arg('spans', 10_000_000);
const READS = arg('reads', 40);
const BASELINE = textArg('baseline', '');
const SCOPE = { tenantId: '00000000-0000-4000-8000-000000000001', appId: '00000000-0000-4000-8000-000000000002', environmentId: '00000000-0000-4000-8000-000000000003' };
const READ_SCOPE = { ...SCOPE, environmentId: null };
/** Synthetic traces start 4 s apart and hold 8 spans: an hour is 7,200 spans. */
const SPANS_AN_HOUR = 7_200;

/** One build's store functions, loaded from its `dist` (this one's when `root` is empty). */
async function load(root: string) {
  const at = (path: string) => buildModule(root, path);
  return {
    db: (await import(at('src/store/db.js'))) as typeof import('../src/store/db.js'),
    reads: (await import(at('src/store/spans/reads.js'))) as typeof import('../src/store/spans/reads.js'),
    segments: (await import(at('src/store/spans/segmentStore.js'))) as typeof import('../src/store/spans/segmentStore.js'),
  };
}

/** A build's store opened on `dataDir`, and its read of a span by id alone. */
async function open(build: Awaited<ReturnType<typeof load>>, dataDir: string) {
  const db = await build.db.Database.open({ dataDir, threads: 2, memoryLimit: '2GiB', queryTimeoutMs: 600_000 });
  const src = { db, segments: new build.segments.LocalSegmentStore(build.db.storeDirs(dataDir).segments) };
  return { db, read: (spanId: string) => build.reads.spanDetail(src as never, READ_SCOPE, spanId) };
}

const { Database, DATABASE_FILE, storeDirs } = await import('../src/store/db.js');
const { migrate } = await import('../src/store/migrate.js');
const dataDir = tempDir('tracelake-span-by-id-');
{
  const db = await Database.open({ dataDir, threads: 2, memoryLimit: '4GiB', queryTimeoutMs: 600_000 });
  await migrate(db);
  await loadSynthetic(db, dataDir, SCOPE, SPANS, Date.now());
  await db.checkpoint();
  db.close();
}
const stores: [string, Awaited<ReturnType<typeof open>>][] = [['this build', await open(await load(''), dataDir)]];
let copyDir = '';
if (BASELINE) {
  // A copy of the database (each DuckDB holds its file's lock) over the very same segment files.
  copyDir = tempDir('tracelake-span-by-id-baseline-');
  copyFileSync(join(dataDir, DATABASE_FILE), join(copyDir, DATABASE_FILE));
  symlinkSync(storeDirs(dataDir).segments, storeDirs(copyDir).segments);
  stores.unshift(['baseline', await open(await load(BASELINE), copyDir)]);
}

// Span numbers count back in time from the newest (0).
const cases = {
  'a span of the newest hour': (i: number) => ({ id: syntheticSpanId((i * 7919) % SPANS_AN_HOUR), found: true }),
  'a span of the oldest day': (i: number) => ({ id: syntheticSpanId(SPANS - 1 - ((i * 7919) % 172_800)), found: true }),
  // Numbers' MD5s are the synthetic ids; no number makes these.
  'an id that does not exist': (i: number) => ({ id: syntheticSpanId(-1 - i), found: false }),
};
const times = new Map<string, number[]>();
// A warm-up pass (files opened, statements planned), then the timed one; builds take turns first.
for (let pass = 0; pass < 2; pass++) {
  for (let i = 0; i < READS; i++) {
    for (const [name, make] of Object.entries(cases)) {
      const { id, found } = make(i);
      for (const [build, store] of i % 2 ? [...stores].reverse() : stores) {
        const started = performance.now();
        const answer = await store.read(id);
        const ms = performance.now() - started;
        if ((answer !== null) !== found) throw new Error(`${build}: ${name} ${id} answered ${answer === null ? 'nothing' : 'a span'}`);
        if (answer !== null && answer.id !== id) throw new Error(`${build}: ${name} ${id} answered span ${answer.id}`);
        if (pass === 1) times.set(`${name}|${build}`, [...(times.get(`${name}|${build}`) ?? []), ms]);
      }
    }
  }
}
for (const [, store] of stores) store.db.close();
rmSync(dataDir, { recursive: true, force: true });
if (copyDir) rmSync(copyDir, { recursive: true, force: true });

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[xs.length >> 1]!;
console.log(`a span by id without its trace over ${SPANS.toLocaleString('en-US')} spans, ${READS} reads each (median ms)`);
for (const name of Object.keys(cases)) {
  const line = stores.map(([build]) => `${build} ${median(times.get(`${name}|${build}`)!).toFixed(2)}`).join(', ');
  const ratio = BASELINE ? `; ratio ${(median(times.get(`${name}|this build`)!) / median(times.get(`${name}|baseline`)!)).toFixed(2)}×` : '';
  console.log(`  ${name.padEnd(26)} ${line}${ratio}`);
}
