/**
 * API keys as the operator CLI makes them: pinned to an environment, or scoped to environment kinds
 * (ARCHITECTURE §6; `environment_id` NULL, `allowed_kinds` set). `POST /v1/api-keys` makes pinned
 * keys only (spec), so kind-scoped keys come from here.
 */
import { randomUUID } from 'node:crypto';
import { listValue } from '@duckdb/node-api';
import type { EnvironmentKind } from '../core/admin/rules.js';
import type { Permission, Role } from '../core/permissions.js';
import type { AppRef } from './adminEnvironments.js';
import type { Database } from './db.js';
import { iso, TS_PARAM } from './sql.js';

export interface NewScopedKey extends AppRef {
  /** Exactly one of the two is set. */
  environmentId: string | null;
  allowedKinds: EnvironmentKind[] | null;
  name: string;
  role: Role;
  permissions: Permission[];
  keyHash: string;
  keyPrefix: string;
  expiresAt: number | null;
  createdBy: string;
}

/** A key as the CLI shows it: the API's key view plus the tenant and the allowed kinds. */
export interface OperatorKeyView {
  id: string;
  name: string;
  tenant_id: string;
  app_id: string;
  environment_id: string | null;
  environment_name: string | null;
  allowed_kinds: EnvironmentKind[] | null;
  role: Role;
  permissions: Permission[];
  key_prefix: string;
  created_at: string;
  expires_at: string | null;
  last_used_at: string | null;
  revoked_at: string | null;
}

const VIEW_SQL = `
  SELECT k.id, k.name, k.tenant_id, k.app_id, k.environment_id, e.name AS environment_name, k.allowed_kinds, k.role,
         k.permissions, k.key_prefix, ${iso('k.created_at')} AS created_at, ${iso('k.expires_at')} AS expires_at,
         ${iso('k.last_used_at')} AS last_used_at, ${iso('k.revoked_at')} AS revoked_at
    FROM api_keys k LEFT JOIN environments e ON e.id = k.environment_id
   WHERE k.tenant_id = $1 AND k.app_id = $2`;

export async function insertScopedKey(db: Database, k: NewScopedKey): Promise<OperatorKeyView> {
  const id = randomUUID();
  await db.exec(
    `INSERT INTO api_keys (id, tenant_id, app_id, environment_id, allowed_kinds, name, key_hash, key_prefix, role, permissions, expires_at, created_by)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, CASE WHEN $11 IS NULL THEN NULL ELSE ${TS_PARAM(11)} END, $12)`,
    [
      id,
      k.tenantId,
      k.appId,
      k.environmentId,
      k.allowedKinds === null ? null : listValue(k.allowedKinds),
      k.name,
      k.keyHash,
      k.keyPrefix,
      k.role,
      listValue(k.permissions),
      k.expiresAt,
      k.createdBy,
    ],
  );
  return (await listOperatorKeys(db, k, id))[0]!;
}

/** Keys of one app, newest first, revoked ones included; `id` narrows to one key. */
export async function listOperatorKeys(db: Database, ref: AppRef, id?: string): Promise<OperatorKeyView[]> {
  return db.query<OperatorKeyView>(
    id === undefined ? `${VIEW_SQL} ORDER BY k.created_at DESC, k.id` : `${VIEW_SQL} AND k.id = $3`,
    id === undefined ? [ref.tenantId, ref.appId] : [ref.tenantId, ref.appId, id],
  );
}
