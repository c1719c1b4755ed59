/**
 * Environments of an app (spec: Environments): list, create, update and the typed-name delete that
 * takes the environment's API keys with it in the same transaction. Every statement is scoped by
 * tenant and app, so an id of another app or tenant is not found, exactly like an unknown one.
 */
import { randomUUID } from 'node:crypto';
import {
  assertEnvironmentDeletable,
  environmentChanges,
  environmentDeletion,
  type Deletion,
  type EnvironmentKind,
  type EnvironmentPatch,
} from '../../core/admin/rules.js';
import { ApiError } from '../../core/errors.js';
import { checkEntitlement } from '../../core/plans.js';
import { checkedCreations } from './checkedCreations.js';
import { RERUN_ON_CONFLICT, type Database, type Reader } from '../db.js';
import { isUniqueViolation } from '../refusals.js';
import { iso } from '../sql.js';

/** The tenant and the app of the tenant that an administration call works on. */
export interface AppRef {
  tenantId: string;
  appId: string;
}

export interface EnvironmentView {
  id: string;
  app_id: string;
  name: string;
  kind: EnvironmentKind;
  is_default: boolean;
  created_at: string;
  updated_at: string;
}

const VIEW_SQL = `
  SELECT id, app_id, name, kind, is_default, ${iso('created_at')} AS created_at, ${iso('updated_at')} AS updated_at
    FROM environments WHERE tenant_id = $1 AND app_id = $2`;

/** 404 unless the app exists in the tenant; returns its name. */
export async function requireApp(q: Reader, ref: AppRef): Promise<{ id: string; name: string }> {
  const [app] = await q.query<{ id: string; name: string }>(
    'SELECT id, name FROM apps WHERE tenant_id = $1 AND id = $2',
    [ref.tenantId, ref.appId],
  );
  if (!app) throw new ApiError('not_found', `App ${ref.appId} not found`);
  return app;
}

async function requireEnvironment(q: Reader, ref: AppRef, id: string): Promise<EnvironmentView> {
  const [env] = await q.query<EnvironmentView>(`${VIEW_SQL} AND id = $3`, [ref.tenantId, ref.appId, id]);
  if (!env) throw new ApiError('not_found', `Environment ${id} not found`);
  return env;
}

async function assertNameFree(q: Reader, ref: AppRef, name: string): Promise<void> {
  const [taken] = await q.query(`SELECT 1 FROM environments WHERE tenant_id = $1 AND app_id = $2 AND name = $3`, [
    ref.tenantId,
    ref.appId,
    name,
  ]);
  if (taken) throw duplicate(name);
}

function duplicate(name: string): ApiError {
  return new ApiError('conflict', `The app already has an environment named "${name}"`);
}

/**
 * The check before the write cannot see a concurrent transaction's insert; the unique index then
 * refuses the second one, and that refusal is the same 409.
 */
function uniqueAsConflict(name: string): (e: unknown) => never {
  return (e) => {
    if (isUniqueViolation(e)) throw duplicate(name);
    throw e;
  };
}

/** The app's environments, the default first, then by creation. */
export async function listEnvironments(db: Database, ref: AppRef): Promise<EnvironmentView[]> {
  await requireApp(db, ref);
  return db.query<EnvironmentView>(`${VIEW_SQL} ORDER BY is_default DESC, created_at, name`, [ref.tenantId, ref.appId]);
}

/** `maxEnvironments`: the plan's cap on the app's environments (null: none; 402 past it). */
export async function createEnvironment(
  db: Database,
  ref: AppRef,
  name: string,
  kind: EnvironmentKind,
  maxEnvironments: number | null = null,
): Promise<EnvironmentView> {
  const id = randomUUID();
  await creatingEnvironments(ref, () =>
    db.transaction(async (tx) => {
      await requireApp(tx, ref);
      await assertNameFree(tx, ref, name);
      await checkEnvironmentCap(tx, ref, maxEnvironments);
      await tx.exec(
        `INSERT INTO environments (id, tenant_id, app_id, name, kind, is_default) VALUES ($1, $2, $3, $4, $5, false)`,
        [id, ref.tenantId, ref.appId, name, kind],
      );
    }),
  ).catch(uniqueAsConflict(name));
  return requireEnvironment(db, ref, id);
}

