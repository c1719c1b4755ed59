/**
 * Tenants, for the operator CLI (there is no tenant endpoint: tenants are created by whoever runs
 * the store). A tenant starts with an app `default` and that app's `production` environment.
 */
import { randomUUID } from 'node:crypto';
import { ApiError } from '../../core/errors.js';
import type { Database } from '../db.js';
import { checkedCreations } from './checkedCreations.js';
import { iso } from '../sql.js';

export interface NewTenant {
  tenant_id: string;
  name: string;
  plan: string;
  app_id: string;
  environment_id: string;
}

export interface TenantView {
  id: string;
  name: string;
  plan: string;
  created_at: string;
  apps: number;
}

/**
 * Creates a tenant, its `default` app and the app's default environment; tenant names are unique.
 * `plan` null keeps the column's default (`self_hosted`, as bootstrap does). No index holds names
 * unique (stores made before would have to be rid of duplicates first), so the check before the
 * insert is what does, and two creations at once could both pass it (eight of eight once created one
 * name): creations run one at a time, each check seeing the insert before it.
 */
export function createTenant(db: Database, name: string, plan: string | null, createdBy: string): Promise<NewTenant> {
  return checkedCreations.run('tenant names', () => insertTenant(db, name, plan, createdBy));
}

async function insertTenant(db: Database, name: string, plan: string | null, createdBy: string): Promise<NewTenant> {
  return db.transaction(async (tx) => {
    const [taken] = await tx.query('SELECT 1 FROM tenants WHERE name = $1', [name]);
    if (taken) throw new ApiError('conflict', `A tenant named "${name}" already exists`);
    const ids = { tenant_id: randomUUID(), app_id: randomUUID(), environment_id: randomUUID() };
    const [row] = await tx.query<{ plan: string }>(
      "INSERT INTO tenants (id, name, plan) VALUES ($1, $2, coalesce($3, 'self_hosted')) RETURNING plan",
      [ids.tenant_id, name, plan],
    );
    const made = {
      tenant_id: ids.tenant_id,
      name,
      plan: row!.plan,
      app_id: ids.app_id,
      environment_id: ids.environment_id,
    };
    await tx.exec(
      `INSERT INTO apps (id, tenant_id, name, display_name, created_by, updated_by) VALUES ($1, $2, 'default', 'Default app', $3, $3)`,
      [made.app_id, made.tenant_id, createdBy],
    );
    await tx.exec(
      `INSERT INTO environments (id, tenant_id, app_id, name, kind, is_default) VALUES ($1, $2, $3, 'production', 'production', true)`,
      [made.environment_id, made.tenant_id, made.app_id],
    );
    return made;
  });
}

/** Sets a tenant's plan (its quotas, from plans.json); null when there is no such tenant. */
export async function setTenantPlan(db: Database, id: string, plan: string): Promise<TenantView | null> {
  const rows = await db.query('UPDATE tenants SET plan = $2 WHERE id = $1 RETURNING id', [id, plan]);
  return rows.length === 0 ? null : ((await listTenants(db)).find((t) => t.id === id) ?? null);
}

export async function listTenants(db: Database): Promise<TenantView[]> {
  return db.query<TenantView>(
    `SELECT t.id, t.name, t.plan, ${iso('t.created_at')} AS created_at,
            (SELECT count(*) FROM apps a WHERE a.tenant_id = t.id)::INTEGER AS apps
       FROM tenants t ORDER BY t.created_at, t.id`,
  );
}

export async function tenantExists(db: Database, id: string): Promise<boolean> {
  return (await db.query('SELECT 1 FROM tenants WHERE id = $1', [id])).length > 0;
}

/** An app by id alone (the operator sees every tenant); null when there is none. */
export async function findApp(
  db: Database,
  appId: string,
): Promise<{ id: string; tenant_id: string; name: string } | null> {
  const [app] = await db.query<{ id: string; tenant_id: string; name: string }>(
    'SELECT id, tenant_id, name FROM apps WHERE id = $1',
    [appId],
  );
  return app ?? null;
}
