/**
 * native-bench/checkpointGrowth: whether a checkpoint's cost grows with the merged summaries the
 * store holds, for the same change. The soak's checkpoints took more seconds a minute as its store
 * grew (RESULTS.md, "soak"), with the same ingest each minute.
 *
 *   npm run build && node dist/native-bench/checkpointGrowth.js [--sizes 1000000,4000000,8000000] [--runs 5]
 *        [--merges 10] [--rows 4000]
 *
 * One store grows through `--sizes` merged summaries (summaryStore.ts: one day, in time order). At
 * each size, a run is `--merges` transactions shaped like the background merge's over 2 s of the
 * soak's ingest — `--rows` new summaries appended, and a tenth as many of the newest replaced (the
 * traces whose late parts it folds: their rows deleted, merged rows appended) — then a CHECKPOINT,
 * timed, with the WAL's bytes before it. Medians; the ratio is against the first size, the
 * reference in the same run.
 */
import { statSync } from 'node:fs';
import { join } from 'node:path';
import { Database } from '../src/store/db.js';
import { DATABASE_FILE } from '../src/store/layout.js';
import { migrate } from '../src/store/migrate.js';
import { PART_COLUMNS } from '../src/store/spans/traceParts.js';
import { tempDir } from '../test/helpers/server.js';
import { arg, textArg } from './args.js';
import { addEnvironment, appendSummaries } from './summaryStore.js';

const SIZES = textArg('sizes', '1000000,4000000,8000000').split(',').map(Number);
const RUNS = arg('runs', 5);
const MERGES = arg('merges', 10);
const ROWS = arg('rows', 4_000);
const NOW_MS = Date.now();
const LARGEST = Math.max(...SIZES);
/** Summaries appended by the runs are numbered from here, after every size's. */
let next = LARGEST;

const dataDir = tempDir('tracelake-checkpoint-growth-');
const db = await Database.open({ dataDir, threads: 2, memoryLimit: '2GiB', queryTimeoutMs: 600_000 });
await migrate(db);
await addEnvironment(db);
const walBytes = () => {
  try {
    return statSync(join(dataDir, `${DATABASE_FILE}.wal`)).size;
  } catch {
    return 0;
  }
};
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[xs.length >> 1]!;
const cols = PART_COLUMNS.join(', ');

/** One merge's change: the newest tenth of `ROWS` rows replaced by merged copies, `ROWS` appended. */
async function mergeShaped(): Promise<void> {
  await db.transaction(async (tx) => {
    const late = Math.floor(ROWS / 10);
    await tx.exec(`CREATE TEMP TABLE replaced AS SELECT rowid AS r FROM traces ORDER BY rowid DESC LIMIT ${late}`);
    await tx.exec(
      `INSERT INTO traces SELECT * REPLACE (span_count + 1 AS span_count) FROM traces WHERE rowid IN (SELECT r FROM replaced)`,
    );
    await tx.exec('DELETE FROM traces WHERE rowid IN (SELECT r FROM replaced)');
    await tx.exec('DROP TABLE replaced');
  });
  await appendSummaries(db, next, next + ROWS, LARGEST + RUNS * MERGES * ROWS * SIZES.length, NOW_MS);
  next += ROWS;
}

console.log(
  `checkpointGrowth: ${MERGES} merge-shaped transactions (${ROWS} summaries appended, ${ROWS / 10} replaced) before each checkpoint; ${RUNS} runs a size; columns ${cols.split(',').length}`,
);
console.log('summaries\tcheckpoint ms (median)\tWAL MiB before\tDuckDB file MiB\t× the first size');
let reference = 0;
let have = 0;
for (const size of SIZES) {
  await appendSummaries(db, have, size, LARGEST, NOW_MS);
  have = size;
  await db.checkpoint();
  const times: number[] = [];
  const wal: number[] = [];
  for (let run = 0; run < RUNS; run++) {
    for (let m = 0; m < MERGES; m++) await mergeShaped();
    wal.push(walBytes());
    const started = performance.now();
    await db.checkpoint();
    times.push(performance.now() - started);
  }
  const ms = median(times);
  reference ||= ms;
  const file = statSync(join(dataDir, DATABASE_FILE)).size;
  console.log(
    [
      size.toLocaleString('en-US'),
      ms.toFixed(1),
      (median(wal) / 2 ** 20).toFixed(1),
      (file / 2 ** 20).toFixed(0),
      (ms / reference).toFixed(2),
    ].join('\t'),
  );
}
db.close();
