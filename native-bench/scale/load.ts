/**
 * native-bench/scale/load: the peers' agent dataset (`--spans`, default 100M, over `--days`, default
 * 30, 4 traces a session, one score a trace) loaded through a server of this build into a store kept
 * at `--dir`, for `scale/reads` and the growth table. The OTLP/protobuf bodies are generated as they
 * are sent (100M spans are ~56 GB of requests, more than a render to disk can hold), over 8
 * keep-alive connections, 503s sent again after Retry-After; the generator's CPU is printed beside
 * the rate, since it shares the machine's cores with the server.
 *
 * At each of `--checkpoints` (default 1M and 10M spans) and at the end, once every span is readable
 * and compaction has settled, the store is measured for the growth table: the server stopped, the
 * manifest read in process (rows, the selection of a day's and a month's files, cold and warm), the
 * server started again (wall time to `listening`), its RSS after 20 s idle, and a trace by id over
 * HTTP. The dataset's options go to `<dir>/dataset.json` so that the reads ask about the same data.
 *
 *   npm run build && node dist/native-bench/scale/load.js --dir /path/outside/the/repo [--spans 100000000] [--days 30] [--checkpoints 1000000,10000000]
 */
import { execFileSync } from 'node:child_process';
import {
  closeSync,
  existsSync,
  mkdirSync,
  openSync,
  readdirSync,
  renameSync,
  rmSync,
  statSync,
  writeFileSync,
  writeSync,
} from 'node:fs';
import { join } from 'node:path';
import { Database } from '../../src/store/db.js';
import { storeDirs } from '../../src/store/layout.js';
import type { ReadScope } from '../../src/store/scope.js';
import { segmentsFor } from '../../src/store/spans/manifest.js';
import { LocalSegmentStore } from '../../src/store/spans/segmentStore.js';
import { startServer, type TestServer } from '../../test/helpers/server.js';
import { textArg, arg } from '../args.js';
import { segmentDetail, settled } from '../gateway.js';
import { closedLoop, encodeRequest } from '../loadClient.js';
import { batchCount, DAY_MS, defaultEndMs, encodedDatasetBatch, type DatasetOptions } from '../peers/dataset.js';
import { memoryMiB } from '../procThreads.js';
import { SCALE_KEY, SCALE_SERVER_ARGS, writeScores, type ScaleDataset } from './store.js';

const DIR = textArg('dir', '');
if (!DIR) throw new Error('--dir: where the store is kept (outside the repository)');
if (existsSync(DIR) && readdirSync(DIR).length > 0) throw new Error(`--dir ${DIR} is not empty`);
const dataset: ScaleDataset = {
  spans: arg('spans', 100_000_000),
  days: arg('days', 30),
  seed: 1,
  endMs: defaultEndMs(),
  tracesPerSession: 4,
  scoresPerTrace: 1,
};
const checkpoints = textArg('checkpoints', '1000000,10000000')
  .split(',')
  .map(Number)
  .filter((n) => n > 0 && n < dataset.spans);
checkpoints.push(dataset.spans);

const dataDir = join(DIR, 'data');
mkdirSync(dataDir, { recursive: true });
writeFileSync(join(DIR, 'dataset.json'), `${JSON.stringify(dataset, null, 2)}\n`);
const options: DatasetOptions = dataset;
const batches = batchCount(options);
const log = (line: string) => console.log(`[${new Date().toISOString().slice(11, 19)}] ${line}`);
const fmt = (n: number, digits = 0) =>
  n.toLocaleString('en-US', { minimumFractionDigits: digits, maximumFractionDigits: digits });

let server: TestServer = await startServer({
  dataDir,
  env: { TRACELAKE_BOOTSTRAP_KEY: SCALE_KEY },
  args: SCALE_SERVER_ARGS,
  startTimeoutMs: 600_000,
});
const b = server.bootstrap!;
const scope: ReadScope = { tenantId: b.tenant_id as string, appId: b.app_id as string, environmentId: null };
writeFileSync(join(DIR, 'scope.json'), `${JSON.stringify(scope)}\n`);
const headers = { authorization: SCALE_KEY, 'x-service-app-id': scope.appId };
const scoresFile = join(DIR, 'scores.tsv');
const scoresOut = openSync(scoresFile, 'w');

let next = 0;
let sent = 0;
let backPressured = 0;
let generatorMs = 0;
const growth: Record<string, unknown>[] = [];
/** Spans sent before the current stretch (up to the last checkpoint). */
let sentBefore = 0;
const loadStarted = performance.now();
let loadMs = 0;

