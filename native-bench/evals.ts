/**
 * native-bench/evals: experiment reads through the API against the same store functions (the same
 * SQL and parameters) on DuckDB in this process, over an experiment of `--runs` runs × `--trials`
 * trials (default 100 × 1,000), all reported through the API as workers would.
 *
 *   npm run build && node dist/native-bench/evals.js [--runs 100] [--trials 1000] [--repeat 30]
 *
 * 1. A real server (child process, fresh data dir, chosen bootstrap key). Each run is created,
 *    claimed with its run key, sent its trials in one batch and completed with a card; the batch
 *    latency is recorded.
 * 2. The server is stopped (a checkpoint), the data directory copied, and the server started again.
 *    Three endpoints: the baseline comparison of the last run against the one before it
 *    (`GET /v1/experiments/baseline`, 1,000 paired tasks), the experiment with every run's figures
 *    (`GET /v1/experiments/{id}`), the experiment list.
 * 3. Each is called through the API and, in turn, its store functions (store/evals/experiments.ts:
 *    the same SQL and parameters) run in this process on the copy, `--repeat` times after a warm-up
 *    (medians): taking turns spreads the load of a shared machine over both alike.
 * Target (the search budget, native-bench/RESULTS.md): API median ≤ 1.3 × raw median + 5 ms.
 */
import { cpSync, rmSync } from 'node:fs';
import { resolve } from 'node:path';
import { Database } from '../src/store/db.js';
import { compareRuns, experimentRuns, listExperiments } from '../src/store/evals/experiments.js';
import { startServer, tempDir } from '../test/helpers/server.js';
import { arg } from './args.js';
import { seededRandom } from '../test/helpers/random.js';

const RUNS = arg('runs', 100);
const TRIALS = arg('trials', 1000);
const REPEAT = arg('repeat', 30);
const KEY = 'sk_service_' + 'Evals'.repeat(9);
const SERVER_ARGS = ['--workers', '1', '--duckdb-threads', '2', '--duckdb-memory', '4GiB'];

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

async function timed(fn: () => Promise<unknown>): Promise<number> {
  const t0 = performance.now();
  await fn();
  return performance.now() - t0;
}

const dataDir = tempDir('tracelake-evals-bench-');
let server = await startServer({ dataDir, env: { TRACELAKE_BOOTSTRAP_KEY: KEY }, args: SERVER_ARGS });
const scope = {
  tenantId: server.bootstrap!.tenant_id as string,
  appId: server.bootstrap!.app_id as string,
  environmentId: null,
};
const admin = { authorization: `Bearer ${KEY}`, 'x-service-app-id': scope.appId, 'content-type': 'application/json' };

async function post(path: string, headers: Record<string, string>, body: unknown, expect = 200): Promise<any> {
  const r = await fetch(server.url + path, { method: 'POST', headers, body: JSON.stringify(body) });
  const answer = (await r.json()) as { data: unknown };
  if (r.status !== expect) throw new Error(`${path} answered ${r.status}: ${JSON.stringify(answer).slice(0, 300)}`);
  return answer.data;
}

// 1. The experiment, run by run, through the API.
const fillStarted = performance.now();
const batchMs: number[] = [];
const runIds: string[] = [];
let experimentId = '';
const rand = seededRandom(42);
for (let r = 0; r < RUNS; r++) {
  const run = await post(
    '/v1/evals/runs',
    admin,
    { experiment: 'bench', suite: 'bench-suite', config: { model: `model-${r}` } },
    201,
  );
  experimentId = run.experiment_id;
  runIds.push(run.id);
  const worker = {
    authorization: `Bearer ${run.api_key.plaintext_key}`,
    'x-service-app-id': scope.appId,
    'content-type': 'application/json',
  };
  await post(`/v1/evals/runs/${run.id}/status`, worker, {});
  const skill = 0.4 + 0.3 * (r / RUNS);
  const trials = Array.from({ length: TRIALS }, (_, i) => ({
    taskId: `task-${String(i).padStart(5, '0')}`,
    resolved: rand() < skill,
    costUsd: Math.round(rand() * 1e6) / 1e7,
    durationMs: Math.round(500 + rand() * 5000),
    artifact: { run: r, task: i, diff: `--- a/file${i}\n+++ b/file${i}` },
  }));
  batchMs.push(await timed(() => post('/v1/evals/trials', worker, { evalRunId: run.id, schemaVersion: 1, trials })));
  await post(`/v1/evals/runs/${run.id}/status`, worker, { card: { skill } });
}
const fillSeconds = (performance.now() - fillStarted) / 1000;
// Measured on the file as it rests (checkpointed at the stop), the raw queries on a copy of it.
await server.stop('SIGTERM');
const rawDir = tempDir('tracelake-evals-bench-raw-');
cpSync(dataDir, rawDir, { recursive: true });
server = await startServer({ dataDir, args: SERVER_ARGS });
const db = await Database.open({ dataDir: resolve(rawDir), threads: 2, memoryLimit: '4GiB', queryTimeoutMs: 600_000 });

