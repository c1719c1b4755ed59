/**
 * native-bench/spanIdFilter: what a compacted file's span id filter costs (src/store/spans/spanIdFilter.ts).
 * Over one synthetic file of `--rows` spans (default 131,072, the compaction target), on a
 * compaction engine (`FileEngine`, one thread), alternating `--runs` times: the compaction's COPY of
 * the file sorted (the reference) and the filter built from the file it wrote; medians and their
 * ratio. Then why the filters live beside the files, not in the manifest: the checkpoint after one
 * row joins a table of `--files` rows (default 300) with filters of `--rows` spans in them, against
 * the same rows without.
 *
 *   npm run build && node dist/native-bench/spanIdFilter.js [--rows 131072] [--runs 7] [--files 300]
 */
import { rmSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { DuckDBInstance } from '@duckdb/node-api';
import { Database } from '../src/store/db.js';
import { storeDirs } from '../src/store/layout.js';
import { migrate } from '../src/store/migrate.js';
import { FileEngine } from '../src/store/spans/fileEngine.js';
import { quote, spansFrom } from '../src/store/spans/manifest.js';
import { SEGMENT_COPY_OPTIONS, SEGMENT_FORMAT_VERSION } from '../src/store/spans/segmentFormat.js';
import { LocalSegmentStore } from '../src/store/spans/segmentStore.js';
import { spanIdFilterSql } from '../src/store/spans/spanIdFilter.js';
import { tempDir } from '../test/helpers/server.js';
import { arg } from './args.js';
import { loadSynthetic } from './synthetic.js';

const ROWS = arg('rows', 131_072);
const RUNS = arg('runs', 7);
const FILES = arg('files', 300);
const SCOPE = {
  tenantId: '00000000-0000-4000-8000-000000000001',
  appId: '00000000-0000-4000-8000-000000000002',
  environmentId: '00000000-0000-4000-8000-000000000003',
};
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[xs.length >> 1]!;

const dataDir = tempDir('tracelake-span-id-filter-');
const db = await Database.open({ dataDir, threads: 2, memoryLimit: '2GiB', queryTimeoutMs: 600_000 });
await migrate(db);
await loadSynthetic(db, dataDir, SCOPE, ROWS, Date.now());
const [file] = await db.query<{ path: string }>('SELECT path FROM segments');
db.close();

const store = new LocalSegmentStore(storeDirs(dataDir).segments);
const engine = await FileEngine.open(store.root, '1GiB');
const source = spansFrom([{ path: store.readPath(file!.path), formatVersion: SEGMENT_FORMAT_VERSION }]);
const copy: number[] = [];
const filter: number[] = [];
for (let run = 0; run < RUNS; run++) {
  const temp = store.tempPath();
  let started = performance.now();
  await engine.run(
    `COPY (SELECT * FROM ${source} ORDER BY start_ns, trace_id, span_id) TO ${quote(temp)} (${SEGMENT_COPY_OPTIONS})`,
  );
  copy.push(performance.now() - started);
  started = performance.now();
  if ((await engine.value(spanIdFilterSql(`read_parquet(${quote(temp)}, hive_partitioning = false)`, ROWS))) === null)
    throw new Error('no filter built');
  filter.push(performance.now() - started);
  rmSync(temp);
}
engine.close();
console.log(`a compacted file of ${ROWS.toLocaleString('en-US')} rows, ${RUNS} runs (median ms)`);
console.log(
  `  its COPY ${median(copy).toFixed(1)}, its span id filter ${median(filter).toFixed(1)}; ratio ${(median(filter) / median(copy)).toFixed(2)}×, ${((median(filter) * 1000) / ROWS).toFixed(2)} µs a span`,
);

/**
 * The checkpoint after one row is added to a manifest-like table of FILES rows that holds each file's
 * filter of ROWS spans in the row (the layout before the filters moved beside the files) or not
 * (now): its time and the bytes the database file grew by. DuckDB rewrites a row group whole once
 * a row joins it.
 */
async function checkpointAfterInsert(withFilters: boolean): Promise<{ ms: number; grew: number }> {
  const path = join(dataDir, `manifest-${withFilters}.duckdb`);
  const instance = await DuckDBInstance.create(path, { threads: '1' });
  const c = await instance.connect();
  await c.run('CREATE TABLE segments (id INTEGER, path VARCHAR, span_filter BIT)');
  for (let f = 0; f <= FILES; f++) {
    if (f === FILES) await c.run('CHECKPOINT');
    await c.run(
      `CREATE OR REPLACE TEMP TABLE ids AS SELECT md5('${f}-' || i::VARCHAR)[:16] AS span_id FROM range(${ROWS}) r(i)`,
    );
    await c.run(
      `INSERT INTO segments VALUES (${f}, 'file-${f}', ${withFilters ? `(${spanIdFilterSql('ids', ROWS)})` : 'NULL'})`,
    );
  }
  const before = statSync(path).size;
  const started = performance.now();
  await c.run('CHECKPOINT');
  const ms = performance.now() - started;
  c.closeSync();
  instance.closeSync();
  return { ms, grew: statSync(path).size - before };
}
const inRow = await checkpointAfterInsert(true);
const beside = await checkpointAfterInsert(false);
const mb = (bytes: number) => (bytes / 1e6).toFixed(1);
console.log(
  `  a manifest of ${FILES} files, one row added: the checkpoint ${inRow.ms.toFixed(1)} ms and ${mb(inRow.grew)} MB with the filters in its rows, ${beside.ms.toFixed(1)} ms and ${mb(beside.grew)} MB with them beside the files; ratio ${(inRow.ms / beside.ms).toFixed(1)}×`,
);
rmSync(dataDir, { recursive: true, force: true });
