/**
 * Tenants, apps, environments and API keys: the metadata tables of the store.
 * Every function that reads tenant data takes the tenant and app it is scoped to.
 */
import { randomUUID } from 'node:crypto';
import type { DuckDBValue } from '@duckdb/node-api';
import { listValue } from '../duckdb.js';
import { lowerKinds, previewCreationRefusal, type EnvironmentKind, type Pin } from '../../core/admin/rules.js';
import { checkEnvironmentCap, creatingEnvironments, recentEnvironments } from './environments.js';
import { permissionsFor, type Permission, type Role } from '../../core/permissions.js';
import { checkEntitlement } from '../../core/plans.js';
import type { Database, Transaction } from '../db.js';
import { checkedCreations } from './checkedCreations.js';
import { isUniqueViolation } from '../refusals.js';
import { iso, TS_PARAM } from '../sql.js';

export interface Scope {
  tenantId: string;
  appId: string;
  environmentId: string;
}

/** What auth needs to know of a key; never its plaintext. */
export interface KeyRecord {
  id: string;
  tenantId: string;
  appId: string;
  environmentId: string | null;
  role: Role;
  permissions: Permission[];
  keyHash: string;
  expiresAt: number | null;
  revokedAt: number | null;
  /** The tenant's plan (plans.json), which sets its quotas. */
  plan: string;
  /** Kind-scoped keys (no pin): the environment kinds requests may select. */
  allowedKinds: string[] | null;
  /** The kind of the environment a pinned key is pinned to. */
  environmentKind: EnvironmentKind | null;
  /** The name of the environment a pinned key is pinned to. */
  environmentName: string | null;
  /** A run-scoped key (made with an eval run): the run it reports for, and all it may do. */
  runId: string | null;
}

/** A key as listings show it (spec: API key, without plaintext_key). */
export interface KeyView {
  id: string;
  name: string;
  app_id: string;
  environment_id?: string;
  environment_name?: string;
  /** Kind-scoped keys (made by the CLI): the environment kinds they may select. */
  allowed_kinds?: string[];
  role: Role;
  permissions: Permission[];
  key_prefix: string;
  created_at: string;
  expires_at: string | null;
  last_used_at: string | null;
  revoked_at: string | null;
}

export interface NewKey {
  tenantId: string;
  appId: string;
  /** The pin; null for a kind-scoped key (then `allowedKinds` is set). */
  environmentId: string | null;
  allowedKinds?: string[] | null;
  name: string;
  role: Role;
  permissions: Permission[];
  keyHash: string;
  keyPrefix: string;
  expiresAt: number | null;
  createdBy: string | null;
  /** The tenant's plan limit on keys (not revoked); null or absent = unlimited (the operator CLI). */
  maxKeys?: number | null;
}

/**
 * On an empty store, creates the first tenant, its app, the app's default `production` environment
 * and a Full Access key with the given hash, all in one transaction. Returns null when the store
 * already has a tenant (bootstrap happens once and only once).
 */
export async function bootstrap(db: Database, key: { keyHash: string; keyPrefix: string }): Promise<Scope | null> {
  return db.transaction(async (tx) => {
    const [{ n } = { n: 0 }] = await tx.query<{ n: number }>('SELECT count(*)::INTEGER AS n FROM tenants');
    if (n > 0) return null;
    const scope = { tenantId: randomUUID(), appId: randomUUID(), environmentId: randomUUID() };
    await tx.exec(`INSERT INTO tenants (id, name) VALUES ($1, 'default')`, [scope.tenantId]);
    await tx.exec(
      `INSERT INTO apps (id, tenant_id, name, display_name, created_by, updated_by)
       VALUES ($1, $2, 'default', 'Default app', 'bootstrap', 'bootstrap')`,
      [scope.appId, scope.tenantId],
    );
    await tx.exec(
      `INSERT INTO environments (id, tenant_id, app_id, name, kind, is_default)
       VALUES ($1, $2, $3, 'production', 'production', true)`,
      [scope.environmentId, scope.tenantId, scope.appId],
    );
    await tx.exec(
      `INSERT INTO api_keys (id, tenant_id, app_id, environment_id, name, key_hash, key_prefix, role, permissions, created_by)
       VALUES ($1, $2, $3, $4, 'bootstrap', $5, $6, 'full_access', $7, 'bootstrap')`,
      [
        randomUUID(),
        scope.tenantId,
        scope.appId,
        scope.environmentId,
        key.keyHash,
        key.keyPrefix,
        listValue(permissionsFor('full_access')),
      ],
    );
    return scope;
  });
}