// 2 and 3: each endpoint through the API and the store functions it runs on raw DuckDB, in turn,
// so that the load of a shared machine weighs on both alike.
const [previous, last] = runIds.slice(-2) as [string, string];
const endpoints = {
  baseline: `/v1/experiments/baseline?experiment_id=${experimentId}&run_id=${last}`,
  experiment: `/v1/experiments/${experimentId}`,
  list: '/v1/experiments',
};
type Endpoint = keyof typeof endpoints;
const rawCalls: Record<Endpoint, () => Promise<unknown>> = {
  // What the baseline endpoint runs: the runs without figures, then the comparison of the two.
  baseline: async () => {
    await experimentRuns(db, scope, experimentId, false);
    return compareRuns(db, scope, previous, last);
  },
  experiment: () => experimentRuns(db, scope, experimentId),
  list: () => listExperiments(db, scope, 50, 0),
};
const api: Record<Endpoint, number[]> = { baseline: [], experiment: [], list: [] };
const raw: Record<Endpoint, number[]> = { baseline: [], experiment: [], list: [] };
const apiAnswers: Record<string, any> = {};
let rawComparison: any;
for (const name of Object.keys(endpoints) as Endpoint[]) {
  for (let i = 0; i < REPEAT + 3; i++) {
    const a = await timed(async () => {
      const r = await fetch(server.url + endpoints[name], { headers: admin });
      apiAnswers[name] = await r.json();
      if (r.status !== 200) throw new Error(`${endpoints[name]} answered ${r.status}`);
    });
    const b = await timed(async () => {
      const answer = await rawCalls[name]();
      if (name === 'baseline') rawComparison = answer;
    });
    if (i >= 3) {
      api[name].push(a);
      raw[name].push(b);
    }
  }
}
await server.stop('SIGTERM');
const [{ n: scores } = { n: 0 }] = await db.query<{ n: number }>(
  `SELECT count(*)::DOUBLE AS n FROM scores WHERE source = 'eval'`,
);
db.close();
rmSync(dataDir, { recursive: true, force: true });
rmSync(rawDir, { recursive: true, force: true });

const apiCounts = apiAnswers.baseline.data.comparison.tasks;
if (
  apiCounts.paired !== TRIALS ||
  apiCounts.fixed !== rawComparison.aggregates.counts.fixed ||
  apiCounts.regressed !== rawComparison.aggregates.counts.regressed
) {
  throw new Error(
    `the API and the raw query disagree: ${JSON.stringify(apiCounts)} vs ${JSON.stringify(rawComparison.aggregates.counts)}`,
  );
}

console.log(
  `evals: ${RUNS} runs × ${TRIALS} trials (${Math.round(scores).toLocaleString('en-US')} eval score rows), reported through the API in ${fillSeconds.toFixed(1)} s; a batch of ${TRIALS} trials: median ${median(batchMs).toFixed(1)} ms`,
);
for (const name of Object.keys(endpoints) as Endpoint[]) {
  const a = median(api[name]);
  const r = median(raw[name]);
  const budget = 1.3 * r + 5;
  console.log(
    `  ${name.padEnd(10)} API ${a.toFixed(1).padStart(7)} ms   raw ${r.toFixed(1).padStart(7)} ms   ${(a / r).toFixed(2)}×   budget ${budget.toFixed(1)} ms: ${a <= budget ? 'met' : 'MISSED'}`,
  );
}
console.log(
  `  comparison of the last two runs: ${JSON.stringify(apiCounts)}, change ${apiAnswers.baseline.data.comparison.resolved_rate.change.toFixed(3)} ${JSON.stringify(apiAnswers.baseline.data.comparison.resolved_rate.ci95.map((x: number) => Number(x.toFixed(3))))}`,
);
