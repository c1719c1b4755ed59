/**
 * API keys (spec: API keys): create (the plaintext is returned once), list (metadata only) and revoke
 * (effective on the next request). Admin only: a Full Access key or a session token.
 *
 * One rule for all three (docs/decisions.md, "who manages which keys"), each taking the app
 * (`app_id`, default the caller's): in its own app, an environment-pinned admin manages the keys
 * of its own environment and of lower kinds (core/admin/rules.ts: a staging admin cannot mint or
 * revoke a production key), an unpinned admin (session token, kind-scoped key) every key; another
 * app of the tenant is managed only by a tenant admin (unpinned, or pinned to production).
 */
import { generateKey, hashKey, shownPrefix } from '../../auth/keys.js';
import {
  validateCreateKeyBody,
  validateKeyAppQuery,
  validateKeyIdParams,
  type CreateKeyBody,
} from '../../contract/apiKeys.js';
import { isTenantAdmin, managesKeysOf, type Pin } from '../../core/admin/rules.js';
import { ApiError, validationError } from '../../core/errors.js';
import { planOf } from '../../core/plans.js';
import { parseRole, permissionsFor, type Permission, type Role } from '../../core/permissions.js';
import { data } from '../reply.js';
import { actorOf, type Principal } from '../principal.js';
import { route } from '../route.js';
import { APP_ID, CREATED, ENV_ID } from '../../openapi/examples.js';
import { NO_SUCH_APP } from '../../openapi/phrases.js';
import { answer, payload } from '../../openapi/note.js';

export function apiKeyRoutes(secret: Buffer) {
  return [
    route({
      method: 'POST',
      path: '/v1/api-keys',
      permission: 'admin',
      validate: { body: validateCreateKeyBody },
      note: {
        tag: 'API keys',
        summary: 'Create an API key',
        description:
          'A role preset (SDK, Read-Only, Full Access) or Custom with `permissions`; pinned to an environment (default `production`). The key itself is in this answer only.',
        body: payload('CreateKeyBody', {
          sdk: { name: 'checkout-service', role: 'SDK' },
          custom: { name: 'grader', permissions: ['trace.read', 'score.write'], environment_name: 'staging' },
        }),
        answers: [
          answer(201, 'CreatedKeyAnswer', 'The key, with `plaintext_key` this once.', {
            sdk: {
              data: {
                id: '5b4a3c2d-1e0f-4a9b-8c7d-6e5f4a3b2c1d',
                name: 'checkout-service',
                app_id: APP_ID,
                environment_id: ENV_ID,
                environment_name: 'production',
                role: 'sdk',
                permissions: ['trace.write', 'score.write', 'template.read'],
                key_prefix: 'sk_service_A',
                created_at: CREATED,
                expires_at: null,
                last_used_at: null,
                revoked_at: null,
                plaintext_key: 'sk_service_A1b2C3d4E5f6G7h8I9j0K1l2M3n4O5p6Q7r8S9t0U1v',
              },
            },
          }),
        ],
        errors: [
          {
            status: 400,
            when: '`invalid_request_body`: `role` is not SDK, Read-Only, Full Access, Worker or Custom (any case; a space, `-` or `_` alike), neither `role` nor `permissions` is given, a Custom key has no `permissions` or a preset role has some, or `expires_at` is not in the future.',
          },
          { status: 402, when: "`entitlement_required`: the plan's key limit is reached." },
          {
            status: 404,
            when: '`not_found`: `app_id` names no app of the tenant, or `environment_name` no environment of the app.',
          },
        ],
      },
      async handler({ body }, ctx) {
        const { role, permissions } = chooseRole(body);
        const expiresAt = body.expires_at === undefined ? null : Date.parse(body.expires_at);
        if (expiresAt !== null && expiresAt <= Date.now())
          throw validationError('body', { expires_at: 'must be in the future' });
        const { appId, pin } = keyScope(ctx.principal, body.app_id);
        // A pinned admin's keys default to its own environment; everyone else's to production.
        const own = ctx.principal.pin;
        const environment =
          body.environment_name === undefined && own !== undefined && appId === ctx.principal.appId
            ? { id: own.environmentId, kind: own.kind }
            : await ctx.services.store.run('findEnvironment', {
                tenantId: ctx.principal.tenantId,
                appId,
                name: body.environment_name ?? 'production',
              });
        if (!environment) {
          throw new ApiError('not_found', `No environment "${body.environment_name ?? 'production'}" in app ${appId}`);
        }
        if (!managesKeysOf(pin, environment)) {
          throw new ApiError(
            'forbidden',
            `This key is pinned to a ${pin!.kind} environment: it manages the keys of its own environment and of lower kinds, not of "${body.environment_name}" (${environment.kind})`,
          );
        }
        const plaintext = generateKey();
        const view = await ctx.services.store.run('createKey', {
          tenantId: ctx.principal.tenantId,
          appId,
          environmentId: environment.id,
          name: body.name,
          role,
          permissions,
          keyHash: hashKey(secret, plaintext),
          keyPrefix: shownPrefix(plaintext),
          expiresAt,
          createdBy: actorOf(ctx.principal),
          maxKeys: planOf(ctx.services.plans, ctx.principal.plan).max_keys,
        });
        return data({ ...view, plaintext_key: plaintext }, 201);
      },
    }),
    route({
      method: 'GET',
      path: '/v1/api-keys',
      permission: 'admin',
      validate: { query: validateKeyAppQuery },
      note: {
        tag: 'API keys',
        summary: 'List API keys',
        description: 'Metadata only; never the key.',
        query: 'KeyAppQuery',
        answers: [answer(200, 'KeyListAnswer', 'The keys.')],
        errors: [NO_SUCH_APP],
      },
      async handler({ query }, ctx) {
        const scope = { tenantId: ctx.principal.tenantId, ...keyScope(ctx.principal, query.app_id) };
        // An app outside the tenant has no empty key list: it is not found, as on the other admin routes.
        if (
          scope.appId !== ctx.principal.appId &&
          (await ctx.services.store.run('listApps', { tenantId: scope.tenantId, id: scope.appId })).length === 0
        ) {
          throw new ApiError('not_found', `App ${scope.appId} not found`);
        }
        return data(await ctx.services.store.run('listKeys', scope));
      },
    }),
    route({
      method: 'DELETE',
      path: '/v1/api-keys/:id',
      permission: 'admin',
      validate: { params: validateKeyIdParams, query: validateKeyAppQuery },
      note: {
        tag: 'API keys',
        summary: 'Revoke an API key',
        description: 'The next request with the key is 401.',
        params: 'KeyIdParams',
        query: 'KeyAppQuery',
        answers: [answer(200, 'KeyAnswer', 'The revoked key.')],
      },
      async handler({ params, query }, ctx) {
        const scope = { tenantId: ctx.principal.tenantId, ...keyScope(ctx.principal, query.app_id) };
        const keyHash = await ctx.services.store.run('revokeKey', { ...scope, id: params.id });
        if (keyHash === null) throw new ApiError('not_found', 'API key not found');
        ctx.services.auth.forget(keyHash);
        const [view] = (await ctx.services.store.run('listKeys', scope)).filter((k) => k.id === params.id);
        return data(view);
      },
    }),
  ];
}

