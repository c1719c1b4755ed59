/**
 * Authentication (spec: Authentication). Resolves the Authorization and app-id headers to a
 * Principal, or throws 401 `unauthorized`; checking the route's permission (403) is `authorize`.
 * Key records are cached in memory; revocation through the API drops the entry at once.
 */
import { ApiError, validationError } from '../core/errors.js';
import { allows, permissionsFor, type Requirement } from '../core/permissions.js';
import { hashKey, KEY_PREFIX, sameHash } from '../auth/keys.js';
import { basicCredentials } from './basicAuth.js';
import { deriveSessionKey, verifySessionToken } from '../core/admin/jwt.js';
import { ENVIRONMENT_NAME, isTenantAdmin, type EnvironmentKind, type Pin } from '../core/admin/rules.js';
import type { StoreClient } from '../store/storeClient.js';
import type { KeyRecord, Scope } from '../store/admin/meta.js';
import type { Principal } from './principal.js';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
const APP_ID_HEADERS = ['x-service-app-id', 'x-partner-app-id'] as const;
const HEADER_NAMES = { 'x-service-app-id': 'X-Service-App-Id', 'x-partner-app-id': 'X-Partner-App-Id' } as const;
/** How long a cached key record is trusted before it is read again (revocations by API are immediate). */
const CACHE_TTL_MS = 30_000;
const CACHE_MAX = 10_000;
/** last_used_at is a hint, not an audit log: write it at most this often per key. */
const TOUCH_EVERY_MS = 60_000;
const FULL = permissionsFor('full_access');

export interface Credentials {
  key: string;
  appId: string;
}

/**
 * Reads the key and app id from the headers. `Bearer ` is optional on the REST API; on OTLP ingestion
 * (`rawKeyOnly`) the key must be sent raw. Both app-id headers are accepted; if both are sent they
 * must agree. Basic credentials (the Langfuse SDKs': app id as user, key as password) carry both,
 * and an app-id header sent with them must name the same app.
 */
export function readCredentials(headers: Readonly<Record<string, string>>, rawKeyOnly: boolean): Credentials {
  const basic = basicCredentials(headers.authorization);
  const key = basic ? basic.key : readKey(headers, rawKeyOnly);
  const named: [string, string][] = [];
  for (const h of APP_ID_HEADERS) {
    const id = headers[h]?.trim();
    if (id) named.push([HEADER_NAMES[h], id]);
  }
  if (basic) named.unshift(['The Basic user (the app id)', basic.appId]);
  if (named.length === 0) throw new ApiError('unauthorized', 'Missing X-Service-App-Id header');
  if (named.some(([, id]) => !UUID.test(id))) {
    throw new ApiError(
      'unauthorized',
      basic ? 'The app id (the Basic user) must be a UUID' : 'The app id header must be a UUID',
    );
  }
  const [first, ...others] = named;
  const other = others.find(([, id]) => id.toLowerCase() !== first![1].toLowerCase());
  if (other) throw new ApiError('unauthorized', `${first![0]} and ${other[0]} name different apps`);
  return { key, appId: first![1].toLowerCase() };
}

/** The key or session token in an Authorization that is no Basic one (see `readCredentials`). */
function readKey(headers: Readonly<Record<string, string>>, rawKeyOnly: boolean): string {
  const authorization = headers.authorization?.trim();
  if (!authorization) throw new ApiError('unauthorized', 'Missing Authorization header');
  const bearer = /^bearer\s+/i.exec(authorization);
  if (bearer && rawKeyOnly) {
    throw new ApiError(
      'unauthorized',
      'Trace ingestion takes the raw API key in Authorization, without the "Bearer " prefix',
    );
  }
  return bearer ? authorization.slice(bearer[0].length).trim() : authorization;
}

/**
 * The environment a request names: by name in X-Service-Environment, or a pull request number in
 * X-Service-Pull-Request (`pr-<n>`); undefined when it names none. A value no environment could
 * have is the header's fault, not the key's: 400 naming the header (a 403 said the key was wrong,
 * and echoed whatever the header held).
 */