/** The app that key-less requests act as in local mode: the oldest app and its default environment. */
export async function localScope(db: Database): Promise<(Scope & { plan: string }) | null> {
  const [row] = await db.query<{ tenant_id: string; app_id: string; environment_id: string; plan: string }>(
    `SELECT a.tenant_id, a.id AS app_id, e.id AS environment_id, t.plan
       FROM apps a JOIN environments e ON e.app_id = a.id AND e.is_default JOIN tenants t ON t.id = a.tenant_id
      ORDER BY a.created_at, a.id LIMIT 1`,
  );
  return row ? { tenantId: row.tenant_id, appId: row.app_id, environmentId: row.environment_id, plan: row.plan } : null;
}

export async function findKeyByHash(db: Database, keyHash: string): Promise<KeyRecord | null> {
  const [row] = await db.query<{
    id: string;
    tenant_id: string;
    app_id: string;
    environment_id: string | null;
    role: Role;
    permissions: Permission[];
    key_hash: string;
    expires_ms: number | null;
    revoked_ms: number | null;
    plan: string;
    allowed_kinds: string[] | null;
    environment_kind: EnvironmentKind | null;
    environment_name: string | null;
    run_id: string | null;
  }>(
    `SELECT k.id, k.tenant_id, k.app_id, k.environment_id, k.role, k.permissions, k.key_hash,
            epoch_ms(k.expires_at)::DOUBLE AS expires_ms, epoch_ms(k.revoked_at)::DOUBLE AS revoked_ms, t.plan, k.allowed_kinds,
            e.kind AS environment_kind, e.name AS environment_name, coalesce((SELECT r.id FROM eval_runs r WHERE r.key_id = k.id), (SELECT l.run_id FROM worker_eval_leases l WHERE l.key_id = k.id)) AS run_id
       FROM api_keys k JOIN tenants t ON t.id = k.tenant_id LEFT JOIN environments e ON e.id = k.environment_id
      WHERE k.key_hash = $1`,
    [keyHash],
  );
  if (!row) return null;
  return {
    id: row.id,
    tenantId: row.tenant_id,
    appId: row.app_id,
    environmentId: row.environment_id,
    role: row.role,
    permissions: row.permissions,
    keyHash: row.key_hash,
    expiresAt: row.expires_ms,
    revokedAt: row.revoked_ms,
    plan: row.plan,
    allowedKinds: row.allowed_kinds,
    environmentKind: row.environment_kind,
    environmentName: row.environment_name,
    runId: row.run_id,
  };
}

export async function touchKey(db: Database, id: string, atMs: number): Promise<void> {
  await db.exec(`UPDATE api_keys SET last_used_at = ${TS_PARAM(2)} WHERE id = $1`, [id, atMs]);
}

export async function findEnvironmentByName(
  db: Database,
  tenantId: string,
  appId: string,
  name: string,
): Promise<{ id: string; kind: string } | null> {
  const [row] = await db.query<{ id: string; kind: string }>(
    'SELECT id, kind FROM environments WHERE tenant_id = $1 AND app_id = $2 AND name = $3',
    [tenantId, appId, name],
  );
  return row ?? null;
}

export async function insertKey(db: Database, k: NewKey): Promise<KeyView> {
  const id = randomUUID();
  // One at a time per tenant: two creations at once would both count the keys before either.
  await checkedCreations.run(`keys of ${k.tenantId}`, () =>
    db.transaction(async (tx) => {
      const [{ n } = { n: 0 }] = await tx.query<{ n: number }>(
        'SELECT count(*)::INTEGER AS n FROM api_keys WHERE tenant_id = $1 AND revoked_at IS NULL',
        [k.tenantId],
      );
      checkEntitlement('max_keys', n, k.maxKeys ?? null);
      await insertKeyRow(tx, id, k);
    }),
  );
  const [view] = await listKeys(db, k.tenantId, k.appId, id);
  return view!;
}

/** The key's row, inside a caller's transaction (an eval run and its key are created together). */
export async function insertKeyRow(tx: Transaction, id: string, k: NewKey): Promise<void> {
  await tx.exec(
    `INSERT INTO api_keys (id, tenant_id, app_id, environment_id, name, key_hash, key_prefix, role, permissions, expires_at, created_by, allowed_kinds)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8, coalesce($9::VARCHAR[], []::VARCHAR[]), CASE WHEN $10 IS NULL THEN NULL ELSE ${TS_PARAM(10)} END, $11, $12)`,
    // An empty list cannot be bound (its item type is unknown): it is written as NULL and made [] in SQL.
    [
      id,
      k.tenantId,
      k.appId,
      k.environmentId,
      k.name,
      k.keyHash,
      k.keyPrefix,
      k.role,
      k.permissions.length > 0 ? listValue(k.permissions) : null,
      k.expiresAt,
      k.createdBy,
      k.allowedKinds ? listValue(k.allowedKinds) : null,
    ],
  );
}

