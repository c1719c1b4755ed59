/**
 * Storage failures on a real small filesystem (issue 10, defects 2 and 5), run by
 * `npm run test:faults`: a full disk, a checkpoint on a full disk, a file-size limit and a
 * read-only data directory. What must hold: writes answer 503 with Retry-After (which OTLP
 * exporters retry; a 500 they drop), nothing acknowledged is lost, a dead database makes the
 * process exit to be restarted (and /health says so meanwhile), and a directory that cannot be
 * written stops the start with one clear line.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { createServer, type AddressInfo } from 'node:net';
import { relative } from 'node:path';
import t, { type Test } from 'tap';
import { ingestLogDir } from '../../src/store/layout.js';
import { exportRequest, hex } from '../helpers/otlp.js';
import { opsMetric } from '../helpers/opsMetrics.js';
import { call, runUntilExit, startServer, type Credentials, type TestServer } from '../helpers/server.js';
import { smallDisk, type SmallDisk } from '../helpers/smallDisk.js';
import { until } from '../helpers/until.js';
import { exportSpans } from '../helpers/exportSpans.js';

const KEY = 'sk_service_' + 'Storage'.repeat(6);
const SERVER_ARGS = ['--duckdb-memory', '256MiB', '--fault-injection', 'on', '--flush-interval-ms', '50'];

async function diskOrSkip(t: Test, sizeMiB: number): Promise<SmallDisk | null> {
  const disk = await smallDisk(sizeMiB);
  if (typeof disk === 'string') {
    t.fail(`cannot make a small filesystem here: ${disk}`);
    return null;
  }
  t.teardown(() => disk.close());
  return disk;
}

async function serverOn(
  t: Test,
  disk: SmallDisk,
  args: string[] = [],
): Promise<{ server: TestServer; auth: Credentials }> {
  const server = await startServer({
    dataDir: `${disk.dir}/store`,
    wrap: disk.wrap,
    args: [...SERVER_ARGS, ...args],
    env: { TRACELAKE_BOOTSTRAP_KEY: KEY },
  });
  t.teardown(() => server.stop('SIGKILL'));
  return { server, auth: { key: KEY, appId: server.bootstrap!.app_id as string } };
}

/** Sends one trace of `spans` spans; `wait` asks to be answered once readable. */
function send(server: TestServer, auth: Credentials, traceId: string, spans: number, wait: boolean) {
  const big = 'x'.repeat(4096);
  return call(server, 'POST', '/v1/traces', {
    rawBody: JSON.stringify(
      exportRequest(
        Array.from({ length: spans }, (_, i) => ({ traceId, name: `s${i}`, attributes: { 'input.value': big + i } })),
      ),
    ),
    headers: {
      authorization: auth.key,
      'x-service-app-id': auth.appId,
      'content-type': 'application/json',
      'x-tracelake-wait': wait ? 'visible' : '',
    },
  });
}

