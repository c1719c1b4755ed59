/**
 * A DuckDB WAL cut short soon after a crash (issue 53, item 2), run by `npm run faults`: exports
 * acknowledged with `X-Tracelake-Wait: visible`, kill -9 right after the last answer, the WAL then
 * cut back to before the last commit. The WAL's watermark covers every commit before it is
 * answered, so the cut is found even though the crash came within the second a periodic mark
 * waited: what the WAL kept is readable, the segment whose manifest row went with the cut is kept
 * in quarantine (not swept), and /v1/health/files says so. The last export's log file waited in
 * ingest-log/committed/ for a checkpoint, so the start replays it: nothing acknowledged is lost.
 */
import { readdirSync, statSync, truncateSync } from 'node:fs';
import { join } from 'node:path';
import t from 'tap';
import { committedLogDir } from '../../src/store/layout.js';
import { logFilesIn } from '../helpers/logFiles.js';
import { call, tempDir, type TestServer } from '../helpers/server.js';
import { exportTrace, spansOf, starter } from '../helpers/traceRounds.js';

const KEY = 'sk_service_' + 'WalCut'.repeat(7);
const EXPORTS = 8;
const SPANS = 25;
const WAL = 'tracelake.duckdb.wal';

t.test('a WAL cut below an acknowledged commit is found, its segments kept and reported', async (t) => {
  const dataDir = tempDir();
  const start = starter(t, dataDir, { TRACELAKE_BOOTSTRAP_KEY: KEY, TRACELAKE_FAULT_INJECTION: 'on' });
  const first = await start();
  const auth = { key: KEY, appId: first.bootstrap!.app_id as string };
  const exportVisible = (server: TestServer) => exportTrace(t, server, auth, SPANS, true);
  const walBytes = () => statSync(join(dataDir, WAL)).size;
  const traces: string[] = [];
  for (let i = 0; i < EXPORTS - 1; i++) traces.push(await exportVisible(first));
  const beforeLast = walBytes();
  traces.push(await exportVisible(first));
  await first.stop('SIGKILL');
  t.ok(walBytes() > beforeLast, 'the last commit is in the WAL');
  const waiting = () => logFilesIn(committedLogDir(dataDir));
  t.ok(waiting().length > 0, 'the committed log files wait for a checkpoint');
  truncateSync(join(dataDir, WAL), beforeLast); // a cut that keeps every commit but the last

  const second = await start();
  const readable = await Promise.all(traces.map((id) => spansOf(second, auth, id)));
  t.same(
    readable,
    Array(EXPORTS).fill(SPANS),
    'every acknowledged export is readable: the last one replayed from its log file, kept until a checkpoint',
  );
  const damage = second.logs.find((l) => /WAL was damaged/.test(l.msg));
  t.equal(damage?.level, 50, 'the cut is found and logged at error');
  t.match(String(damage?.reason), /truncated/);
  const quarantine = join(dataDir, 'quarantine');
  t.ok(
    readdirSync(quarantine).some((f) => f.endsWith(WAL)),
    'the WAL as found is kept',
  );
  t.ok(
    readdirSync(join(quarantine, 'segments')).length > 0,
    'the segment whose manifest row went with the cut is kept in quarantine, not swept',
  );
  const files = await call(second, 'GET', '/v1/health/files');
  t.equal(files.status, 503, '/v1/health/files is unhealthy until an operator has looked');
  t.equal((await call(second, 'POST', '/v1/_faults/checkpoint')).status, 200);
  t.same(waiting(), [], 'a checkpoint retires the files whose commits it folded in');
});
