/**
 * The scores store against a real DuckDB: the appended column order matches the table, the
 * insert is all or nothing, and a trace score keeps its trace id once.
 */
import { rmSync } from 'node:fs';
import t from 'tap';
import { Database } from '../../src/store/db.js';
import { storeDirs } from '../../src/store/layout.js';
import { LocalSegmentStore } from '../../src/store/spans/segmentStore.js';
import { migrate } from '../../src/store/migrate.js';
import { planAggregation } from '../../src/core/scores/selection.js';
import {
  aggregateScores,
  deleteScore,
  getScore,
  insertScores,
  listScores,
  SCORE_COLUMNS,
  scoreNames,
} from '../../src/store/scores/scores.js';
import { tempDir } from '../helpers/server.js';

t.test('scores at rest', async (t) => {
  const dataDir = tempDir();
  const db = await Database.open({ dataDir, threads: 1, memoryLimit: '256MiB', queryTimeoutMs: 30_000 });
  t.teardown(() => {
    db.close();
    rmSync(dataDir, { recursive: true, force: true });
  });
  t.ok((await migrate(db)).includes(100), 'migration 100 applies');

  const columns = await db.query<{ name: string; type: string }>(`SELECT name, type FROM pragma_table_info('scores')`);
  t.same(
    columns.map((c) => c.name),
    SCORE_COLUMNS.map(([name]) => name),
    'rows are appended positionally: the order must match',
  );
  t.match(
    Object.fromEntries(columns.map((c) => [c.name, c.type])),
    {
      name: 'VARCHAR',
      score: 'DOUBLE',
      source: 'VARCHAR',
      user_id: 'VARCHAR',
      resource_id: 'VARCHAR',
      label: 'VARCHAR',
      created_at: 'TIMESTAMP',
    },
    'the columns the filter compiler expects of a score row `s`',
  );

  const scope = {
    tenantId: '00000000-0000-4000-8000-000000000001',
    appId: '00000000-0000-4000-8000-000000000002',
    environmentId: '00000000-0000-4000-8000-000000000003',
  };
  const traceId = 'ab'.repeat(16);
  // The trace exists for scores once it has a summary part.
  await db.exec(
    `INSERT INTO trace_parts (tenant_id, app_id, environment_id, trace_id, start_ns, end_ns, best_r, best_s, best_name, cost, tokens, span_count, has_error, has_ok)
     VALUES ($1, $2, $3, $4, 0, 1, 0, 0, 'root', 0, 0, 1, 0, 0)`,
    [scope.tenantId, scope.appId, scope.environmentId, traceId],
  );
  const segments = new LocalSegmentStore(storeDirs(dataDir).segments);
  const item = (index: number) => ({
    index,
    name: 'q',
    score: index,
    dataType: null,
    label: null,
    reason: null,
    source: 'api' as const,
    userId: null,
    resourceId: traceId,
    resourceKind: 'trace' as const,
    sessionId: null,
  });
  const page = {
    scope,
    selection: { equals: [], fromMs: null, toMs: null },
    limit: 10,
    offset: 0,
    sortBy: 'score' as const,
    sortOrder: 'asc' as const,
    format: 'json' as const,
  };

  const failed = await insertScores(db, segments, {
    scope,
    writeEnvironmentId: scope.environmentId,
    items: [item(0), item(1)],
    createdBy: 'test',
    fault: true,
  });
  t.match(failed.insertFailed, /CHECK constraint failed on table scores/);
  t.same(failed.scores, []);
  t.equal((await listScores(db, page)).total, 0, 'nothing of a failed insert is stored');

  const ok = await insertScores(db, segments, {
    scope,
    writeEnvironmentId: scope.environmentId,
    items: [item(0), item(1)],
    createdBy: 'test',
    fault: false,
  });
  t.equal(ok.insertFailed, null);
  const stored = await listScores(db, page);
  t.equal(stored.total, 2);
  t.same(stored.kind === 'json' && stored.data, ok.scores, 'what the insert answers is what is read back');
  t.same(
    ok.scores.map((s) => s.resource_id),
    [traceId, traceId],
    'a trace score names its trace',
  );
  t.same(
    await db.query('SELECT resource_id, trace_id FROM scores'),
    [
      { resource_id: null, trace_id: traceId },
      { resource_id: null, trace_id: traceId },
    ],
    'and keeps it once, as its trace_id',
  );
  t.same(await getScore(db, scope, ok.scores[1]!.id), ok.scores[1], 'read by id with its resource');

  // Scoping: another tenant (even with the same app id) and another pinned environment see nothing;
  // an unpinned caller of the app sees everything.
  const first = ok.scores[0]!;
  const plan = planAggregation({}, Date.now() + 1000);
  const otherTenant = { ...scope, tenantId: '00000000-0000-4000-8000-000000000009' };
  const otherEnvironment = { ...scope, environmentId: '00000000-0000-4000-8000-000000000008' };
  for (const [what, other] of [
    ['another tenant', otherTenant],
    ['another environment', otherEnvironment],
  ] as const) {
    t.equal(await getScore(db, other, first.id), null, `${what}: read`);
    t.equal((await listScores(db, { ...page, scope: other })).total, 0, `${what}: list`);
    t.same(await scoreNames(db, other), [], `${what}: names`);
    t.same(await aggregateScores(db, other, plan), [], `${what}: aggregations`);
    t.equal(await deleteScore(db, other, first.id), null, `${what}: delete`);
  }
  const unpinned = { ...scope, environmentId: null };
  t.equal((await listScores(db, { ...page, scope: unpinned })).total, 2, 'an unpinned caller sees the whole app');
  t.same(await aggregateScores(db, scope, plan), [{ name: 'q', count: 2, avg_score: 0.5, min_score: 0, max_score: 1 }]);
  t.match(await deleteScore(db, scope, first.id), { id: first.id }, 'the owner deletes it');
});

t.test('migration 101: session scores stored without a resource_id get their session as resource', async (t) => {
  const dataDir = tempDir();
  const db = await Database.open({ dataDir, threads: 1, memoryLimit: '256MiB', queryTimeoutMs: 30_000 });
  t.teardown(() => {
    db.close();
    rmSync(dataDir, { recursive: true, force: true });
  });
  const { MIGRATIONS } = await import('../../src/store/migrations.js');
  await migrate(
    db,
    MIGRATIONS.filter((m) => m.version !== 101),
  );
  const row = (id: string, type: string, resource: string | null, session: string | null) =>
    db.exec(
      `INSERT INTO scores (id, tenant_id, app_id, name, score, data_type, source, resource_id, resource_type, session_id, created_at)
       VALUES ($1, gen_random_uuid(), gen_random_uuid(), 'q', 1, 'NUMERIC', 'api', $2, $3, $4, now()::TIMESTAMP)`,
      [id, resource, type, session],
    );
  await row('00000000-0000-4000-8000-00000000000a', 'session', null, 'sess-1');
  await row('00000000-0000-4000-8000-00000000000b', 'trace', 'ab'.repeat(16), 'sess-1');
  t.same(await migrate(db), [101], 'only 101 was missing');
  const rows = await db.query<{ resource_id: string }>('SELECT resource_id FROM scores ORDER BY id');
  t.same(
    rows.map((r) => r.resource_id),
    ['sess-1', 'ab'.repeat(16)],
    'the session score names its session; the trace score is untouched',
  );
});
