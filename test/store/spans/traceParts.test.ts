/** Summary parts computed while writing (JS) equal the SQL backfill over the same stored spans. */
import { rmSync } from 'node:fs';
import t from 'tap';
import { mapExportRequest } from '../../../src/core/otlp/map.js';
import { toRows } from '../../../src/ingest/rows.js';
import { Database } from '../../../src/store/db.js';
import { migrate } from '../../../src/store/migrate.js';
import { SPAN_COLUMNS } from '../../../src/store/spans/columns.js';
import { PART_KINDS, PARTS_FROM_SPANS_SQL, partsOf } from '../../../src/store/spans/traceParts.js';
import { exportRequest, hex } from '../../helpers/otlp.js';
import { tempDir } from '../../helpers/server.js';

t.test('parts: JS while writing = SQL backfill', async (t) => {
  const dataDir = tempDir();
  const db = await Database.open({ dataDir, threads: 1, memoryLimit: '512MiB', queryTimeoutMs: 30_000 });
  t.teardown(() => {
    db.close();
    rmSync(dataDir, { recursive: true, force: true });
  });
  await migrate(db);
  const a = hex(16), b = hex(16);
  const rootA = hex(8);
  const request = exportRequest([
    { traceId: a, spanId: hex(8), parentSpanId: rootA, name: 'child', attributes: { 'gen_ai.request.model': 'gpt-4o', 'gen_ai.usage.input_tokens': 10, 'tracelake.tags': 'x' } },
    { traceId: a, spanId: rootA, name: 'root', attributes: { 'session.id': 's', 'input.value': 'hello', 'tracelake.cost': 0.5 } },
    { traceId: b, name: 'orphan', attributes: { 'user.id': 'u' } },
  ]);
  const scope = { tenantId: '00000000-0000-4000-8000-000000000001', appId: '00000000-0000-4000-8000-000000000002', environmentId: '00000000-0000-4000-8000-000000000003' };
  const { rows } = toRows(scope, mapExportRequest(request).spans);
  await db.transaction(async (tx) => {
    await tx.append('spans', SPAN_COLUMNS.map(([, k]) => k), rows);
    await tx.append('trace_parts', PART_KINDS, partsOf(rows));
  });
  const read = () => db.query('SELECT * EXCLUDE (tags), list_sort(tags) AS tags FROM trace_parts ORDER BY trace_id');
  const fromJs = await read();
  await db.exec('DELETE FROM trace_parts');
  await db.exec(PARTS_FROM_SPANS_SQL);
  t.same(await read(), fromJs);
  t.equal(fromJs.length, 2);
  const partA = fromJs.find((p) => p.trace_id === a)!;
  t.equal(partA.best_name, 'root');
  t.equal(partA.best_r, 0);
  t.equal(partA.span_count, 2);
  t.equal(partA.session_id, 's');
});