const KEY_VIEW_SQL = `
  SELECT k.id, k.name, k.app_id, k.environment_id, e.name AS environment_name, k.allowed_kinds, k.role, k.permissions,
         k.key_prefix, ${iso('k.created_at')} AS created_at, ${iso('k.expires_at')} AS expires_at,
         ${iso('k.last_used_at')} AS last_used_at, ${iso('k.revoked_at')} AS revoked_at
    FROM api_keys k LEFT JOIN environments e ON e.id = k.environment_id
   WHERE k.tenant_id = $1 AND k.app_id = $2`;

/**
 * Keys of one app, newest first; `id` narrows to one key, `pin` to the keys an admin pinned there
 * manages (its environment's and those of lower kinds, see core/admin/rules.ts).
 */
export async function listKeys(
  db: Database,
  tenantId: string,
  appId: string,
  id?: string,
  pin: Pin | null = null,
): Promise<KeyView[]> {
  const params: DuckDBValue[] = [tenantId, appId];
  let sql = KEY_VIEW_SQL;
  if (id !== undefined) sql += ` AND k.id = $${params.push(id)}`;
  if (pin !== null) sql += ` AND ${managedSql('k', params, pin)}`;
  const rows = await db.query<
    KeyView & { environment_id: string | null; environment_name: string | null; allowed_kinds: string[] | null }
  >(`${sql} ORDER BY k.created_at DESC, k.id`, params);
  return rows.map(({ environment_id, environment_name, allowed_kinds, ...rest }) => ({
    ...rest,
    ...(allowed_kinds === null ? {} : { allowed_kinds }),
    ...(environment_id === null ? {} : { environment_id, environment_name: environment_name ?? undefined }),
  })) as KeyView[];
}

/**
 * Marks a key revoked. Returns its hash (so the caller can drop it from the auth cache) or null when
 * no such key exists in this tenant and app (and pinned environment, when given). Revoking twice
 * keeps the first revocation time.
 */
export async function revokeKey(
  db: Database,
  tenantId: string,
  appId: string,
  id: string,
  pin: Pin | null = null,
): Promise<string | null> {
  const params: DuckDBValue[] = [tenantId, appId, id];
  const rows = await db.query<{ key_hash: string }>(
    `UPDATE api_keys SET revoked_at = coalesce(revoked_at, now()::TIMESTAMP)
      WHERE tenant_id = $1 AND app_id = $2 AND id = $3 ${pin === null ? '' : `AND ${managedSql('api_keys', params, pin)}`} RETURNING key_hash`,
    params,
  );
  return rows[0]?.key_hash ?? null;
}

/** The keys (alias `k`) an admin pinned to `pin` manages, with its parameters appended to `params`. */
function managedSql(k: string, params: DuckDBValue[], pin: Pin): string {
  const own = `${k}.environment_id = $${params.push(pin.environmentId)}`;
  const lower = lowerKinds(pin);
  // DuckDB cannot bind an empty untyped list: a development pin has no lower kinds to name.
  if (lower.length === 0) return `(${own})`;
  const kinds = params.push(listValue(lower));
  return `(${own} OR ${k}.environment_id IN (SELECT id FROM environments WHERE list_contains($${kinds}::VARCHAR[], kind)))`;
}

/** An app as the API shows it (spec: App). */
export interface AppView {
  id: string;
  tenant_id: string;
  name: string;
  display_name: string | null;
  entry_point: string | null;
  runtime: string;
  commit_sha: string | null;
  runtime_app_name: string | null;
  runtime_machine_id: string | null;
  created_at: string;
  created_by: string | null;
  updated_at: string;
  updated_by: string | null;
  /** Days its spans are kept; null: the server's default. */
  retention_days: number | null;
}

// A join, not a scalar subquery per app: the listing is faster (native-bench/RESULTS.md, "Figures
// behind the code").
const APP_VIEW_SQL = `
  SELECT a.id, a.tenant_id, a.name, a.display_name, a.entry_point, a.runtime, a.commit_sha, a.runtime_app_name, a.runtime_machine_id,
         ${iso('a.created_at')} AS created_at, a.created_by, ${iso('a.updated_at')} AS updated_at, a.updated_by, s.retention_days
    FROM apps a LEFT JOIN app_settings s ON s.app_id = a.id
   WHERE a.tenant_id = $1`;

export interface NewApp {
  tenantId: string;
  name: string;
  displayName: string | null;
  entryPoint: string | null;
  runtime: string;
  createdBy: string;
  /** The tenant's plan limit on apps; null or absent = unlimited (the operator CLI). */
  maxApps?: number | null;
}

