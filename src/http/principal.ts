import type { Permission, Role } from '../core/permissions.js';

/** Who is calling, after auth: the tenant, app and environment every query is scoped to. */
export interface Principal {
  kind: 'key' | 'local' | 'anonymous';
  tenantId: string;
  appId: string;
  /** The environment reads and writes are confined to; null for unpinned (kind-scoped) access. */
  environmentId: string | null;
  keyId: string | null;
  role: Role;
  permissions: readonly Permission[];
}

export const ANONYMOUS: Principal = {
  kind: 'anonymous',
  tenantId: '',
  appId: '',
  environmentId: null,
  keyId: null,
  role: 'custom',
  permissions: [],
};