/** One creation at a time per app: two at once would both count the environments before either. */
export function creatingEnvironments<T>(ref: AppRef, create: () => Promise<T>): Promise<T> {
  return checkedCreations.run(`environments of ${ref.appId}`, create);
}

/** 402 `entitlement_required` when the app has `max` environments already (null: no cap). */
export async function checkEnvironmentCap(tx: Reader, ref: AppRef, max: number | null): Promise<void> {
  if (max === null) return;
  const [{ n } = { n: 0 }] = await tx.query<{ n: number }>(
    'SELECT count(*)::INTEGER AS n FROM environments WHERE tenant_id = $1 AND app_id = $2',
    [ref.tenantId, ref.appId],
  );
  checkEntitlement('max_environments_per_app', n, max);
}

/** The app's environments made in the last minute, and how long ago the oldest of them was. */
export async function recentEnvironments(tx: Reader, ref: AppRef): Promise<{ n: number; oldestAgeMs: number }> {
  const [row] = await tx.query<{ n: number; oldest_age_ms: number | null }>(
    `SELECT count(*)::INTEGER AS n, (epoch_ms(now()::TIMESTAMP) - epoch_ms(min(created_at)))::DOUBLE AS oldest_age_ms
       FROM environments
      WHERE tenant_id = $1 AND app_id = $2 AND created_at > now()::TIMESTAMP - INTERVAL 1 MINUTE`,
    [ref.tenantId, ref.appId],
  );
  return { n: row?.n ?? 0, oldestAgeMs: row?.oldest_age_ms ?? 0 };
}

/** Renames an environment or changes its kind (rules: core/admin/rules.ts, environmentChanges). */
export async function updateEnvironment(
  db: Database,
  ref: AppRef,
  id: string,
  patch: EnvironmentPatch,
): Promise<EnvironmentView> {
  await db
    .transaction(async (tx) => {
      const changes = environmentChanges(await requireEnvironment(tx, ref, id), patch);
      if (changes.name !== undefined) await assertNameFree(tx, ref, changes.name);
      if (changes.name === undefined && changes.kind === undefined) return;
      await tx.exec(
        `UPDATE environments SET name = coalesce($4, name), kind = coalesce($5, kind), updated_at = now()::TIMESTAMP
          WHERE tenant_id = $1 AND app_id = $2 AND id = $3`,
        [ref.tenantId, ref.appId, id, changes.name ?? null, changes.kind ?? null],
      );
    }, RERUN_ON_CONFLICT)
    .catch(uniqueAsConflict(patch.name ?? ''));
  return requireEnvironment(db, ref, id);
}

/**
 * Hard-deletes a non-default environment and, in the same transaction, every API key pinned to it.
 * Spans and scores recorded in it stay (traces are immutable). Returns the spec's answer and the
 * hashes of the removed keys, so the caller can drop them from its auth cache.
 */
export async function deleteEnvironment(
  db: Database,
  ref: AppRef,
  id: string,
  confirmationName: string,
  deletedAt: string,
): Promise<{ deletion: Deletion; keyHashes: string[] }> {
  return db.transaction(async (tx) => {
    assertEnvironmentDeletable(await requireEnvironment(tx, ref, id), confirmationName);
    const keys = await tx.query<{ key_hash: string }>(
      'DELETE FROM api_keys WHERE tenant_id = $1 AND app_id = $2 AND environment_id = $3 RETURNING key_hash',
      [ref.tenantId, ref.appId, id],
    );
    await tx.exec('DELETE FROM environments WHERE tenant_id = $1 AND app_id = $2 AND id = $3', [
      ref.tenantId,
      ref.appId,
      id,
    ]);
    return { deletion: environmentDeletion(id, deletedAt, keys.length), keyHashes: keys.map((k) => k.key_hash) };
  }, RERUN_ON_CONFLICT);
}
