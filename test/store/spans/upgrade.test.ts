/**
 * A store written before segments existed (spans in the DuckDB `spans` table) opens with this
 * version: migrations 200–201 move its spans into Parquet segments, rebuild the summary parts, and
 * every trace reads as before.
 */
import { readdirSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import t from 'tap';
import { hashKey, shownPrefix } from '../../../src/auth/keys.js';
import { loadOrCreateSecret } from '../../../src/auth/secret.js';
import { mapExportRequest } from '../../../src/core/otlp/map.js';
import { toRows } from '../../../src/ingest/rows.js';
import { bootstrap } from '../../../src/store/admin/meta.js';
import { Database } from '../../../src/store/db.js';
import { migrate } from '../../../src/store/migrate.js';
import { MIGRATIONS } from '../../../src/store/migrations.js';
import { SPAN_COLUMNS } from '../../../src/store/spans/columns.js';
import { exportRequest, hex } from '../../helpers/otlp.js';
import { call, startServer, tempDir } from '../../helpers/server.js';

t.test('spans of an older store move into segments and read as before', async (t) => {
  const dataDir = tempDir();
  t.teardown(() => rmSync(dataDir, { recursive: true, force: true }));
  const key = 'sk_service_' + 'Upgrade'.repeat(6);
  const secret = loadOrCreateSecret(dataDir);
  const db = await Database.open({ dataDir, threads: 1, memoryLimit: '512MiB', queryTimeoutMs: 30_000 });
  // The schema as it was before segments, and a store that used it.
  await migrate(db, MIGRATIONS.filter((m) => m.version < 200));
  const scope = (await bootstrap(db, { keyHash: hashKey(secret, key), keyPrefix: shownPrefix(key) }))!;
  const traces = [hex(16), hex(16)];
  const root = hex(8);
  const { rows } = toRows(scope, mapExportRequest(exportRequest([
    { traceId: traces[0]!, spanId: root, name: 'root', attributes: { 'session.id': 'old-session' } },
    { traceId: traces[0]!, parentSpanId: root, name: 'child', attributes: { 'gen_ai.request.model': 'gpt-4o', 'gen_ai.usage.input_tokens': 7 } },
    { traceId: traces[1]!, name: 'other' },
  ])).spans);
  await db.transaction((tx) => tx.append('spans', SPAN_COLUMNS.map(([, kind]) => kind), rows));
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
  t.same(trace.body.data.spans.map((s: { name: string }) => s.name), ['root', 'child']);
  t.equal((await call(server, 'GET', `/v1/traces/${traces[1]}/spans`, { auth })).body.data.length, 1);
  const list = await call(server, 'GET', '/v1/spans?filter=' + encodeURIComponent('model = gpt-4o'), { auth });
  t.equal(list.body.pagination.total, 1, 'span searches read the moved spans');
  const files = readdirSync(join(dataDir, 'segments'), { recursive: true }).map(String).filter((f) => f.endsWith('.parquet'));
  t.ok(files.length >= 1 && files.every((f) => /migrated-/.test(f)), 'in Parquet files of the Hive layout');
});
