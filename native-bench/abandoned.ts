/**
 * native-bench/abandoned: a storm of reads whose clients give up. Rounds of `--clients` requests
 * at once (trace lists and by id, span lists and their Parquet and Arrow exports, CSV, searches,
 * metrics, sessions, score aggregations) over a small store, each aborted by its client after a
 * random 0–`--patience` ms, as an impatient UI or an SDK with a short timeout would; then one
 * trace list, repeated until it is answered 200. Figures: answers 2xx and 503 during the storm, and
 * how long after the storm the first read is answered — the time the store spends on work nobody
 * waits for. With `--baseline <checkout>` that build's server runs the same storm, builds
 * alternating, and the ratios are printed.
 *
 *   npm run build && node dist/native-bench/abandoned.js [--rounds 60] [--clients 40] [--patience 15] [--runs 3] [--baseline /path/to/built/checkout]
 */
import { rmSync } from 'node:fs';
import { exportRequest, hex } from '../test/helpers/otlp.js';
import { startServer, tempDir } from '../test/helpers/server.js';
import { arg, buildModule, textArg } from './args.js';
import { percentile } from './loadClient.js';

const ROUNDS = arg('rounds', 60);
const CLIENTS = arg('clients', 40);
const PATIENCE_MS = arg('patience', 15);
const RUNS = arg('runs', 3);
const BASELINE = textArg('baseline', '');
const KEY = 'sk_service_' + 'Abandon'.repeat(6);

interface Figures {
  answered: number;
  refused: number;
  recoveryMs: number;
}

async function storm(root: string): Promise<Figures> {
  const dataDir = tempDir('tracelake-abandoned-bench-');
  const main = root ? new URL(buildModule(root, 'src/main.js'), 'file://').pathname : undefined;
  const server = await startServer({ dataDir, env: { TRACELAKE_BOOTSTRAP_KEY: KEY }, ...(main ? { main } : {}) });
  try {
    const appId = server.bootstrap!.app_id as string;
    const traceIds = Array.from({ length: 20 }, () => hex(16));
    for (const traceId of traceIds) {
      const body = JSON.stringify(
        exportRequest([
          { traceId, name: 'root' },
          { traceId, name: 'child' },
        ]),
      );
      const r = await fetch(`${server.url}/v1/traces`, {
        method: 'POST',
        body,
        headers: {
          authorization: KEY,
          'x-service-app-id': appId,
          'content-type': 'application/json',
          'x-tracelake-wait': 'visible',
        },
      });
      if (r.status !== 200) throw new Error(`ingest: ${r.status}`);
    }
    const headers = { authorization: `Bearer ${KEY}`, 'x-service-app-id': appId };
    const reads: [string, string, string?][] = [
      ['GET', '/v1/traces'],
      ['GET', '/v1/spans'],
      ['GET', `/v1/traces/${traceIds[0]}`],
      ['GET', '/v1/spans?format=parquet'],
      ['GET', '/v1/spans?format=arrow'],
      ['GET', '/v1/traces?format=csv'],
      ['POST', '/v1/traces/search', '{}'],
      ['GET', '/v1/metrics'],
      ['GET', '/v1/sessions'],
      ['GET', '/v1/scores/aggregations'],
    ];
    let answered = 0;
    let refused = 0;
    const one = async (i: number) => {
      const [method, path, body] = reads[i % reads.length]!;
      const client = new AbortController();
      const timer = setTimeout(() => client.abort(), Math.random() * PATIENCE_MS);
      try {
        const r = await fetch(server.url + path, {
          method,
          headers: { ...headers, 'content-type': 'application/json' },
          ...(body ? { body } : {}),
          signal: client.signal,
        });
        await r.arrayBuffer();
        if (r.status < 300) answered++;
        if (r.status === 503) refused++;
      } catch {
        // aborted: the client went away
      }
      clearTimeout(timer);
    };
    for (let round = 0; round < ROUNDS; round++)
      await Promise.all(Array.from({ length: CLIENTS }, (_, i) => one(round * CLIENTS + i)));
    const t0 = performance.now();
    for (;;) {
      const r = await fetch(`${server.url}/v1/traces`, { headers });
      await r.arrayBuffer();
      if (r.status === 200) break;
      if (r.status !== 503) throw new Error(`after the storm: ${r.status}`);
      await new Promise((r) => setTimeout(r, 20));
    }
    return { answered, refused, recoveryMs: performance.now() - t0 };
  } finally {
    await server.stop('SIGKILL');
    rmSync(dataDir, { recursive: true, force: true });
  }
}

const builds = [{ name: 'this build', root: '', runs: [] as Figures[] }];
if (BASELINE) builds.unshift({ name: 'baseline', root: BASELINE, runs: [] });
for (let run = 0; run < RUNS; run++)
  for (const b of run % 2 ? [...builds].reverse() : builds) b.runs.push(await storm(b.root));

const median = (xs: number[]) =>
  percentile(
    [...xs].sort((a, b) => a - b),
    0.5,
  );
const of = (b: (typeof builds)[number], k: keyof Figures) => median(b.runs.map((r) => r[k]));
console.log(`${ROUNDS} rounds of ${CLIENTS} reads, each abandoned after 0–${PATIENCE_MS} ms, ${RUNS} runs (medians)`);
for (const b of builds) {
  console.log(
    `  ${b.name.padEnd(10)} answered ${of(b, 'answered')}, 503 ${of(b, 'refused')}, first read after the storm answered in ${of(b, 'recoveryMs').toFixed(0)} ms   (runs: ${b.runs.map((r) => `${r.answered}/${r.refused}/${r.recoveryMs.toFixed(0)}`).join(', ')})`,
  );
}
if (BASELINE) {
  const [base, self] = [builds[0]!, builds[1]!];
  console.log(
    `  ratio to the baseline: time to the first read after the storm ${(of(self, 'recoveryMs') / of(base, 'recoveryMs')).toFixed(2)}×`,
  );
}