function namedEnvironment(headers: Readonly<Record<string, string>>): string | undefined {
  const pr = headers['x-service-pull-request']?.trim();
  if (pr !== undefined) {
    if (!/^[1-9][0-9]{0,9}$/.test(pr))
      throw validationError('headers', { 'x-service-pull-request': 'must be a pull request number (1 to 9999999999)' });
    return `pr-${pr}`;
  }
  const named = headers['x-service-environment']?.trim();
  if (!named) return undefined;
  if (!ENVIRONMENT_NAME.test(named))
    throw validationError('headers', {
      'x-service-environment': 'must be an environment name (lowercase letters, digits and "-", at most 63)',
    });
  return named;
}

/** A compact JWS (`header.payload.signature`): what a session token looks like, before it is verified. */
function isSessionToken(credential: string): boolean {
  return credential.split('.').length === 3;
}

/** 403 naming the missing permission, when the principal may not call a route needing `need`. */
export function authorize(principal: Principal, need: Requirement): void {
  if (allows(principal.role, principal.permissions, need, principal.runId !== undefined)) return;
  if (principal.runId !== undefined)
    throw new ApiError(
      'forbidden',
      `This key reports trials and status for eval run ${principal.runId} and does nothing else`,
    );
  const required = need === 'admin' || need === 'eval_run' ? 'full_access' : need;
  throw new ApiError('forbidden', `This endpoint requires the ${required} permission`, {
    required_permission: required,
  });
}

export class Authenticator {
  private readonly cache = new Map<string, { record: KeyRecord; until: number }>();
  /**
   * Lookups under way, by key hash: requests that arrive together with a key not cached share one.
   * When the cache entry of a busy key expired, each request ran its own, and a stall of the store
   * turned into hundreds of them queued (native-bench/RESULTS.md, "soak").
   */
  private readonly lookups = new Map<string, Promise<KeyRecord | null>>();
  private readonly touched = new Map<string, number>();
  private readonly sessionKey: Buffer;

  constructor(
    private readonly store: StoreClient,
    private readonly secret: Buffer,
    /** The app key-less requests act as, in local mode; null on the cloud. */
    private readonly local: (Scope & { plan: string }) | null,
    private readonly onTouchError: (e: unknown) => void,
    /** The plan's cap on an app's environments (plans.json), which pull-request previews count against. */
    private readonly environmentCap: (plan: string) => number | null = () => null,
  ) {
    this.sessionKey = deriveSessionKey(secret);
  }

  async authenticate(
    headers: Readonly<Record<string, string>>,
    rawKeyOnly: boolean,
    now = Date.now(),
  ): Promise<Principal> {
    if (this.local && !headers.authorization) {
      return {
        kind: 'local',
        ...this.local,
        readEnvironmentId: this.local.environmentId,
        keyId: null,
        role: 'full_access',
        permissions: FULL,
      };
    }
    const { key, appId } = readCredentials(headers, rawKeyOnly);
    if (!key.startsWith(KEY_PREFIX)) {
      if (isSessionToken(key)) return this.session(key, appId, headers, now);
      throw new ApiError('unauthorized', 'Invalid API key');
    }
    const record = await this.validKey(key, now);
    if (record.appId !== appId)
      throw new ApiError('unauthorized', 'This API key does not belong to the app named in X-Service-App-Id');
    this.touch(record.id, now);
    let pin: Pin | null =
      record.environmentId !== null && record.environmentKind !== null
        ? // One join reads the environment's kind and name: both are there or neither.
          { environmentId: record.environmentId, kind: record.environmentKind, name: record.environmentName! }
        : null;
    let environmentId: string;
    let readEnvironmentId: string | null;
    if (record.environmentId !== null) {
      // A pinned key works in its environment; a header naming another one is a mistake, not a switch.
      const named = namedEnvironment(headers);
      if (named !== undefined) {
        const env = await this.store.run('selectEnvironment', {
          tenantId: record.tenantId,
          appId: record.appId,
          name: named,
          createPreview: false,
        });
        if (env?.id !== record.environmentId) {
          throw new ApiError(
            'forbidden',
            `This key is pinned to another environment than "${named}": leave X-Service-Environment out or name its own`,
          );
        }
      }
      environmentId = record.environmentId;
      // A tenant admin's Full Access key (the bootstrap key) administers every environment of the
      // app, so it reads them all too; any other pinned key reads its own environment only.
      // A Worker key pinned there serves every environment of the app alike (its turns, nothing more).
      readEnvironmentId =
        (record.role === 'full_access' || record.role === 'worker') && isTenantAdmin(pin) ? null : record.environmentId;
    } else {
      const kinds = record.allowedKinds ?? [];
      const env = await this.selectedEnvironment(kinds, record, headers);
      environmentId = readEnvironmentId = env.id;
      // A key whose kinds leave production out is, for this request, pinned to the environment it
      // names: it may not change what production shares, nor manage keys above that environment.
      if (!kinds.includes('production')) pin = { environmentId: env.id, kind: env.kind, name: env.name };
    }
    return {
      kind: 'key',
      tenantId: record.tenantId,
      appId: record.appId,
      environmentId,
      readEnvironmentId,
      keyId: record.id,
      role: record.role,
      permissions: record.permissions,
      plan: record.plan,
      ...(pin ? { pin } : {}),
      ...(record.runId ? { runId: record.runId } : {}),
    };
  }

