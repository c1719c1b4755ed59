/**
 * Damage in an ingest-log file (issue 53, item 1), run by `npm run faults`. With flushes held
 * back, acknowledged exports live only in the log when the server is killed with -9; bytes are then
 * overwritten at the file's head and a bit flipped in its middle. After the restart every intact
 * record is readable, the file as found and a report are kept in quarantine/ingest-log, and
 * /v1/health/files and a metric say how many requests were lost until an operator removes them.
 * A torn tail (a write a crash cut short, never acknowledged) stays a warning.
 */
import { appendFileSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import t from 'tap';
import { ingestLogDir } from '../../src/store/layout.js';
import { opsMetric } from '../helpers/opsMetrics.js';
import { call, tempDir, type TestServer } from '../helpers/server.js';
import { exportTrace, spansOf, starter } from '../helpers/traceRounds.js';

const KEY = 'sk_service_' + 'LogDamage'.repeat(5);
const EXPORTS = 8;
const SPANS = 25;
const ENV = {
  TRACELAKE_BOOTSTRAP_KEY: KEY,
  TRACELAKE_FLUSH_INTERVAL_MS: '60000',
  TRACELAKE_SEGMENT_ROWS: '1000000',
  TRACELAKE_METRICS_LISTEN: 'api',
};

t.test('a damaged ingest-log file: intact records replayed, the loss kept and reported', async (t) => {
  const dataDir = tempDir();
  const start = starter(t, dataDir, ENV);
  const first = await start();
  const auth = { key: KEY, appId: first.bootstrap!.app_id as string };
  // Acknowledged once logged, not once visible: with flushes held back the spans stay in the log.
  const exportLogged = (server: TestServer) => exportTrace(t, server, auth, SPANS, false);
  const traces: string[] = [];
  for (let i = 0; i < EXPORTS; i++) traces.push(await exportLogged(first));
  await first.stop('SIGKILL');

  const logDir = ingestLogDir(dataDir);
  const [name, ...others] = readdirSync(logDir).filter((f) => f.endsWith('.log'));
  t.same(others, [], 'one log file holds the acknowledged exports (flushes held back)');
  const bytes = readFileSync(join(logDir, name!));
  const starts = [...bytes.toString('latin1').matchAll(/TLR1/g)].map((m) => m.index);
  t.equal(starts.length, EXPORTS, 'one record per export');
  bytes.fill(0xff, 0, 16); // the head of the first record
  bytes.writeUInt8(bytes.readUInt8(starts[4]! + 40) ^ 0x10, starts[4]! + 40); // a bit of the fifth
  writeFileSync(join(logDir, name!), bytes);

  const second = await start();
  const lost = new Set([0, 4]);
  const readable = await Promise.all(traces.map((id) => spansOf(second, auth, id)));
  t.same(
    readable,
    traces.map((_, i) => (lost.has(i) ? 0 : SPANS)),
    'every intact record is readable, those after the damage too',
  );
  const report = second.logs.find((l) => /ingest log file damaged/.test(l.msg));
  t.equal(report?.level, 50, 'the loss is logged at error');
  t.equal(report?.records_lost, 2);

  const quarantine = join(dataDir, 'quarantine', 'ingest-log');
  t.same(readdirSync(quarantine).sort(), [`${name}.damage.json`, `${name}.damaged`], 'the file and its report');
  t.same(readFileSync(join(quarantine, `${name}.damaged`)), bytes, 'the file is kept as found');
  const written = JSON.parse(readFileSync(join(quarantine, `${name}.damage.json`), 'utf8'));
  t.match(written, { file: name, recordsLost: 2, recordsRecovered: 6, bytes: bytes.length }, 'the report');
  t.same(
    written.regions.map((r: { offset: number }) => r.offset),
    [0, starts[4]],
    'where the damage is',
  );
  t.same(
    readdirSync(logDir).filter((f) => f.endsWith('.log')),
    [],
    'the log file itself has left the log',
  );

  const files = await call(second, 'GET', '/v1/health/files');
  t.equal(files.status, 503, '/v1/health/files is unhealthy');
  const check = files.body.dependencies.find((d: { name: string }) => d.name === 'quarantine');
  t.match(check, { status: 'unhealthy', detail: { damaged_log_files: 1, log_records_lost: 2 } });
  t.match(check.error, /2 acknowledged request\(s\) lost to damage in 1 ingest log file/);
  t.equal(await opsMetric(second, 'tracelake_ingest_log_records_lost'), 2, 'the metric counts the lost requests');
  t.equal(await opsMetric(second, 'tracelake_ingest_log_damaged_files'), 1);

  // The operator acknowledges by removing the report (and the copy, once looked at).
  rmSync(join(quarantine, `${name}.damage.json`));
  t.equal(await opsMetric(second, 'tracelake_ingest_log_records_lost'), 0, 'acknowledged: the metric clears');
  t.equal((await call(second, 'GET', '/v1/health/files')).status, 503, 'the copy still keeps the check unhealthy');
  rmSync(join(quarantine, `${name}.damaged`));
  t.equal((await call(second, 'GET', '/v1/health/files')).status, 200, 'emptied: healthy again');

  // A torn tail: a record the crash cut short was never acknowledged; it is a warning, not a loss.
  const more = [await exportLogged(second), await exportLogged(second)];
  await second.stop('SIGKILL');
  const [next] = readdirSync(logDir).filter((f) => f.endsWith('.log'));
  const tail = readFileSync(join(logDir, next!));
  const last = tail.lastIndexOf('TLR1');
  appendFileSync(join(logDir, next!), tail.subarray(last, last + ((tail.length - last) >> 1))); // half a record
  const third = await start();
  t.same(
    await Promise.all(more.map((id) => spansOf(third, auth, id))),
    [SPANS, SPANS],
    'the acknowledged records read',
  );
  t.ok(
    third.logs.some((l) => l.level === 40 && /torn record/.test(l.msg)),
    'the torn tail is a warning',
  );
  t.equal((await call(third, 'GET', '/v1/health/files')).status, 200, 'and no alarm');
  t.equal(await opsMetric(third, 'tracelake_ingest_log_records_lost'), 0);
});
