/**
 * The latest traces read in two steps (the start of the page's last row first, looked for in the
 * window's newest or oldest hour before the whole window, then the page's rows bounded by it) give
 * the page one step gives — ties at the bound included, any offset, either order, pages inside
 * that hour and past it — against a real DuckDB.
 */
import { rmSync } from 'node:fs';
import t from 'tap';
import { parseFilter, type Filter } from '../../../src/core/filter/index.js';
import { Database } from '../../../src/store/db.js';
import { storeDirs } from '../../../src/store/layout.js';
import { migrate } from '../../../src/store/migrate.js';
import { searchTraces, type SearchQuery } from '../../../src/store/spans/search.js';
import { LocalSegmentStore } from '../../../src/store/spans/segmentStore.js';
import { tempDir } from '../../helpers/server.js';

const scope = {
  tenantId: '00000000-0000-4000-8000-000000000001',
  appId: '00000000-0000-4000-8000-000000000002',
  environmentId: '00000000-0000-4000-8000-000000000003',
};

t.test('a bounded page is the page', async (t) => {
  const dataDir = tempDir();
  const db = await Database.open({ dataDir, threads: 1, memoryLimit: '512MiB', queryTimeoutMs: 30_000 });
  t.teardown(() => {
    db.close();
    rmSync(dataDir, { recursive: true, force: true });
  });
  await migrate(db);
  const src = { db, segments: new LocalSegmentStore(storeDirs(dataDir).segments) };
  // 60 merged traces whose starts repeat in runs of 4, so every page boundary falls inside a tie;
  // a run every 8 minutes over two hours, so the window's first and last hours hold 7 or 8 runs.
  const baseMs = Date.now() - 7_200_000;
  const base = BigInt(baseMs) * 1_000_000n;
  await db.exec(
    `INSERT INTO traces (tenant_id, app_id, environment_id, trace_id, start_ns, end_ns, best_r, best_s, best_name, cost, tokens, span_count, has_error, has_ok, tags)
     SELECT $1, $2, $3, lpad(i::VARCHAR, 32, '0'), $4::BIGINT + (i // 4) * 480000000000, $4::BIGINT + (i // 4) * 480000000000 + 5, 0, 0, 'trace-' || i, 0, 0, 1, 0, 1, []
       FROM range(60) r(i)`,
    [scope.tenantId, scope.appId, scope.environmentId, base],
  );
  const read = { ...scope, environmentId: null };
  // The empty filter takes the two-step path; an always-true one is the one-step read of the same rows.
  const twoStep: Filter = [];
  const oneStep = parseFilter('span_count >= 0', 'traces');
  for (const sortOrder of ['desc', 'asc'] as const) {
    for (const [limit, offset] of [
      [5, 0],
      [6, 3],
      [10, 18],
      [7, 55],
      [50, 40],
      [3, 60],
      [20, 8],
      [4, 28],
      [4, 29],
    ] as const) {
      const q: SearchQuery = {
        scope: read,
        fromMs: baseMs,
        toMs: Date.now() + 60_000,
        limit,
        offset,
        sortBy: 'start',
        sortOrder,
        format: 'json',
      };
      const [a, b] = [await searchTraces(src, q, twoStep), await searchTraces(src, q, oneStep)];
      t.same(a, b, `${sortOrder}, limit ${limit}, offset ${offset}`);
      t.equal(a.kind === 'json' && a.data.length, Math.max(0, Math.min(limit, 60 - offset)));
    }
  }
});
