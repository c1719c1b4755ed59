/**
 * A damaged DuckDB WAL is never a silent loss (issue 10, defect 7). DuckDB replays what it can
 * read and drops the rest without a word; the store's WAL watermark notices before the open, keeps
 * the WAL as found in quarantine/, logs what happened at error, sets aside (instead of deleting)
 * the segment files whose manifest rows went with the WAL, and /v1/health/files says so.
 * An intact WAL after kill -9 raises no alarm.
 */
import { existsSync, readdirSync, readFileSync, statSync, truncateSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import t, { type Test } from 'tap';
import { hex } from '../helpers/otlp.js';
import { call, startServer, tempDir, type TestServer } from '../helpers/server.js';
import { until } from '../helpers/until.js';
import { exportSpans } from '../helpers/exportSpans.js';

const WAL = 'tracelake.duckdb.wal';
const WATERMARK = 'tracelake.duckdb.wal-watermark';

/** A store killed with -9 right after a trace was committed, its WAL holding the commit. */
async function killedWithWal(t: Test): Promise<{ dataDir: string; traceId: string; key: string; appId: string }> {
  const dataDir = tempDir();
  const server = await startServer({ dataDir });
  const key = server.bootstrap!.api_key as string;
  const appId = server.bootstrap!.app_id as string;
  const traceId = hex(16);
  const sent = await exportSpans(server, { key, appId }, [{ traceId, name: 'kept-in-the-wal' }]);
  t.equal(sent.status, 200);
  // The watermark is recorded after each commit; wait until it covers the whole WAL.
  const walBytes = () => (existsSync(join(dataDir, WAL)) ? statSync(join(dataDir, WAL)).size : 0);
  const covered = await until(() => {
    if (!existsSync(join(dataDir, WATERMARK))) return false;
    const mark = JSON.parse(readFileSync(join(dataDir, WATERMARK), 'utf8')) as { size: number };
    return mark.size > 0 && mark.size === walBytes();
  }, 10_000);
  t.ok(covered, 'the watermark covers the WAL');
  await server.stop('SIGKILL');
  return { dataDir, traceId, key, appId };
}

async function restart(t: Test, dataDir: string): Promise<TestServer> {
  const server = await startServer({ dataDir });
  t.teardown(() => server.stop('SIGKILL'));
  return server;
}

t.test('an intact WAL after kill -9 replays whole and raises no alarm', async (t) => {
  const { dataDir, traceId, key, appId } = await killedWithWal(t);
  const server = await restart(t, dataDir);
  t.notOk(
    server.logs.some((l) => /WAL was damaged/.test(l.msg)),
    'no damage reported',
  );
  t.notOk(existsSync(join(dataDir, 'quarantine')), 'nothing quarantined');
  t.equal(
    (await call(server, 'GET', `/v1/traces/${traceId}`, { auth: { key, appId } })).status,
    200,
    'the trace is there',
  );
  t.equal((await call(server, 'GET', '/v1/health/files')).status, 200);
});

for (const [damage, apply] of [
  [
    'garbage at its head',
    (path: string) => {
      const bytes = readFileSync(path);
      bytes.fill(0xab, 0, 64);
      writeFileSync(path, bytes);
    },
  ],
  ['truncated to half', (path: string) => truncateSync(path, Math.floor(statSync(path).size / 2))],
] as const) {
  t.test(`a WAL with ${damage} is quarantined, reported, and its segments kept`, async (t) => {
    const { dataDir, traceId } = await killedWithWal(t);
    const segmentsBefore = readdirSync(join(dataDir, 'segments'), { recursive: true })
      .map(String)
      .filter((f) => f.endsWith('.parquet'));
    t.ok(segmentsBefore.length > 0, 'the trace was written as a segment');
    apply(join(dataDir, WAL));
    const found = readFileSync(join(dataDir, WAL));

    const server = await restart(t, dataDir);
    const report = server.logs.find((l) => /WAL was damaged/.test(l.msg));
    t.ok(report, 'the damage is logged');
    t.equal(report?.level, 50, 'at error');
    t.match(String(report?.reason), damage === 'truncated to half' ? /truncated/ : /overwritten/);

    const quarantine = readdirSync(join(dataDir, 'quarantine'));
    const copy = quarantine.find((f) => f.endsWith('tracelake.duckdb.wal'));
    t.ok(copy, 'the WAL as found is kept');
    t.same(readFileSync(join(dataDir, 'quarantine', copy!)), found, 'byte for byte');
    if (damage === 'garbage at its head') {
      // DuckDB dropped the whole WAL, the manifest row of the trace's segment with it: the
      // segment is set aside, not deleted as an orphan.
      const aside = readdirSync(join(dataDir, 'quarantine', 'segments'));
      t.ok(
        aside.some((f) => segmentsBefore.some((s) => f.endsWith(s.split('/').pop()!))),
        `the segment is kept: ${aside.join(', ')}`,
      );
    }

    const files = await call(server, 'GET', '/v1/health/files');
    t.equal(files.status, 503, 'the files report is unhealthy until an operator has looked');
    const q = files.body.dependencies.find((d: { name: string }) => d.name === 'quarantine');
    t.match(q.error, /quarantine/);
    t.ok(traceId);
  });
}
