/**
 * Rules of tenancy administration that do not need the database: what an environment or app update
 * may change, when a delete is allowed, the spec's delete answer, and who is recorded as the actor.
 * The store applies them inside its transactions; the HTTP routes and the CLI share them.
 */
import { ApiError, validationError } from '../errors.js';

export const ENVIRONMENT_KINDS = ['development', 'preview', 'production'] as const;
export type EnvironmentKind = (typeof ENVIRONMENT_KINDS)[number];

/** Environment names (a DNS label, lowercase): `production`, `staging`, `pr-42`. */
export const ENVIRONMENT_NAME = /^[a-z0-9][a-z0-9-]{0,62}$/;

/** An environment-pinned credential's pin. */
export interface Pin {
  environmentId: string;
  kind: EnvironmentKind;
  /** The environment's name: the prompt label that names it (`changesAppWide`). */
  name: string;
}

/**
 * The kinds of environment whose keys an admin pinned to `pin` manages besides its own: the kinds
 * below its own (production > preview > development). A staging (preview) admin cannot mint or
 * revoke a production key, nor a key of another preview environment; a production admin — the
 * bootstrap key — is a tenant admin and manages every key (`isTenantAdmin`).
 */
export function lowerKinds(pin: Pin): EnvironmentKind[] {
  return ENVIRONMENT_KINDS.slice(0, ENVIRONMENT_KINDS.indexOf(pin.kind));
}

/** Whether an admin pinned to `pin` (null: unpinned) manages the keys of environment `target` of its own app. */
export function managesKeysOf(pin: Pin | null, target: { id: string; kind: string }): boolean {
  return isTenantAdmin(pin) || target.id === pin!.environmentId || (lowerKinds(pin!) as string[]).includes(target.kind);
}

/**
 * Whether an admin acts for the whole tenant — other apps and every key of theirs: an unpinned
 * admin (session token, a kind-scoped key that may use production) or one pinned to a production
 * environment (the bootstrap key). An admin pinned to a preview or development environment stays inside its own app.
 */
export function isTenantAdmin(pin: Pin | null): boolean {
  return pin === null || pin.kind === 'production';
}

/**
 * Whether a credential pinned to `pin` (null: unpinned) may make a change to an app-wide object — a
 * prompt and its labels, a score config, the git connection, the app itself — that names the
 * prompt labels `labels` (none for objects that have no labels). Such objects serve every
 * environment, so a tenant admin changes them, and a lower pin only where every label it names is
 * its own environment's (a `dev` key moves the `dev` label, never `production`).
 */
export function changesAppWide(pin: Pin | null, labels: readonly string[]): boolean {
  return isTenantAdmin(pin) || (labels.length > 0 && labels.every((label) => label === pin!.name));
}

/**
 * Pull-request environments created per app in a minute (`X-Service-Pull-Request` on a kind-scoped
 * key): a CI loop gone wrong would otherwise make hundreds in seconds, each a row, keys and spans.
 */
export const PREVIEWS_PER_MINUTE = 10;

/**
 * 429 `rate_limited` when the app made `recent` environments in the last minute, the oldest of them
 * `oldestAgeMs` ago (Retry-After: when it leaves the minute); null when one more may be made.
 */
export function previewCreationRefusal(recent: number, oldestAgeMs: number): ApiError | null {
  if (recent < PREVIEWS_PER_MINUTE) return null;
  const retry = Math.max(1, Math.ceil((60_000 - oldestAgeMs) / 1000));
  return new ApiError(
    'rate_limited',
    `This app made ${recent} environments in the last minute (at most ${PREVIEWS_PER_MINUTE}); retry in ${retry} s`,
    { retry_after_seconds: retry },
    { 'Retry-After': String(retry) },
  );
}

export function isEnvironmentKind(name: string): name is EnvironmentKind {
  return (ENVIRONMENT_KINDS as readonly string[]).includes(name);
}

export interface EnvironmentState {
  name: string;
  kind: EnvironmentKind;
  is_default: boolean;
}

export interface EnvironmentPatch {
  name?: string;
  kind?: EnvironmentKind;
}

/**
 * What a PATCH of an environment changes (only fields that differ). An empty patch is 400. The
 * default environment keeps its name and its kind `production` (409): key creation and local mode
 * find an app's environment by those, and an app always has exactly one default.
 */
