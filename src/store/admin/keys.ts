/**
 * API keys as the operator CLI makes them: pinned to an environment, or scoped to environment kinds
 * (`environment_id` NULL, `allowed_kinds` set; docs/decisions.md). `POST /v1/api-keys` makes pinned
 * keys only (spec), so kind-scoped keys come from here.
 */
import type { EnvironmentKind } from '../../core/admin/rules.js';
import type { Permission, Role } from '../../core/permissions.js';
import type { AppRef } from './environments.js';
import type { Database } from '../db.js';
import { insertKey, listKeys, type KeyView } from './meta.js';

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

/** The API's view of keys, plus what an operator needs: the tenant, and pins and kinds spelled out. */
function operatorView(tenantId: string, k: KeyView): OperatorKeyView {
  const { environment_id, environment_name, allowed_kinds, ...rest } = k;
  return {
    ...rest,
    tenant_id: tenantId,
    environment_id: environment_id ?? null,
    environment_name: environment_name ?? null,
    allowed_kinds: (allowed_kinds as EnvironmentKind[] | undefined) ?? null,
  };
}

export async function insertScopedKey(db: Database, k: NewScopedKey): Promise<OperatorKeyView> {
  return operatorView(k.tenantId, await insertKey(db, k));
}

/** Keys of one app, newest first, revoked ones included; `id` narrows to one key. */
export async function listOperatorKeys(db: Database, ref: AppRef, id?: string): Promise<OperatorKeyView[]> {
  return (await listKeys(db, ref.tenantId, ref.appId, id)).map((k) => operatorView(ref.tenantId, k));
}
