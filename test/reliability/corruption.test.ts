/**
 * The corrupt-file matrix (issue 10): each damaged file is a clear refusal or a quarantine with a
 * report, never a silent loss. The secret and the WAL have their own files (secret.test.ts,
 * wal.test.ts); here the database file and a segment file.
 */
import { readdirSync, readFileSync, statSync, truncateSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import t, { type Test } from 'tap';
import { hex } from '../helpers/otlp.js';
import { call, startServer, tempDir, type TestServer } from '../helpers/server.js';
import { exportSpans } from '../helpers/exportSpans.js';

const KEY = 'sk_service_' + 'Corrupt'.repeat(6);

/** A store with two traces in separate segments, stopped cleanly (everything checkpointed). */
async function storeWithTraces(t: Test): Promise<{ dataDir: string; appId: string; traces: string[] }> {
  const dataDir = tempDir();
  const server = await startServer({
    dataDir,
    env: { TRACELAKE_BOOTSTRAP_KEY: KEY },
    args: ['--compaction-interval-ms', '0'],
  });
  const appId = server.bootstrap!.app_id as string;
  const traces = [hex(16), hex(16)];
  for (const traceId of traces) {
    const r = await exportSpans(server, { key: KEY, appId }, [{ traceId }, { traceId }]);
    t.equal(r.status, 200);
  }
  t.equal(await server.stop('SIGTERM'), 0);
  return { dataDir, appId, traces };
}

const segmentFiles = (dataDir: string) =>
  readdirSync(join(dataDir, 'segments'), { recursive: true })
    .map(String)
    .filter((f) => f.endsWith('.parquet') && !f.startsWith('.tmp'));

t.test('a damaged database file stops the start with one line naming it and the way back', async (t) => {
  const { dataDir } = await storeWithTraces(t);
  const path = join(dataDir, 'tracelake.duckdb');
  const bytes = readFileSync(path);
  bytes.fill(0xab, 0, 512);
  writeFileSync(path, bytes);
  await t.rejects(
    startServer({ dataDir, env: { TRACELAKE_BOOTSTRAP_KEY: KEY } }),
    /exited with 1.*tracelake\.duckdb is damaged.*Restore it from a backup/s,
  );
  t.same(readFileSync(path).subarray(0, 512), bytes.subarray(0, 512), 'the file is left as it was for the operator');
});

t.test('an unreadable segment file is set aside and reported; everything else reads on', async (t) => {
  const { dataDir, appId, traces } = await storeWithTraces(t);
  const files = segmentFiles(dataDir);
  t.equal(files.length, 2, 'one segment per trace');
  // Damage the first trace's segment: cut its footer off.
  const victim = join(
    dataDir,
    'segments',
    files.find((f) => readFileSync(join(dataDir, 'segments', f)).includes(Buffer.from(traces[0]!)))!,
  );
  truncateSync(victim, Math.floor(statSync(victim).size / 2));

  const server: TestServer = await startServer({ dataDir, env: { TRACELAKE_BOOTSTRAP_KEY: KEY } });
  t.teardown(() => server.stop('SIGKILL'));
  const auth = { key: KEY, appId };
  // The check runs in the background right after the start: wait for its report.
  const report = await server
    .waitForLog((l) => /could not be read and were set aside/.test(l.msg))
    .catch(() => undefined);
  t.ok(report, 'the damage is logged');
  t.equal(report?.level, 50, 'at error');
  t.match(JSON.stringify(report), /rows/, 'with the rows it held');

  t.same(readdirSync(join(dataDir, 'quarantine', 'segments')).length, 1, 'the file is kept in quarantine');
  const files2 = await call(server, 'GET', '/v1/health/files');
  t.equal(files2.status, 503, 'the files report says so');

  t.equal((await call(server, 'GET', `/v1/traces/${traces[1]}`, { auth })).status, 200, 'the other trace reads');
  const search = await call(server, 'GET', '/v1/spans?limit=10', { auth });
  t.equal(search.status, 200, 'span searches over the window work (no 500 from the damaged file)');
  t.same(
    search.body.data.map((s: { trace_id: string }) => s.trace_id),
    [traces[1], traces[1]],
  );
});