export function environmentChanges(current: EnvironmentState, patch: EnvironmentPatch): EnvironmentPatch {
  if (patch.name === undefined && patch.kind === undefined)
    throw validationError('body', { body: 'give name or kind to change' });
  if (current.is_default && patch.kind !== undefined && patch.kind !== 'production') {
    throw new ApiError('conflict', 'The default environment is always of kind production');
  }
  if (current.is_default && patch.name !== undefined && patch.name !== current.name) {
    throw new ApiError('conflict', `The default environment "${current.name}" cannot be renamed`);
  }
  return {
    ...(patch.name !== undefined && patch.name !== current.name ? { name: patch.name } : {}),
    ...(patch.kind !== undefined && patch.kind !== current.kind ? { kind: patch.kind } : {}),
  };
}

/**
 * A typed-name confirmation (spec: DELETE /v1/environments): the default environment is refused
 * outright (409) before the confirmation is judged, so nobody types a name only to be told no.
 */
export function assertEnvironmentDeletable(env: { name: string; is_default: boolean }, confirmationName: string): void {
  if (env.is_default)
    throw new ApiError('conflict', `"${env.name}" is the app's default environment and cannot be deleted`);
  assertConfirmed('environment', env.name, confirmationName);
}

/**
 * An app may be deleted by an admin of another app of its tenant, never through its own
 * credentials (409): that would cut the branch the caller sits on. A confirmation, when given, must
 * be the app's name.
 */
export function assertAppDeletable(
  app: { id: string; name: string },
  callerAppId: string,
  confirmationName: string | undefined,
): void {
  if (app.id === callerAppId)
    throw new ApiError(
      'conflict',
      'An app cannot be deleted with its own credentials; use an admin key of another app of the tenant',
    );
  if (confirmationName !== undefined) assertConfirmed('app', app.name, confirmationName);
}

function assertConfirmed(what: string, name: string, confirmationName: string): void {
  if (confirmationName !== name) {
    throw validationError('body', { confirmation_name: `must equal the ${what}'s name "${name}"` });
  }
}

/** Side effects of a delete, in the spec's shape; the parts Tracelake has none of are constant. */
export interface Cascade {
  alerts_deleted: 0;
  api_keys_revoked: number;
  deployments_deleted: 0;
  runtime_app_destroyed: false;
}

/** An app's deletion takes its environments too. Named: the API reference names its types. */
export interface AppCascade extends Cascade {
  environments_deleted: number;
}

export interface Deletion<C extends Cascade = Cascade> {
  id: string;
  deleted_at: string;
  cascade: C;
}

/** The spec's answer to DELETE /v1/environments/{id}; `keysRemoved` counts the key rows deleted. */
export function environmentDeletion(id: string, deletedAt: string, keysRemoved: number): Deletion {
  return {
    id,
    deleted_at: deletedAt,
    cascade: { alerts_deleted: 0, api_keys_revoked: keysRemoved, deployments_deleted: 0, runtime_app_destroyed: false },
  };
}

/** The same shape for an app, plus how many environments went with it. */
export function appDeletion(
  id: string,
  deletedAt: string,
  environmentsRemoved: number,
  keysRemoved: number,
): Deletion<AppCascade> {
  const { cascade } = environmentDeletion(id, deletedAt, keysRemoved);
  return { id, deleted_at: deletedAt, cascade: { ...cascade, environments_deleted: environmentsRemoved } };
}

/** Columns of an app that PATCH may set; SQL takes its column names from this list only. */
export const APP_PATCH_FIELDS = ['display_name', 'entry_point', 'runtime', 'commit_sha', 'retention_days'] as const;
export type AppPatchField = (typeof APP_PATCH_FIELDS)[number];
export type AppPatch = {
  display_name?: string | null;
  entry_point?: string | null;
  runtime?: string;
  commit_sha?: string | null;
  retention_days?: number | null;
};

/** The (column, value) pairs of an app PATCH, in a fixed order; null clears. Empty is 400. */
export function appChanges(patch: AppPatch): [AppPatchField, string | number | null][] {
  const changes: [AppPatchField, string | number | null][] = [];
  for (const field of APP_PATCH_FIELDS) {
    const value = patch[field];
    if (value === undefined) continue;
    changes.push([field, field === 'commit_sha' && typeof value === 'string' ? value.toLowerCase() : value]);
  }
  if (changes.length === 0)
    throw validationError('body', { body: `give at least one of ${APP_PATCH_FIELDS.join(', ')}` });
  return changes;
}
