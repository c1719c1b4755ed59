/**
 * A store of merged trace summaries written by SQL, for the benches of what the summaries cost
 * (`waitingParts`, `checkpointGrowth`): one scope, summaries in time order over the day before
 * `nowMs` (as ingest leaves them: the merge appends), trace i's id MD5(i).
 */
import type { Database } from '../src/store/db.js';
import { PART_COLUMNS, sessionKeySql, traceKeySql } from '../src/store/spans/traceParts.js';

export const SCOPE = {
  tenantId: '00000000-0000-4000-8000-000000000001',
  appId: '00000000-0000-4000-8000-000000000002',
  environmentId: '00000000-0000-4000-8000-000000000003',
};
export const DAY_MS = 86_400_000;
const COLS = PART_COLUMNS.join(', ');

/**
 * Summary `i` (SQL over an integer column `i`) of `total` spread over the day, as a part row in the
 * column order of `PART_COLUMNS`.
 */
function partRow(i: string, nowMs: number, total: number): string {
  const nowNs = BigInt(nowMs) * 1_000_000n;
  const gapNs = (BigInt(DAY_MS) * 1_000_000n) / BigInt(total + 1);
  const start = `${nowNs} - (${total} - ${i}) * ${gapNs}`;
  return `'${SCOPE.tenantId}'::UUID, '${SCOPE.appId}'::UUID, '${SCOPE.environmentId}'::UUID, md5(${i}::VARCHAR),
          ${start}, ${start} + 50000000, 0, ${start}, 'agent', 'the question of trace ' || ${i}, 'its answer ' || ${i},
          0.01, 800, 8, 0, 1, ['bench'], 'session-' || (${i} // 4), 'user-' || (${i} % 100), NULL, '{"k":"v"}',
          NULL, NULL, NULL`;
}

/** The scope's environment, which every summary names. */
export async function addEnvironment(db: Database): Promise<void> {
  await db.exec(
    `INSERT INTO environments (id, tenant_id, app_id, name, kind) VALUES ($1, $2, $3, 'default', 'production')`,
    [SCOPE.environmentId, SCOPE.tenantId, SCOPE.appId],
  );
}

/** Merged summaries `from` ≤ i < `to` of `total`, appended in order, in chunks. */
export async function appendSummaries(db: Database, from: number, to: number, total: number, nowMs: number) {
  for (let at = from; at < to; at += 250_000)
    await db.exec(
      `INSERT INTO traces (${COLS}, trace_key, session_key)
       SELECT *, ${traceKeySql('trace_id')}, ${sessionKeySql('session_id')}
         FROM (SELECT ${partRow('i', nowMs, total)} FROM range(${at}, ${Math.min(to, at + 250_000)}) r(i) ORDER BY i) x(${COLS})`,
    );
}

/** Parts `from` ≤ i < `to` of `total` waiting to be merged. */
export async function addParts(db: Database, from: number, to: number, total: number, nowMs: number) {
  await db.exec(
    `INSERT INTO trace_parts (${COLS}) SELECT ${partRow('i', nowMs, total)} FROM range(${from}, ${to}) r(i)`,
  );
}
