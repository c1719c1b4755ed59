/** Permission names and role presets of the spec (Authentication, rules 5 and 3), and the Worker role. */

export const PERMISSIONS = [
  'trace.write',
  'trace.read',
  'span.read',
  'session.read',
  'score.write',
  'score.read',
  'score.delete',
  'score_config.read',
  'metrics.read',
  'experiment.read',
  'template.read',
] as const;

export type Permission = (typeof PERMISSIONS)[number];

/**
 * What a route needs: a permission, `admin` (a Full Access key or a tenant admin session — the
 * management endpoints), `eval_run` (what an eval worker does: admin credentials, or the run-scoped
 * key of an eval run — the route checks it is that key's run), `worker` (what a worker process does:
 * claim turns and report on them — a Worker key, or admin credentials), or `none` (unauthenticated).
 */
export type Requirement = Permission | 'admin' | 'eval_run' | 'worker' | 'none';

export const ROLES = ['sdk', 'read_only', 'full_access', 'custom', 'worker'] as const;
export type Role = (typeof ROLES)[number];

const PRESETS: Record<Exclude<Role, 'custom'>, readonly Permission[]> = {
  sdk: ['trace.write', 'score.write', 'template.read'],
  read_only: PERMISSIONS.filter((p) => p.endsWith('.read')),
  full_access: PERMISSIONS,
  // A worker claims turns and reports on them (the `worker` requirement), and reads nothing.
  worker: [],
};

/** Accepts the spec's display names ("SDK", "Read-Only", "Full Access", "Custom") and our ids. */
export function parseRole(name: string): Role | undefined {
  const id = name
    .trim()
    .toLowerCase()
    .replace(/[\s-]+/g, '_');
  return (ROLES as readonly string[]).includes(id) ? (id as Role) : undefined;
}

export function isPermission(name: string): name is Permission {
  return (PERMISSIONS as readonly string[]).includes(name);
}

/** The permissions a key gets: the preset's, or exactly the listed ones for `custom`. */
export function permissionsFor(role: Role, custom: readonly Permission[] = []): Permission[] {
  const chosen = role === 'custom' ? custom : PRESETS[role];
  return PERMISSIONS.filter((p) => chosen.includes(p));
}

/**
 * Whether a principal with `role` and `granted` may call a route that needs `need`. A run-scoped
 * key (`runScoped`) may call the eval worker's routes and nothing else, whatever its row says.
 */
export function allows(role: Role, granted: readonly Permission[], need: Requirement, runScoped = false): boolean {
  if (need === 'none') return true;
  if (runScoped) return need === 'eval_run';
  if (need === 'worker') return role === 'worker' || role === 'full_access';
  if (need === 'admin' || need === 'eval_run') return role === 'full_access';
  return granted.includes(need);
}
