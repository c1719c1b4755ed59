/**
 * Retention (per app, in days; the server's default when the app sets none; 0 keeps everything).
 * Whole segment files go: a file is dropped once every span in it started before the cutoff, through
 * the same replace-then-purge path as compaction, so a running query never loses a file under it.
 * Trace summaries that ended before the cutoff, and blobs stored before it, go with them. Scores
 * are kept (they are annotations; they can be deleted one by one), and so are eval trials with
 * their artifact blobs.
 *
 * A trace that crosses the cutoff keeps the spans that sit in files still in range until those
 * files age out too (at most one day later: files hold one day each).
 */
import type { Database } from '../db.js';
import { forgetSegments } from './manifest.js';

const DAY_MS = 86_400_000;

export interface RetentionOutcome {
  apps: number;
  segments: number;
  traces: number;
}

export async function applyRetention(db: Database, defaultDays: number, nowMs: number): Promise<RetentionOutcome> {
  const apps = await db.query<{ tenant_id: string; app_id: string; days: number }>(
    `SELECT a.tenant_id::VARCHAR AS tenant_id, a.id::VARCHAR AS app_id, coalesce(s.retention_days, $1)::INTEGER AS days
       FROM apps a LEFT JOIN app_settings s ON s.app_id = a.id WHERE coalesce(s.retention_days, $1) > 0`,
    [defaultDays],
  );
  const outcome: RetentionOutcome = { apps: apps.length, segments: 0, traces: 0 };
  for (const app of apps) {
    const cutoffMs = nowMs - app.days * DAY_MS;
    const cutoffNs = BigInt(Math.trunc(cutoffMs)) * 1_000_000n;
    await db.transaction(async (tx) => {
      const scope = [app.tenant_id, app.app_id];
      const files = await tx.query<{ n: number }>(
        `UPDATE segments SET replaced_at = now()::TIMESTAMP
          WHERE tenant_id = $1 AND app_id = $2 AND replaced_at IS NULL AND max_start_ns < $3 RETURNING 1 AS n`,
        [...scope, cutoffNs],
      );
      outcome.segments += files.length;
      const merged = await tx.query<{ n: number }>(
        'DELETE FROM traces WHERE tenant_id = $1 AND app_id = $2 AND end_ns < $3 RETURNING 1 AS n',
        [...scope, cutoffNs],
      );
      outcome.traces += merged.length;
      await tx.exec('DELETE FROM trace_parts WHERE tenant_id = $1 AND app_id = $2 AND end_ns < $3', [
        ...scope,
        cutoffNs,
      ]);
      // Eval trial artifacts stay, as their trials and scores do.
      await tx.exec(
        `DELETE FROM blobs WHERE tenant_id = $1 AND app_id = $2 AND created_at < make_timestamp($3::BIGINT * 1000)
            AND sha256 NOT IN (SELECT artifact_sha256 FROM eval_trials WHERE tenant_id = $1 AND app_id = $2)`,
        [...scope, Math.trunc(cutoffMs)],
      );
    });
    // After the commit: a reader must not cache the list as it was before it.
    forgetSegments(db, [{ tenantId: app.tenant_id, appId: app.app_id }]);
  }
  return outcome;
}
