/**
 * App updates and deletes (spec: Apps). An app's delete takes its environments and API keys with it,
 * in one transaction; its spans, blobs and scores stay in the store but no key can reach them.
 */
import {
  appChanges,
  appDeletion,
  assertAppDeletable,
  type AppCascade,
  type AppPatch,
  type Deletion,
} from '../../core/admin/rules.js';
import { ApiError } from '../../core/errors.js';
import { requireApp, type AppRef } from './environments.js';
import { RERUN_ON_CONFLICT, type Database } from '../db.js';
import { listApps, type AppView } from './meta.js';

export type AppDeletion = Deletion<AppCascade>;

/** Sets the given fields, `updated_at` and `updated_by`; 404 when the app is not in the tenant. */
export async function updateApp(db: Database, ref: AppRef, patch: AppPatch, by: string): Promise<AppView> {
  const all = appChanges(patch);
  // Settings live in their own table (see the migration); the other fields are columns of apps.
  const changes = all.filter(([column]) => column !== 'retention_days');
  const retention = all.find(([column]) => column === 'retention_days');
  await db.transaction(async (tx) => {
    // Column names come from APP_PATCH_FIELDS only; values are bound.
    const sets = changes.map(([column], i) => `${column} = $${i + 3}`);
    const rows = await tx.query(
      `UPDATE apps SET ${[...sets, 'updated_at = now()::TIMESTAMP', `updated_by = $${changes.length + 3}`].join(', ')}
        WHERE tenant_id = $1 AND id = $2 RETURNING id`,
      [ref.tenantId, ref.appId, ...changes.map(([, value]) => value), by],
    );
    if (rows.length === 0) throw new ApiError('not_found', `App ${ref.appId} not found`);
    if (retention) {
      await tx.exec(
        `INSERT INTO app_settings (app_id, tenant_id, retention_days) VALUES ($1, $2, $3)
         ON CONFLICT (app_id) DO UPDATE SET retention_days = excluded.retention_days`,
        [ref.appId, ref.tenantId, retention[1]],
      );
    }
  }, RERUN_ON_CONFLICT);
  return (await listApps(db, ref.tenantId, ref.appId))[0]!;
}

/**
 * Deletes an app of the tenant with its environments and keys (never the caller's own app). Returns
 * the answer and the removed keys' hashes for the auth cache.
 */
export async function deleteApp(
  db: Database,
  ref: AppRef,
  callerAppId: string,
  confirmationName: string | undefined,
  deletedAt: string,
): Promise<{ deletion: AppDeletion; keyHashes: string[] }> {
  return db.transaction(async (tx) => {
    assertAppDeletable(await requireApp(tx, ref), callerAppId, confirmationName);
    const params = [ref.tenantId, ref.appId];
    const keys = await tx.query<{ key_hash: string }>(
      'DELETE FROM api_keys WHERE tenant_id = $1 AND app_id = $2 RETURNING key_hash',
      params,
    );
    const envs = await tx.query('DELETE FROM environments WHERE tenant_id = $1 AND app_id = $2 RETURNING id', params);
    await tx.exec('DELETE FROM app_settings WHERE tenant_id = $1 AND app_id = $2', params);
    await tx.exec('DELETE FROM apps WHERE tenant_id = $1 AND id = $2', params);
    return {
      deletion: appDeletion(ref.appId, deletedAt, envs.length, keys.length),
      keyHashes: keys.map((k) => k.key_hash),
    };
  }, RERUN_ON_CONFLICT);
}
