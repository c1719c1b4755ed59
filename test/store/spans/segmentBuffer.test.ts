/**
 * The compute worker's segment buffer against its real DuckDB: records keep arriving (a cell made,
 * rows appended) while a generation is written (a cell closed, `COPY … TO`, `DROP`), so the
 * buffer's statements overlap. Every write must still succeed and hold exactly its rows: the CI run
 * of 38480b5 lost a replayed generation to "Attempting to execute an unsuccessful or closed pending
 * query result" when a cell was closed while other statements were in flight on one connection.
 */
import { rmSync } from 'node:fs';
import { DuckDBInstance } from '@duckdb/node-api';
import t from 'tap';
import { mapExportRequest } from '../../../src/core/otlp/map.js';
import { toRows } from '../../../src/ingest/rows.js';
import { SegmentBuffer, type BufferedCell } from '../../../src/store/spans/segmentBuffer.js';
import type { SpanRow } from '../../../src/store/spans/columns.js';
import { exportRequest, hex } from '../../helpers/otlp.js';
import { tempDir } from '../../helpers/server.js';

const scope = {
  tenantId: '00000000-0000-4000-8000-000000000001',
  appId: '00000000-0000-4000-8000-000000000002',
  environmentId: '00000000-0000-4000-8000-000000000003',
};

function rowsOf(traces: number): SpanRow[] {
  const specs = Array.from({ length: traces }, () => hex(16)).flatMap((traceId) => [
    { traceId },
    { traceId },
    { traceId },
  ]);
  return toRows(scope, mapExportRequest(exportRequest(specs)).spans).rows;
}

t.test('cells made, filled and closed while others are written: every write succeeds with its rows', async (t) => {
  const dir = tempDir();
  const buffer = await SegmentBuffer.open(dir);
  const check = await (await DuckDBInstance.create(':memory:')).connect();
  t.teardown(() => {
    check.closeSync();
    buffer.close();
    rmSync(dir, { recursive: true, force: true });
  });
  const big = rowsOf(4000);
  const written: Promise<{ path: string; rows: number }>[] = [];
  const write = (cell: BufferedCell, path: string) =>
    buffer.write(cell, scope, path).then((w) => ({ path, rows: w.rows }));
  let next = await buffer.cell();
  for (let i = 0; i < 24; i++) {
    // A large generation's write in flight (its COPY runs off this thread) …
    const writing = await buffer.cell();
    buffer.append(writing, big);
    written.push(write(writing, `${dir}/big-${i}.parquet`));
    // … a new cell made for the next record, and the cell before it closed and written, at once.
    const making = buffer.cell();
    const small = rowsOf(2 + i);
    buffer.append(next, small);
    written.push(write(next, `${dir}/small-${i}.parquet`));
    next = await making;
  }
  await buffer.drop(next);
  const results = await Promise.allSettled(written);
  const failed = results.filter((r) => r.status === 'rejected').map((r) => String((r as PromiseRejectedResult).reason));
  t.same(failed, [], 'no write failed');
  for (const r of results) {
    if (r.status !== 'fulfilled') continue;
    const count = (
      await check.runAndReadAll(`SELECT count(*)::INTEGER AS n FROM '${r.value.path}'`)
    ).getRowObjects()[0]!.n;
    t.equal(count, r.value.rows, `${r.value.path.slice(dir.length + 1)} holds its ${r.value.rows} rows`);
  }
});