  /**
   * The app a credential belongs to, from Authorization alone (`GET /v1/auth/app`): an API key's
   * app, or the app a session token names — for a client that has the key but not the app id. It
   * is refused as `authenticate` refuses it (401), and a run-scoped key, which reports for its eval
   * run and does nothing else, with 403. In local mode no Authorization is the local app.
   */
  async appOf(
    headers: Readonly<Record<string, string>>,
    now = Date.now(),
  ): Promise<{ tenantId: string; appId: string }> {
    if (this.local && !headers.authorization) return { tenantId: this.local.tenantId, appId: this.local.appId };
    const key = readKey(headers, false);
    if (!key.startsWith(KEY_PREFIX)) {
      if (!isSessionToken(key)) throw new ApiError('unauthorized', 'Invalid API key');
      const { claims } = await this.verifiedSession(key, null, now);
      return { tenantId: claims.tenant_id, appId: claims.app_id };
    }
    const record = await this.validKey(key, now);
    if (record.runId)
      throw new ApiError(
        'forbidden',
        `This key reports trials and status for eval run ${record.runId} and does nothing else`,
      );
    this.touch(record.id, now);
    return { tenantId: record.tenantId, appId: record.appId };
  }

  /** The record of a key that exists and is neither revoked nor expired; 401 otherwise. */
  private async validKey(key: string, now: number): Promise<KeyRecord> {
    const keyHash = hashKey(this.secret, key);
    const record = await this.lookup(keyHash, now);
    if (!record || !sameHash(record.keyHash, keyHash)) throw new ApiError('unauthorized', 'Invalid API key');
    if (record.revokedAt !== null) throw new ApiError('unauthorized', 'This API key has been revoked');
    if (record.expiresAt !== null && record.expiresAt <= now)
      throw new ApiError('unauthorized', 'This API key has expired');
    return record;
  }

  /**
   * A kind-scoped key (docs/decisions.md, "Tenancy administration") names its environment per
   * request, by name in X-Service-Environment or as a pull request number in X-Service-Pull-Request
   * (`pr-<n>`, kind preview, created on first use, within the plan's cap and a rate per app:
   * store/admin/meta.ts, selectEnvironment). The environment's kind must be one the key
   * allows; otherwise the request is refused before anything is read or stored.
   */
  private async selectedEnvironment(
    kinds: readonly string[],
    record: KeyRecord,
    headers: Readonly<Record<string, string>>,
  ): Promise<{ id: string; kind: EnvironmentKind; name: string }> {
    const name = namedEnvironment(headers);
    if (!name) {
      throw new ApiError(
        'forbidden',
        `This key is scoped to environment kinds (${kinds.join(', ')}): name the environment in X-Service-Environment or X-Service-Pull-Request`,
      );
    }
    const createPreview = headers['x-service-pull-request'] !== undefined && kinds.includes('preview');
    const env = await this.store.run('selectEnvironment', {
      tenantId: record.tenantId,
      appId: record.appId,
      name,
      createPreview,
      ...(createPreview ? { maxEnvironments: this.environmentCap(record.plan) } : {}),
    });
    if (!env) throw new ApiError('forbidden', `No environment "${name}" in this app`);
    if (!kinds.includes(env.kind))
      throw new ApiError(
        'forbidden',
        `This key may not use ${env.kind} environments (allowed: ${kinds.join(', ') || 'none'})`,
      );
    return { id: env.id, kind: env.kind as EnvironmentKind, name };
  }