t.test('a full disk: writes answer 503 with Retry-After, and freeing space loses nothing acknowledged', async (t) => {
  const disk = await diskOrSkip(t, 96);
  if (!disk) return;
  const { server, auth } = await serverOn(t, disk, ['--metrics-listen', 'api']);
  const acked: string[] = [];
  for (let i = 0; i < 3; i++) {
    const id = hex(16);
    t.equal((await send(server, auth, id, 20, true)).status, 200);
    acked.push(id);
  }
  // Enough spans that an export streams several chunks from DuckDB (2,048 rows each).
  const many = hex(16);
  const bulk = await exportSpans(
    server,
    auth,
    Array.from({ length: 5000 }, (_, i) => ({ traceId: many, name: `m${i}` })),
  );
  t.equal(bulk.status, 200, bulk.text);
  acked.push(many);

  disk.fill(16 * 1024);
  let refused = 0;
  let lastOtlp: Awaited<ReturnType<typeof send>> | null = null;
  // Until the disk refuses a write, requests may still fit in what is left.
  for (let i = 0; i < 50 && refused === 0; i++) {
    const id = hex(16);
    lastOtlp = await send(server, auth, id, 50, false);
    if (lastOtlp.status === 200) acked.push(id);
    else refused++;
  }
  t.equal(lastOtlp?.status, 503, `OTLP on a full disk: ${lastOtlp?.text}`);
  t.equal(lastOtlp?.body.error.code, 'storage_unavailable');
  t.ok(Number(lastOtlp?.headers.get('retry-after')) > 0, 'with Retry-After');

  const score = await call(server, 'POST', '/v1/scores', {
    auth,
    body: { name: 'on-full-disk', score: 1, resource_id: acked[0] },
  });
  t.not(score.status, 500, `a JSON write is not a 500 either: ${score.status} ${score.text}`);
  if (score.status !== 201) {
    t.equal(score.status, 503);
    t.equal(score.body.error.code, 'storage_unavailable');
  }
  const health = await call(server, 'GET', '/health');
  t.equal(health.status, 503, '/health reports what the ingestion checks know');
  // An export writes its file before the answer: on a full disk that is a 503 too, never the
  // process's end (a native error thrown through DuckDB's stream used to abort it).
  // Filled again right before each export: the server frees space as it goes (log files deleted
  // once their spans are committed).
  const rests: string[] = [];
  for (const format of ['parquet', 'arrow']) {
    disk.fill(0, `filler-${format}`);
    rests.push(`${disk.dir}/filler-${format}`);
    const r = await call(server, 'GET', `/v1/spans?format=${format}`, { auth });
    t.equal(r.status, 503, `a ${format} export on a full disk: ${r.status} ${r.text.slice(0, 200)}`);
    t.equal(r.body?.error?.code, 'storage_unavailable');
  }
  t.equal(server.child.exitCode, null, 'the server still runs after the exports');
  disk.run('rm', '-f', ...rests);

  disk.free();
  const after = hex(16);
  t.equal((await send(server, auth, after, 5, true)).status, 200, 'with space again, ingestion works');
  acked.push(after);
  for (const id of acked) {
    const trace = await call(server, 'GET', `/v1/traces/${id}`, { auth: { ...auth } });
    t.equal(trace.status, 200, `acknowledged trace ${id} is readable`);
  }
  t.comment(
    `full disk: ${acked.length} traces acknowledged across the episode (${acked.length - 4} of them after the disk was filled, before the first 503), all readable after`,
  );
  // Whatever the episode refused or held back, nothing of it may stay counted in the backlog.
  t.equal(await opsMetric(server, 'tracelake_ingest_backlog_bytes'), 0, 'the backlog is empty once all is readable');
  // Once everything is committed, every log file is deleted (in the background).
  const logFiles = () =>
    readdirSync(disk.path(relative(disk.dir, ingestLogDir(server.dataDir)))).filter((f) => f.endsWith('.log'));
  t.ok(await until(() => logFiles().length === 0), `no ingest log file is left (${logFiles().join(', ')})`);
});

t.test(
  'a checkpoint on a full disk kills the database: exit 75, /health unhealthy, restart serves what was acked',
  async (t) => {
    const disk = await diskOrSkip(t, 96);
    if (!disk) return;
    const { server, auth } = await serverOn(t, disk);
    const acked = hex(16);
    t.equal((await send(server, auth, acked, 20, true)).status, 200);
    // Grow the WAL a little so the checkpoint has something to write.
    for (let i = 0; i < 20; i++)
      await call(server, 'POST', '/v1/scores', { auth, body: { name: `s${i}`, score: i, resource_id: acked } });

    disk.fill(0);
    const exited = new Promise<number | null>((resolve) => server.child.on('exit', (code) => resolve(code)));
    const checkpoint = await call(server, 'POST', '/v1/_faults/checkpoint');
    t.equal(checkpoint.status, 503, `the failed checkpoint answers 503: ${checkpoint.text}`);
    const started = performance.now();
    const code = await exited;
    t.equal(code, 75, 'the process exits 75 (EX_TEMPFAIL) so a supervisor restarts it');
    t.ok(
      server.logs.some((l) => l.level === 60 && /cannot be used any more/.test(l.msg)),
      'and says why at fatal',
    );

    disk.free();
    const restartedAt = performance.now();
    const again = await startServer({
      dataDir: `${disk.dir}/store`,
      wrap: disk.wrap,
      args: SERVER_ARGS,
      env: { TRACELAKE_BOOTSTRAP_KEY: KEY },
    });
    t.teardown(() => again.stop('SIGKILL'));
    const restartMs = performance.now() - restartedAt;
    t.equal((await call(again, 'GET', `/v1/traces/${acked}`, { auth })).status, 200, 'the acked trace survives');
    const scores = await call(again, 'GET', `/v1/scores?limit=100`, { auth });
    t.equal(scores.body.pagination.total, 20, 'and the committed scores');
    t.equal((await call(again, 'GET', '/health')).status, 200);
    t.comment(
      `fatal checkpoint: exit ${Math.round(performance.now() - started)} ms after the failure; restart to listening ${Math.round(restartMs)} ms`,
    );
  },
);

