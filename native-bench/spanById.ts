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
import { storeDirs } from '../src/store/layout.js';
import { arg, textArg } from './args.js';
import { alternate, printMedians, storeModules, syntheticStores } from './readAB.js';
import { syntheticSpanId } from './synthetic.js';

const SPANS = arg('spans', 10_000_000);
const READS = arg('reads', 40);
const BASELINE = textArg('baseline', '');
const SCOPE = {
  tenantId: '00000000-0000-4000-8000-000000000001',
  appId: '00000000-0000-4000-8000-000000000002',
  environmentId: '00000000-0000-4000-8000-000000000003',
};
const READ_SCOPE = { ...SCOPE, environmentId: null };
/** Synthetic traces start 4 s apart and hold 8 spans: an hour is 7,200 spans. */
const SPANS_AN_HOUR = 7_200;

/** A build's store opened on `dataDir`, and its read of a span by id alone. */
async function open(root: string, dataDir: string) {
  const build = await storeModules(root);
  const db = await build.db.Database.open({ dataDir, threads: 2, memoryLimit: '2GiB', queryTimeoutMs: 600_000 });
  const src = { db, segments: new build.segments.LocalSegmentStore(storeDirs(dataDir).segments) };
  return {
    db,
    read: async (spanId: string) => {
      const span = await build.reads.spanDetail(src as never, READ_SCOPE, spanId);
      if (span !== null && span.id !== spanId) throw new Error(`span ${spanId} answered span ${span.id}`);
      return span;
    },
  };
}

const { stores, close } = await syntheticStores(SCOPE, SPANS, BASELINE, open);
// Span numbers count back in time from the newest (0).
const cases = {
  'a span of the newest hour': (i: number) => ({ id: syntheticSpanId((i * 7919) % SPANS_AN_HOUR), found: true }),
  'a span of the oldest day': (i: number) => ({ id: syntheticSpanId(SPANS - 1 - ((i * 7919) % 172_800)), found: true }),
  // Numbers' MD5s are the synthetic ids; no number makes these.
  'an id that does not exist': (i: number) => ({ id: syntheticSpanId(-1 - i), found: false }),
};
const times = await alternate(stores, cases, READS);
close();
printMedians(
  `a span by id without its trace over ${SPANS.toLocaleString('en-US')} spans, ${READS} reads each (median ms)`,
  stores,
  cases,
  times,
);