/**
 * The app whose keys a request manages (`app_id`, default the caller's) and the pin that limits
 * which of its keys: none for a tenant admin (any app of the tenant, every key); a preview- or
 * development-pinned admin stays in its own app, limited by its pin.
 */
function keyScope(principal: Principal, requested: string | undefined): { appId: string; pin: Pin | null } {
  const pin = principal.pin ?? null;
  const appId = requested?.toLowerCase() ?? principal.appId;
  if (isTenantAdmin(pin)) return { appId, pin: null };
  if (appId !== principal.appId) {
    throw new ApiError(
      'forbidden',
      `This key is pinned to a ${pin!.kind} environment of app ${principal.appId}: it manages keys of that app only`,
    );
  }
  return { appId, pin };
}

function chooseRole(body: CreateKeyBody): { role: Role; permissions: Permission[] } {
  const role = body.role === undefined ? (body.permissions ? 'custom' : undefined) : parseRole(body.role);
  if (role === undefined) {
    throw validationError(
      'body',
      body.role === undefined
        ? { role: 'give a role (SDK, Read-Only, Full Access, Custom) or permissions' }
        : { role: `unknown role "${body.role}"` },
    );
  }
  if (role === 'custom' && !body.permissions)
    throw validationError('body', { permissions: 'required for a Custom key' });
  if (role !== 'custom' && body.permissions)
    throw validationError('body', {
      permissions: `a ${body.role} key has the preset's permissions; use role Custom to choose them`,
    });
  return { role, permissions: permissionsFor(role, body.permissions ?? []) };
}