t.test('a dead database exits 75 even when its log is on the full disk', async (t) => {
  const disk = await diskOrSkip(t, 96);
  if (!disk) return;
  const port = await freePort();
  const url = `http://127.0.0.1:${port}`;
  // The server's stdout and stderr go to a file on the small disk, as under `> server.log`.
  const exited = runUntilExit({
    dataDir: `${disk.dir}/store`,
    wrap: [...disk.wrap, 'sh', '-c', `exec "$@" >> ${disk.dir}/server.log 2>&1`, 'sh'],
    args: [...SERVER_ARGS, '--port', String(port)],
    env: { TRACELAKE_BOOTSTRAP_KEY: KEY },
  });
  let code: number | null | undefined;
  void exited.then((c) => (code = c));
  t.ok(await until(async () => (await fetch(`${url}/health`).catch(() => null))?.status === 200), 'the server answers');
  const server = { url } as TestServer;
  const bootstrap = readFileSync(disk.path('server.log'), 'utf8')
    .split('\n')
    .map((l) => (l.startsWith('{') ? JSON.parse(l) : {}))
    .find((l) => l.msg === 'bootstrap');
  const auth = { key: KEY, appId: bootstrap.app_id as string };
  t.equal((await send(server, auth, hex(16), 20, true)).status, 200);
  for (let i = 0; i < 20; i++)
    await call(server, 'POST', '/v1/scores', { auth, body: { name: `s${i}`, score: i, resource_id: hex(16) } });

  disk.fill(0);
  const checkpoint = await call(server, 'POST', '/v1/_faults/checkpoint');
  t.equal(checkpoint.status, 503, `the failed checkpoint answers 503: ${checkpoint.text}`);
  const started = performance.now();
  t.ok(await until(() => code !== undefined, 30_000), 'the process ends though its log cannot be written');
  t.equal(code, 75, 'with 75 (EX_TEMPFAIL), so a supervisor restarts it');
  t.comment(`exit ${Math.round(performance.now() - started)} ms after the failure`);
});

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const probe = createServer();
    probe.once('error', reject);
    probe.listen(0, '127.0.0.1', () => {
      const { port } = probe.address() as AddressInfo;
      probe.close(() => resolve(port));
    });
  });
}

t.test('a file-size limit answers 503, not 500', async (t) => {
  const disk = await diskOrSkip(t, 64);
  if (!disk) return;
  // prlimit runs inside the namespace: every file the server writes is capped at 12 MiB (the
  // database stays well under it; one large request's log record does not).
  const server = await startServer({
    dataDir: `${disk.dir}/store`,
    wrap: [...disk.wrap, 'prlimit', `--fsize=${12 * 1024 * 1024}`],
    args: SERVER_ARGS,
    env: { TRACELAKE_BOOTSTRAP_KEY: KEY },
  });
  t.teardown(() => server.stop('SIGKILL'));
  const auth = { key: KEY, appId: server.bootstrap!.app_id as string };
  const small = hex(16);
  t.equal((await send(server, auth, small, 5, true)).status, 200, 'small requests fit');
  // One request whose log record alone exceeds the limit.
  const exited = new Promise<string>((resolve) =>
    server.child.on('exit', (code, signal) => resolve(`exit ${code} ${signal}`)),
  );
  const r = await send(server, auth, hex(16), 3200, false).catch(async (e: Error) => {
    throw new Error(
      `${e.message}: the server ended (${await exited}); its last lines: ${JSON.stringify(server.logs.slice(-3))}`,
    );
  });
  t.equal(r.status, 503, `over the file-size limit: ${r.text}`);
  t.equal(r.body.error.code, 'storage_unavailable');
  t.equal((await call(server, 'GET', `/v1/traces/${small}`, { auth })).status, 200, 'the server keeps serving');
  t.equal(
    server.child.exitCode,
    null,
    `and runs on (${JSON.stringify(server.logs.filter((l) => (l.level as number) >= 50).map((l) => l.msg))})`,
  );
});

t.test('a read-only data directory stops the start with one clear line', async (t) => {
  const disk = await diskOrSkip(t, 16);
  if (!disk) return;
  disk.run('mount', '-o', 'remount,ro', disk.dir);
  await t.rejects(
    startServer({ dataDir: `${disk.dir}/store`, wrap: disk.wrap, args: SERVER_ARGS }),
    /exited with 1.*(not writable|read-only|EROFS)/s,
  );
});
