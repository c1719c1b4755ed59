/** A tenant's usage against its plan's quotas: spans stored this month, bytes stored in all. */
import { monthOf } from '../../core/plans.js';
import type { Database } from '../db.js';

export async function tenantUsage(
  db: Database,
  tenantId: string,
  nowMs: number,
): Promise<{ month: string; monthSpans: number; storedBytes: number }> {
  const month = monthOf(nowMs);
  const [row] = await db.query<{ month_spans: number; bytes: number }>(
    `SELECT (coalesce(sum(spans) FILTER (WHERE month = $2), 0))::DOUBLE AS month_spans, coalesce(sum(bytes), 0)::DOUBLE AS bytes
       FROM tenant_usage WHERE tenant_id = $1`,
    [tenantId, month],
  );
  return { month, monthSpans: row?.month_spans ?? 0, storedBytes: row?.bytes ?? 0 };
}
