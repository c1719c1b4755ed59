/**
 * Integration: retention per app (`retention_days` on the app, the server's `--retention-days` when
 * the app sets none). Spans past it go as whole segment files — their traces, their files on disk —
 * while newer ones stay.
 */
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import t from 'tap';
import { atRest } from '../helpers/atRest.js';
import { exportRequest, hex } from '../helpers/otlp.js';
import { call, rootCredentials, startServer, tempDir, type Credentials, type TestServer } from '../helpers/server.js';
import { until } from '../helpers/until.js';

const DAY_NS = 86_400_000_000_000n;

/** A trace of two spans that started `daysAgo` days ago. */
async function traceAged(server: TestServer, auth: Credentials, daysAgo: number): Promise<string> {
  const traceId = hex(16);
  const body = exportRequest([{ traceId }, { traceId }]);
  for (const s of body.resourceSpans[0]!.scopeSpans[0]!.spans) {
    s.startTimeUnixNano = String(BigInt(s.startTimeUnixNano) - BigInt(daysAgo) * DAY_NS);
    s.endTimeUnixNano = String(BigInt(s.endTimeUnixNano) - BigInt(daysAgo) * DAY_NS);
  }
  const r = await call(server, 'POST', '/v1/traces', {
    rawBody: JSON.stringify(body),
    headers: { authorization: auth.key, 'x-service-app-id': auth.appId, 'content-type': 'application/json' },
  });
  if (r.status !== 200) throw new Error(`ingest: ${r.status}`);
  return traceId;
}

t.test("retention drops whole files of spans past an app's retention", async (t) => {
  const dataDir = tempDir();
  const first = await startServer({ dataDir });
  const root = rootCredentials(first);
  const old = await traceAged(first, root, 10);
  const recent = await traceAged(first, root, 0);

  const bad = await call(first, 'PATCH', `/v1/apps/${root.appId}`, { auth: root, body: { retention_days: 0 } });
  t.equal(bad.status, 400, 'retention is at least a day (null: the server default)');
  const set = await call(first, 'PATCH', `/v1/apps/${root.appId}`, { auth: root, body: { retention_days: 5 } });
  t.equal(set.status, 200);
  t.equal(set.body.data.retention_days, 5);
  t.equal(
    (await call(first, 'GET', `/v1/traces/${old}`, { auth: root })).status,
    200,
    'before retention runs, the old trace is there',
  );
  t.equal(await first.stop('SIGTERM'), 0);
  const oldFiles = await atRest(dataDir, async (c) =>
    (
      await c.runAndReadAll(
        `SELECT path FROM segments WHERE max_start_ns < (epoch_ns(now()::TIMESTAMP) - 5 * 86400000000000)`,
      )
    )
      .getRowObjectsJson()
      .map((r) => join(dataDir, 'segments', r.path as string)),
  );
  t.equal(oldFiles.length, 1, 'the old spans sit in a file of their own day');

  // Retention runs at start (then hourly); a short query timeout makes the purge's grace period short
  // (twice it), not so short that a loaded machine stops the reads below at it.
  const server = await startServer({ dataDir, args: ['--query-timeout-ms', '1000'] });
  t.teardown(() => server.stop('SIGKILL'));
  t.ok(
    await until(async () => (await call(server, 'GET', `/v1/traces/${old}`, { auth: root })).status === 404),
    'the old trace is gone',
  );
  t.equal((await call(server, 'GET', `/v1/traces/${recent}`, { auth: root })).status, 200, 'the recent one stays');
  t.ok(await until(() => oldFiles.every((f) => !existsSync(f))), 'its file is deleted from disk');
  const spans = await call(
    server,
    'GET',
    `/v1/spans?start_date=${new Date(Date.now() - 30 * 86_400_000).toISOString()}`,
    { auth: root },
  );
  t.same(
    spans.body.data.map((s: { trace_id: string }) => s.trace_id),
    [recent, recent],
    'span searches see only what is kept',
  );
  t.ok(
    server.logs.some((l) => l.msg.startsWith('retention dropped') && l.segments === 1),
    'what retention dropped is logged',
  );

  const cleared = await call(server, 'PATCH', `/v1/apps/${root.appId}`, { auth: root, body: { retention_days: null } });
  t.equal(cleared.body.data.retention_days, null, 'null returns to the server default');
});

t.test('the server default applies to apps without a retention of their own', async (t) => {
  const dataDir = tempDir();
  const first = await startServer({ dataDir });
  const root = rootCredentials(first);
  const old = await traceAged(first, root, 4);
  t.equal(await first.stop('SIGTERM'), 0);
  const keep = await startServer({ dataDir, args: ['--retention-days', '0'] });
  t.equal((await call(keep, 'GET', `/v1/traces/${old}`, { auth: root })).status, 200, '0 keeps everything');
  t.equal(await keep.stop('SIGTERM'), 0);
  const server = await startServer({ dataDir, args: ['--retention-days', '3'] });
  t.teardown(() => server.stop('SIGKILL'));
  t.ok(
    await until(async () => (await call(server, 'GET', `/v1/traces/${old}`, { auth: root })).status === 404),
    'a 4-day-old trace goes with a 3-day default',
  );
});
