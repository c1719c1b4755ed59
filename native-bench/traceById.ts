/**
 * native-bench/traceById: a trace by id (`traceWithSpans`, the store function behind
 * `GET /v1/traces/{id}`) in process, over `--spans` synthetic spans (default 1M: traces of 8 spans,
 * 4 s apart, in compacted-like files of a day, summaries merged), with trace hints as the store
 * thread has them: a trace that exists and an id that does not, medians over `--reads` reads of
 * different traces. With `--baseline <checkout>` that build's store reads a copy of the same store
 * in the same run, read by read alternating, and the ratios are printed (the reference is the
 * baseline).
 *
 *   npm run build && node dist/native-bench/traceById.js [--spans 1000000] [--reads 300] [--baseline /path/to/built/checkout]
 */
import { storeDirs } from '../src/store/layout.js';
import { arg, textArg } from './args.js';
import { alternate, printMedians, storeModules, syntheticStores } from './readAB.js';
import { spreadTrace, syntheticTraceId } from './synthetic.js';

const SPANS = arg('spans', 1_000_000);
const READS = arg('reads', 300);
const BASELINE = textArg('baseline', '');
const SCOPE = {
  tenantId: '00000000-0000-4000-8000-000000000001',
  appId: '00000000-0000-4000-8000-000000000002',
  environmentId: '00000000-0000-4000-8000-000000000003',
};
const READ_SCOPE = { ...SCOPE, environmentId: null };

/** A build's store opened on `dataDir`, with its hints filled, and its trace read. */
async function open(root: string, dataDir: string) {
  const build = await storeModules(root);
  const db = await build.db.Database.open({ dataDir, threads: 2, memoryLimit: '2GiB', queryTimeoutMs: 600_000 });
  const src = {
    db,
    segments: new build.segments.LocalSegmentStore(storeDirs(dataDir).segments),
    hints: build.hints.traceHints(db),
  };
  await build.hints.hintsFilled(db);
  return { db, read: (traceId: string) => build.reads.traceWithSpans(src as never, READ_SCOPE, traceId) };
}

const { stores, close } = await syntheticStores(SCOPE, SPANS, BASELINE, open);
const traces = Math.floor(SPANS / 8);
const cases = {
  'a trace (8 spans)': (i: number) => ({ id: syntheticTraceId(spreadTrace(i, traces)), found: true }),
  // Numbers' MD5s are the synthetic ids; no number makes these.
  'an id that does not exist': (i: number) => ({ id: syntheticTraceId(-1 - i), found: false }),
};
const times = await alternate(stores, cases, READS);
close();
printMedians(
  `trace by id over ${SPANS.toLocaleString('en-US')} spans, ${READS} reads each (median ms)`,
  stores,
  cases,
  times,
);
