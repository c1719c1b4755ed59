import { isTenantAdmin, type Pin } from '../core/admin/rules.js';
import { ApiError } from '../core/errors.js';
import type { Permission, Role } from '../core/permissions.js';

/** Who is calling, after auth: the tenant, app and environment every query is scoped to. */
export interface Principal {
  kind: 'key' | 'session' | 'local' | 'anonymous' | 'operator';
  tenantId: string;
  appId: string;
  /** The environment writes land in; null for a kind-scoped key that named none. */
  environmentId: string | null;
  /**
   * The environment reads are confined to; null for every environment of the app — what admin
   * credentials read (session tokens, Full Access keys of a tenant admin) until they narrow it.
   */
  readEnvironmentId: string | null;
  keyId: string | null;
  role: Role;
  permissions: readonly Permission[];
  /** The tenant's plan (plans.json); null for anonymous requests. */
  plan: string | null;
  /** Session tokens: the tenant admin they were issued to. */
  subject?: string;
  /** Keys pinned to one environment: the pin (what a pinned admin may manage follows from it). */
  pin?: Pin;
  /** A run-scoped key: the eval run it reports for (core/permissions.ts, `eval_run`). */
  runId?: string;
}

export const ANONYMOUS: Principal = {
  kind: 'anonymous',
  tenantId: '',
  appId: '',
  environmentId: null,
  readEnvironmentId: null,
  keyId: null,
  role: 'custom',
  permissions: [],
  plan: null,
};

/**
 * The holder of the operator token (http/operatorAuth.ts): no tenant, app or permission of its own;
 * it reaches only the operator routes, which name the tenant or app they act on.
 */
export const OPERATOR: Principal = { ...ANONYMOUS, kind: 'operator' };

/** What a principal's reads are confined to: its tenant, app and (unless an admin) environment. */
export function readScopeOf(p: Principal): { tenantId: string; appId: string; environmentId: string | null } {
  return { tenantId: p.tenantId, appId: p.appId, environmentId: p.readEnvironmentId };
}

/** How created_by / updated_by name the caller: `key:<id>`, `session:<subject>`, or `local`. */
export function actorOf(p: Principal): string {
  if (p.keyId) return `key:${p.keyId}`;
  return p.kind === 'session' && p.subject ? `session:${p.subject}` : p.kind;
}

/**
 * The app an admin call works on: `appId` when given, else the caller's own. An admin pinned to a
 * preview or development environment stays inside its own app (core/admin/rules.ts, isTenantAdmin):
 * naming another is 403.
 */
export function administeredApp(p: Principal, appId: string | undefined): string {
  const app = appId?.toLowerCase() ?? p.appId;
  const pin = p.pin ?? null;
  if (!isTenantAdmin(pin) && app !== p.appId) {
    throw new ApiError(
      'forbidden',
      `This key is pinned to a ${pin!.kind} environment of app ${p.appId}: it administers that app only`,
    );
  }
  return app;
}

/**
 * Refuses what only a tenant admin may do (create apps, change an app's settings — retention drops
 * every environment's spans): an admin pinned to a preview or development environment may not.
 */
export function requireTenantAdmin(p: Principal, what: string): void {
  const pin = p.pin ?? null;
  if (!isTenantAdmin(pin)) {
    throw new ApiError(
      'forbidden',
      `This key is pinned to a ${pin!.kind} environment: only a tenant admin (unpinned, or pinned to production) may ${what}`,
    );
  }
}