  /**
   * A session token (HS256 JWT issued by the CLI to a tenant admin) acts with Full Access on the app
   * it names, in that app's default environment. The app must still exist in the token's tenant.
   */
  private async session(
    token: string,
    appId: string,
    headers: Readonly<Record<string, string>>,
    now: number,
  ): Promise<Principal> {
    const { claims, scope } = await this.verifiedSession(token, appId, now);
    // A tenant admin reads every environment of the app and writes to its default one, unless a
    // header names one: then both happen there.
    const named = namedEnvironment(headers);
    let selected: string | null = null;
    if (named !== undefined) {
      const env = await this.store.run('selectEnvironment', {
        tenantId: claims.tenant_id,
        appId: claims.app_id,
        name: named,
        createPreview: false,
      });
      if (!env) throw new ApiError('forbidden', `No environment "${named}" in this app`);
      selected = env.id;
    }
    return {
      kind: 'session',
      tenantId: claims.tenant_id,
      appId: claims.app_id,
      environmentId: selected ?? scope.environmentId,
      readEnvironmentId: selected,
      keyId: null,
      role: 'full_access',
      permissions: FULL,
      plan: scope.plan,
      subject: claims.sub,
    };
  }

  /** A session token's claims and its app's scope; 401 when it does not verify, names another app than `appId` (if given), or its app is gone. */
  private async verifiedSession(token: string, appId: string | null, now: number) {
    const verified = verifySessionToken(token, this.sessionKey, Math.floor(now / 1000));
    if (!verified.ok) throw new ApiError('unauthorized', `Invalid session token: ${verified.reason}`);
    const { claims } = verified;
    if (appId !== null && claims.app_id !== appId)
      throw new ApiError('unauthorized', 'This session token is for another app than X-Service-App-Id names');
    const scope = await this.store.run('sessionScope', { tenantId: claims.tenant_id, appId: claims.app_id });
    if (!scope) throw new ApiError('unauthorized', 'The app of this session token no longer exists');
    return { claims, scope };
  }

  /** Drops a key from the cache, so its revocation takes effect on the next request. */
  forget(keyHash: string): void {
    this.cache.delete(keyHash);
    // A lookup under way may have read the key before the change: later requests start their own.
    this.lookups.delete(keyHash);
  }

  /** Drops a key known by id (the operator API revokes by id; the hash stays in the store). */
  forgetKeyId(id: string): void {
    for (const [hash, entry] of this.cache) if (entry.record.id === id) this.cache.delete(hash);
  }

  /** Drops every key of a tenant, so a change of its plan applies from the next request. */
  forgetTenant(tenantId: string): void {
    for (const [hash, entry] of this.cache) if (entry.record.tenantId === tenantId) this.cache.delete(hash);
  }

  private async lookup(keyHash: string, now: number): Promise<KeyRecord | null> {
    const hit = this.cache.get(keyHash);
    if (hit && hit.until > now) return hit.record;
    let lookup = this.lookups.get(keyHash);
    if (!lookup) {
      const started = this.store.run('findKey', { keyHash }).finally(() => {
        if (this.lookups.get(keyHash) === started) this.lookups.delete(keyHash);
      });
      this.lookups.set(keyHash, (lookup = started));
    }
    const record = await lookup;
    if (record) {
      if (this.cache.size >= CACHE_MAX) this.cache.delete(this.cache.keys().next().value!);
      this.cache.set(keyHash, { record, until: now + CACHE_TTL_MS });
    }
    return record;
  }

  private touch(id: string, now: number): void {
    if ((this.touched.get(id) ?? 0) + TOUCH_EVERY_MS > now) return;
    this.touched.set(id, now);
    this.store.run('touchKey', { id, atMs: now }).catch(this.onTouchError);
  }
}