/**
 * Creates an app with its default `production` environment in one transaction. Returns null when the
 * tenant already has an app of that name.
 */
export async function createApp(db: Database, a: NewApp): Promise<AppView | null> {
  const id = randomUUID();
  // One at a time per tenant, for the plan's app limit (see checkedCreations.ts).
  const created = await checkedCreations.run(`apps of ${a.tenantId}`, () => insertApp(db, id, a));
  return created ? (await listApps(db, a.tenantId, id))[0]! : null;
}

/** The app and its default environment; false when the tenant has an app of that name. */
async function insertApp(db: Database, id: string, a: NewApp): Promise<boolean> {
  try {
    return await db.transaction(async (tx) => {
      const [dup] = await tx.query('SELECT 1 FROM apps WHERE tenant_id = $1 AND name = $2', [a.tenantId, a.name]);
      if (dup) return false;
      const [{ n } = { n: 0 }] = await tx.query<{ n: number }>(
        'SELECT count(*)::INTEGER AS n FROM apps WHERE tenant_id = $1',
        [a.tenantId],
      );
      checkEntitlement('max_apps', n, a.maxApps ?? null);
      await tx.exec(
        `INSERT INTO apps (id, tenant_id, name, display_name, entry_point, runtime, created_by, updated_by)
         VALUES ($1, $2, $3, $4, $5, $6, $7, $7)`,
        [id, a.tenantId, a.name, a.displayName, a.entryPoint, a.runtime, a.createdBy],
      );
      await tx.exec(
        `INSERT INTO environments (id, tenant_id, app_id, name, kind, is_default) VALUES ($1, $2, $3, 'production', 'production', true)`,
        [randomUUID(), a.tenantId, id],
      );
      return true;
    });
  } catch (e) {
    // Should a check ever miss a row, the unique (tenant, name) has the last word: a 409, not a 500.
    if (isUniqueViolation(e)) return false;
    throw e;
  }
}

export async function listApps(db: Database, tenantId: string, id?: string): Promise<AppView[]> {
  return db.query<AppView>(
    id === undefined ? `${APP_VIEW_SQL} ORDER BY created_at, id` : `${APP_VIEW_SQL} AND a.id = $2`,
    id === undefined ? [tenantId] : [tenantId, id],
  );
}

/**
 * The environment a kind-scoped key's request selects, by name. A pull-request environment
 * (`pr-<n>`, kind preview) that does not exist yet is created when `createPreview` is set, as a
 * preview deployment would — at most PREVIEWS_PER_MINUTE a minute per app (429) and within the
 * plan's `maxEnvironments` (402); other names must exist.
 */
export async function selectEnvironment(
  db: Database,
  q: { tenantId: string; appId: string; name: string; createPreview: boolean; maxEnvironments?: number | null },
): Promise<{ id: string; kind: string } | null> {
  const found = await findEnvironmentByName(db, q.tenantId, q.appId, q.name);
  if (found || !q.createPreview) return found;
  const ref = { tenantId: q.tenantId, appId: q.appId };
  await creatingEnvironments(ref, () =>
    db.transaction(async (tx) => {
      const [made] = await tx.query('SELECT 1 FROM environments WHERE tenant_id = $1 AND app_id = $2 AND name = $3', [
        q.tenantId,
        q.appId,
        q.name,
      ]);
      if (made) return; // by a request that held the lock before this one
      await checkEnvironmentCap(tx, ref, q.maxEnvironments ?? null);
      const recent = await recentEnvironments(tx, ref);
      const refusal = previewCreationRefusal(recent.n, recent.oldestAgeMs);
      if (refusal) throw refusal;
      await tx.exec(
        `INSERT INTO environments (id, tenant_id, app_id, name, kind) VALUES ($1, $2, $3, $4, 'preview') ON CONFLICT DO NOTHING`,
        [randomUUID(), q.tenantId, q.appId, q.name],
      );
    }),
  );
  return findEnvironmentByName(db, q.tenantId, q.appId, q.name);
}

/** What a session token's app resolves to: its default environment and the tenant's plan; null if gone. */
export async function sessionScope(
  db: Database,
  tenantId: string,
  appId: string,
): Promise<{ environmentId: string; plan: string } | null> {
  const [row] = await db.query<{ environment_id: string; plan: string }>(
    `SELECT e.id AS environment_id, t.plan
       FROM apps a JOIN tenants t ON t.id = a.tenant_id JOIN environments e ON e.app_id = a.id AND e.is_default
      WHERE a.tenant_id = $1 AND a.id = $2`,
    [tenantId, appId],
  );
  return row ? { environmentId: row.environment_id, plan: row.plan } : null;
}
