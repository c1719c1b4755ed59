/**
 * What each operator command does to the store (arguments already checked by core/admin/cliArgs.ts);
 * the answer is what the CLI prints as JSON and the operator API sends as `data`. The CLI runs these
 * on a stopped server's data dir, the server's store thread for the operator API: one implementation.
 */
import { generateKey, hashKey, shownPrefix } from '../../auth/keys.js';
import { newSecret, replaceSecret, secretCheck } from '../../auth/secret.js';
import { permissionsFor } from '../../core/permissions.js';
import type { CliCommand } from '../../core/admin/cliArgs.js';
import { deriveSessionKey, sessionClaims, signSessionToken, type SessionClaims } from '../../core/admin/jwt.js';
import { ApiError } from '../../core/errors.js';
import type { Database } from '../db.js';
import { resetSecret } from './identity.js';
import { insertScopedKey, listOperatorKeys, type OperatorKeyView } from './keys.js';
import { createEnvironment, listEnvironments, type AppRef } from './environments.js';
import { createTenant, findApp, listTenants, setTenantPlan, tenantExists } from './tenants.js';
import { createApp, findEnvironmentByName, listApps, revokeKey } from './meta.js';

/** The store as a command sees it. */
export interface OperatorStore {
  db: Database;
  dataDir: string;
  /** The store's secret, verified against the store. */
  secret(): Promise<Buffer>;
}

/** A new key: its view and, this once, the key itself (only its keyed hash is stored). */
export interface CreatedOperatorKey extends OperatorKeyView {
  plaintext_key: string;
}

/** A session token for a tenant admin, with its claims spelled out. */
export interface IssuedSessionToken {
  token: string;
  token_type: 'Bearer';
  subject: string;
  tenant_id: string;
  app_id: string;
  role: SessionClaims['role'];
  issued_at: string;
  expires_at: string;
}

/** Who made something, as `created_by` records it: `cli` (on the data dir) or `operator` (through the API). */
export type OperatorActor = 'cli' | 'operator';

async function requireTenant(db: Database, tenantId: string): Promise<void> {
  if (!(await tenantExists(db, tenantId))) throw new ApiError('not_found', `No tenant ${tenantId}`);
}

async function requireApp(db: Database, appId: string): Promise<AppRef> {
  const app = await findApp(db, appId);
  if (!app) throw new ApiError('not_found', `No app ${appId}`);
  return { tenantId: app.tenant_id, appId: app.id };
}

export async function runOperatorCommand(
  store: OperatorStore,
  command: CliCommand,
  nowMs: number,
  by: OperatorActor,
): Promise<unknown> {
  const { db } = store;
  switch (command.name) {
    case 'tenant create':
      return createTenant(db, command.tenantName, command.plan, by);
    case 'tenant set-plan': {
      const tenant = await setTenantPlan(db, command.tenantId, command.plan);
      if (!tenant) throw new ApiError('not_found', `No tenant ${command.tenantId}`);
      return tenant;
    }
    case 'tenant list':
      return listTenants(db);
    case 'app create': {
      await requireTenant(db, command.tenantId);
      const app = await createApp(db, {
        tenantId: command.tenantId,
        name: command.appName,
        displayName: command.displayName,
        entryPoint: command.entryPoint,
        runtime: command.runtime,
        createdBy: by,
      });
      if (!app) throw new ApiError('duplicate_app_name', `The tenant already has an app named "${command.appName}"`);
      return app;
    }
    case 'app list':
      await requireTenant(db, command.tenantId);
      return listApps(db, command.tenantId);
    case 'environment create':
      return createEnvironment(db, await requireApp(db, command.appId), command.environmentName, command.kind);
    case 'environment list':
      return listEnvironments(db, await requireApp(db, command.appId));
    case 'key create':
      return createKey(store, command, await requireApp(db, command.appId), by);
    case 'key list':
      return listOperatorKeys(db, await requireApp(db, command.appId));
    case 'key revoke': {
      const ref = await requireApp(db, command.appId);
      if ((await revokeKey(db, ref.tenantId, ref.appId, command.keyId)) === null)
        throw new ApiError('not_found', `No key ${command.keyId} in app ${ref.appId}`);
      return (await listOperatorKeys(db, ref, command.keyId))[0];
    }
    case 'secret reset':
      return resetStoreSecret(store, by);
    case 'token create': {
      const ref = await requireApp(db, command.appId);
      if (ref.tenantId !== command.tenantId)
        throw new ApiError('not_found', `App ${command.appId} is not an app of tenant ${command.tenantId}`);
      const claims = sessionClaims({
        ...ref,
        subject: command.subject,
        nowSec: Math.floor(nowMs / 1000),
        ttlSec: command.ttlSec,
      });
      return {
        token: signSessionToken(claims, deriveSessionKey(await store.secret())),
        token_type: 'Bearer',
        subject: claims.sub,
        tenant_id: claims.tenant_id,
        app_id: claims.app_id,
        role: claims.role,
        issued_at: new Date(claims.iat * 1000).toISOString(),
        expires_at: new Date(claims.exp * 1000).toISOString(),
      } satisfies IssuedSessionToken;
    }
  }
}

async function createKey(
  store: OperatorStore,
  command: Extract<CliCommand, { name: 'key create' }>,
  ref: AppRef,
  by: OperatorActor,
): Promise<CreatedOperatorKey> {
  let environmentId: string | null = null;
  if ('environment' in command.scope) {
    const env = await findEnvironmentByName(store.db, ref.tenantId, ref.appId, command.scope.environment);
    if (!env) throw new ApiError('not_found', `No environment "${command.scope.environment}" in app ${ref.appId}`);
    environmentId = env.id;
  }
  const plaintext = generateKey();
  const view = await insertScopedKey(store.db, {
    ...ref,
    environmentId,
    allowedKinds: 'kinds' in command.scope ? command.scope.kinds : null,
    name: command.keyName,
    role: command.role,
    permissions: command.permissions,
    keyHash: hashKey(await store.secret(), plaintext),
    keyPrefix: shownPrefix(plaintext),
    expiresAt: command.expiresAt,
    createdBy: by,
  });
  // Shown once: only its keyed hash is stored.
  return { ...view, plaintext_key: plaintext };
}

/**
 * Recovery from a lost or damaged secret: the store records the new secret's check value and
 * revokes every key (no old key can verify again), the secret file is replaced, and each app gets
 * a new Full Access key pinned to its default environment (as the bootstrap key), printed once. Run again after a crash midway: it starts over.
 */
async function resetStoreSecret(store: OperatorStore, by: OperatorActor): Promise<unknown> {
  const secret = newSecret();
  const apps = await resetSecret(store.db, secretCheck(secret));
  replaceSecret(store.dataDir, secret);
  const keys = [];
  for (const app of apps) {
    const plaintext = generateKey();
    const view = await insertScopedKey(store.db, {
      tenantId: app.tenantId,
      appId: app.appId,
      environmentId: app.environmentId,
      allowedKinds: null,
      name: 'secret reset',
      role: 'full_access',
      permissions: permissionsFor('full_access'),
      keyHash: hashKey(secret, plaintext),
      keyPrefix: shownPrefix(plaintext),
      expiresAt: null,
      createdBy: by,
    });
    keys.push({ ...view, plaintext_key: plaintext });
  }
  return { revoked_all_keys: true, keys };
}