for (const checkpoint of checkpoints) {
  const lastBatch = Math.min(batches, Math.ceil(checkpoint / 512));
  const target = {
    host: '127.0.0.1',
    port: server.port,
    path: '/v1/traces',
    headers: { ...headers, 'content-type': 'application/x-protobuf' },
  };
  const started = performance.now();
  const cpuBefore = process.cpuUsage();
  let lastReport = started;
  await closedLoop(
    '127.0.0.1',
    server.port,
    8,
    () => {
      if (next >= lastBatch) return null;
      const t0 = performance.now();
      const batch = encodedDatasetBatch(options, next++);
      let text = '';
      for (const s of batch.scores)
        text += `${s.id}\t${s.traceId}\t${s.name}\t${s.value}\t${s.source}\t${s.timestampUs}\n`;
      writeSync(scoresOut, text);
      const request = encodeRequest(target, batch.encoded);
      generatorMs += performance.now() - t0;
      sent += Math.min(512, dataset.spans - batch.index * 512);
      if (t0 - lastReport > 60_000) {
        lastReport = t0;
        log(`sent ${fmt(sent)} spans, ${fmt(sent / ((loadMs + t0 - started) / 1000))} spans/s so far`);
      }
      return request;
    },
    (a) => {
      if (a.status === 200) return;
      if (a.status !== 503) throw new Error(`ingest answered ${a.status}`);
      backPressured++;
      return 1000 * Number(a.headers['retry-after'] ?? 1);
    },
  );
  const sentMs = performance.now() - started;
  while ((await segmentDetail(server)).span_rows < sent) await new Promise((r) => setTimeout(r, 200));
  const readableMs = performance.now() - started;
  loadMs += readableMs;
  const cpu = process.cpuUsage(cpuBefore);
  log(
    `${fmt(sent)} spans: this stretch sent in ${fmt(sentMs / 1000, 1)} s, readable after ${fmt(readableMs / 1000, 1)} s ` +
      `(${fmt(((sent - sentBefore) * 1000) / readableMs)} spans/s); ` +
      `the client's CPU ${fmt((cpu.user + cpu.system) / 1000 / readableMs, 2)} of a core, generating ${fmt(generatorMs / 1000, 1)} s in all; 503s so far ${backPressured}`,
  );
  const settleStarted = performance.now();
  await settled(server, 1000);
  log(`compaction and rollups settled after ${fmt((performance.now() - settleStarted) / 1000, 1)} s`);
  sentBefore = sent;
  growth.push(await measureGrowth(sent, (sent * 1000) / loadMs));
  writeFileSync(join(DIR, 'growth.json'), `${JSON.stringify(growth, null, 2)}\n`);
}
closeSync(scoresOut);

await server.stop('SIGTERM');
const scoresStarted = performance.now();
// The store's DuckDB reads files under its own directories only.
const readableScores = join(storeDirs(dataDir).tmp, 'scale-scores.tsv');
renameSync(scoresFile, readableScores);
await writeScores(dataDir, scope, readableScores);
rmSync(readableScores);
log(
  `scores written by SQL in ${fmt((performance.now() - scoresStarted) / 1000, 1)} s (untimed, as the peers bench does)`,
);
log(
  `loaded ${fmt(dataset.spans)} spans over ${dataset.days} days in ${fmt(loadMs / 1000, 0)} s of load (${fmt((dataset.spans * 1000) / loadMs)} spans/s until readable; ` +
    `${fmt((performance.now() - loadStarted) / 1000, 0)} s with the checkpoints)`,
);
console.log(JSON.stringify(growth));
process.exit(0);

function bytesUnder(path: string): number {
  return Number(execFileSync('du', ['-sb', path]).toString().split('\t')[0]);
}

/** The growth table's row for a store of `spans` spans; restarts the server. */
async function measureGrowth(spans: number, rate: number): Promise<Record<string, unknown>> {
  const detail = await segmentDetail(server);
  await server.stop('SIGTERM');
  const dbBytes = statSync(join(dataDir, 'tracelake.duckdb')).size;
  const db = await Database.open({ dataDir, threads: 2, memoryLimit: '2GiB', queryTimeoutMs: 600_000 });
  const segments = new LocalSegmentStore(storeDirs(dataDir).segments);
  const [manifest] = await db.query<{ live: number; all: number; traces: number }>(
    `SELECT (count(*) FILTER (WHERE replaced_at IS NULL))::INTEGER AS live, count(*)::INTEGER AS "all",
            (SELECT count(*) FROM traces)::INTEGER AS traces FROM segments`,
  );
  const newestNs =
    BigInt(dataset.endMs) * 1_000_000n -
    BigInt(Math.floor((1 - spans / dataset.spans) * dataset.days * DAY_MS)) * 1_000_000n;
  const dayNs = BigInt(DAY_MS) * 1_000_000n;
  const t0 = performance.now();
  const day = await segmentsFor(db, segments, scope, newestNs - dayNs, newestNs);
  const coldMs = performance.now() - t0;
  const t1 = performance.now();
  const month = await segmentsFor(db, segments, scope, newestNs - 30n * dayNs, newestNs);
  const warmMs = performance.now() - t1;
  db.close();
  const startedAt = performance.now();
  server = await startServer({
    dataDir,
    env: { TRACELAKE_BOOTSTRAP_KEY: SCALE_KEY },
    args: SCALE_SERVER_ARGS,
    startTimeoutMs: 600_000,
  });
  const startMs = performance.now() - startedAt;
  // Idle: the start's background work (merges, checkpoints, the first compaction check) has had its turns.
  await new Promise((r) => setTimeout(r, 20_000));
  const idleRss = memoryMiB(server.child.pid!, 'VmRSS');
  const row = {
    spans,
    rate: Math.round(rate),
    traces: manifest!.traces,
    liveFiles: manifest!.live,
    compactedFiles: detail.compacted_segments,
    manifestRows: manifest!.all,
    segmentBytes: detail.segment_bytes,
    dbBytes,
    storeBytes: bytesUnder(dataDir),
    bytesPerSpan: (detail.segment_bytes + dbBytes) / spans,
    manifestColdMs: coldMs,
    manifestWarmMs: warmMs,
    dayFiles: day.length,
    monthFiles: month.length,
    startMs,
    idleRssMiB: idleRss,
  };
  log(`growth: ${JSON.stringify(row)}`);
  return row;
}
