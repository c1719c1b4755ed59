/**
 * A store written before segments existed (spans in the DuckDB `spans` table) opens with this
 * version: migrations 200–201 move its spans into Parquet segments, rebuild the summary parts, and
 * every trace reads as before.
 */
import { randomBytes } from 'node:crypto';
import { readdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import t from 'tap';
import { hashKey, shownPrefix } from '../../../src/auth/keys.js';
import { bootstrap } from '../../../src/store/admin/meta.js';
import { Database } from '../../../src/store/db.js';
import { migrate } from '../../../src/store/migrate.js';
import { MIGRATIONS } from '../../../src/store/migrations.js';
import { exportRequest, hex } from '../../helpers/otlp.js';
import { call, rootCredentials, startServer, tempDir, type TestServer } from '../../helpers/server.js';
import { PART_COLUMNS } from '../../../src/store/spans/traceParts.js';

t.test('spans of an older store move into segments and read as before', async (t) => {
  const dataDir = tempDir();
  t.teardown(() => rmSync(dataDir, { recursive: true, force: true }));
  const key = 'sk_service_' + 'Upgrade'.repeat(6);
  // The secret as older versions wrote it (no check value in the store yet).
  const secret = randomBytes(32);
  writeFileSync(join(dataDir, 'secret'), secret.toString('hex') + '\n', { mode: 0o600 });
  const db = await Database.open({ dataDir, threads: 1, memoryLimit: '512MiB', queryTimeoutMs: 30_000 });
  // The schema as it was before segments, and a store that used it.
  await migrate(
    db,
    MIGRATIONS.filter((m) => m.version < 200),
  );
  const scope = (await bootstrap(db, { keyHash: hashKey(secret, key), keyPrefix: shownPrefix(key) }))!;
  const traces = [hex(16), hex(16)];
  const root = hex(8);
  // Rows of the spans table as the old version wrote them (resource and scope on each row).
  const spans: [string, string, string | null, string, string | null, number | null][] = [
    [traces[0]!, root, null, 'root', null, null],
    [traces[0]!, hex(8), root, 'child', 'gpt-4o', 7],
    [traces[1]!, hex(8), null, 'other', null, null],
  ];
  const now = BigInt(Date.now()) * 1_000_000n;
  for (const [i, [traceId, spanId, parentId, name, model, tokens]] of spans.entries()) {
    await db.exec(
      `INSERT INTO spans (tenant_id, app_id, environment_id, trace_id, span_id, parent_id, name, type, span_kind, status, start_ns, end_ns,
                          model, input_tokens, tokens, input_preview, input, session_id, resource, scope_name)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8, 'function', 'OK', $9, $10, $11, $12, $12, 'question', 'question', $13, '{"service.name":"old"}', 'old-sdk')`,
      [
        scope.tenantId,
        scope.appId,
        scope.environmentId,
        traceId,
        spanId,
        parentId,
        name,
        model ? 'GENERATION' : 'SPAN',
        now + BigInt(i),
        now + BigInt(i) + 1000n,
        model,
        tokens,
        name === 'root' ? 'old-session' : null,
      ],
    );
  }
  db.close();

  const server = await startServer({ dataDir });
  t.teardown(() => server.stop('SIGKILL'));
  t.match(server.logs.find((l) => l.msg === 'migrated')?.versions, [200, 201], 'the segment migrations ran');
  const auth = { key, appId: scope.appId };
  const trace = await call(server, 'GET', `/v1/traces/${traces[0]}`, { auth });
  t.equal(trace.status, 200);
  t.equal(trace.body.data.name, 'root');
  t.equal(trace.body.data.span_count, 2);
  t.equal(trace.body.data.session_id, 'old-session');
  t.same(
    trace.body.data.spans.map((s: { name: string }) => s.name),
    ['root', 'child'],
  );
  t.equal((await call(server, 'GET', `/v1/traces/${traces[1]}/spans`, { auth })).body.data.length, 1);
  const session = await call(server, 'GET', '/v1/sessions/old-session/traces', { auth });
  t.same(
    session.body.data.map((x: { id: string }) => x.id),
    [traces[0]],
    'the moved trace in its session',
  );
  const list = await call(server, 'GET', '/v1/spans?filter=' + encodeURIComponent('model = gpt-4o'), { auth });
  t.equal(list.body.pagination.total, 1, 'span searches read the moved spans');
  const opened = await call(server, 'GET', `/v1/traces/${traces[0]}/spans/${root}`, { auth });
  t.same(opened.body.data.resource, { 'service.name': 'old' }, 'resource attributes moved to the resources table');
  t.equal(opened.body.data.scope.name, 'old-sdk');
  t.equal(opened.body.data.input_preview, 'question');
  const files = readdirSync(join(dataDir, 'segments'), { recursive: true })
    .map(String)
    .filter((f) => f.endsWith('.parquet'));
  t.ok(files.length >= 1 && files.every((f) => /migrated-/.test(f)), 'in Parquet files of the Hive layout');
});

t.test("summaries written before migration 203 get their root span's metadata", async (t) => {
  const dataDir = tempDir();
  t.teardown(() => rmSync(dataDir, { recursive: true, force: true }));
  const first = await startServer({ dataDir });
  const auth = rootCredentials(first);
  const traceId = hex(16);
  const root = hex(8);
  const body = exportRequest([
    {
      traceId,
      spanId: root,
      name: 'root',
      attributes: { 'tracelake.metadata.tier': 'gold', 'session.id': 'old-chat' },
    },
    { traceId, parentSpanId: root, name: 'child', attributes: { 'tracelake.metadata.step': 'pay' } },
  ]);
  const otlp = (server: TestServer, request: unknown) =>
    call(server, 'POST', '/v1/traces', {
      rawBody: JSON.stringify(request),
      headers: { authorization: auth.key, 'x-service-app-id': auth.appId, 'content-type': 'application/json' },
    });
  const sent = await otlp(first, body);
  t.equal(sent.status, 200, sent.text);
  t.equal(await first.stop('SIGTERM'), 0, 'stopped cleanly: every span in a segment, every part committed');

  // The summary tables as versions before 203 had them: no best_metadata column.
  const db = await Database.open({ dataDir, threads: 1, memoryLimit: '512MiB', queryTimeoutMs: 30_000 });
  const old = PART_COLUMNS.filter((c) => c !== 'best_metadata').join(', ');
  await db.transaction(async (tx) => {
    await tx.exec(`CREATE TABLE parts_old AS SELECT ${old}, seq FROM trace_parts`);
    await tx.exec(`CREATE TABLE traces_old AS SELECT ${old} FROM traces`);
    await tx.exec('DROP TABLE trace_parts');
    await tx.exec('DROP TABLE traces');
    await tx.exec('ALTER TABLE parts_old RENAME TO trace_parts');
    await tx.exec('ALTER TABLE traces_old RENAME TO traces');
    await tx.exec('CREATE INDEX traces_trace_id ON traces (trace_id)');
    await tx.exec('DELETE FROM schema_migrations WHERE version IN (203, 204, 208)');
  });
  db.close();

  const server = await startServer({ dataDir });
  t.teardown(() => server.stop('SIGKILL'));
  t.same(server.logs.find((l) => l.msg === 'migrated')?.versions, [203, 204, 208], 'migrations 203, 204 and 208 ran');
  const list = async (filter: string) =>
    (await call(server, 'GET', `/v1/traces?filter=${encodeURIComponent(filter)}`, { auth })).body.data.map(
      (x: { id: string }) => x.id,
    );
  t.same(await list('metadata.tier = gold'), [traceId], "the root's metadata reached the old summary");
  t.same(await list('metadata.step exists'), [], "a child's is not the trace's");
  t.same(await list('any_span.metadata.step exists'), [traceId]);
  // Migration 204 gave the old summary its key: a read by id finds it (it compares keys first).
  const byId = await call(server, 'GET', `/v1/traces/${traceId}`, { auth });
  t.equal(byId.status, 200, byId.text);
  t.equal(byId.body.data.spans.length, 2, 'the trace by id, with its spans');
  // And 208 its session's key: the session's traces are found by it.
  const session = await call(server, 'GET', '/v1/sessions/old-chat/traces', { auth });
  t.same(
    session.body.data.map((x: { id: string }) => x.id),
    [traceId],
    'the old summary in its session',
  );
  // New parts are appended by position after the migration rebuilt the tables.
  const again = await otlp(
    server,
    exportRequest([{ traceId: hex(16), name: 'new', attributes: { 'tracelake.metadata.tier': 'new' } }]),
  );
  t.equal(again.status, 200, again.text);
  t.equal(await server.stop('SIGTERM'), 0);
  const third = await startServer({ dataDir });
  t.teardown(() => third.stop('SIGKILL'));
  const after = await call(third, 'GET', `/v1/traces?filter=${encodeURIComponent('metadata.tier = new')}`, { auth });
  t.equal(after.body.data.length, 1, 'a part written after the migration reads with its metadata');
});
