/**
 * API keys (spec: API keys): create (the plaintext is returned once), list (metadata only) and revoke
 * (effective on the next request). Admin only: a Full Access key.
 */
import { generateKey, hashKey, shownPrefix } from '../../auth/keys.js';
import { validateCreateKeyBody, validateKeyIdParams, type CreateKeyBody, type KeyIdParams } from '../../contract/apiKeys.js';
import { ApiError, validationError } from '../../core/errors.js';
import { planOf } from '../../core/plans.js';
import { parseRole, permissionsFor, type Permission, type Role } from '../../core/permissions.js';
import { data } from '../reply.js';
import { actorOf } from '../principal.js';
import { route } from '../route.js';

export function apiKeyRoutes(secret: Buffer) {
  return [
    route<Record<string, string>, Record<string, never>, CreateKeyBody>({
      method: 'POST',
      path: '/v1/api-keys',
      permission: 'admin',
      validate: { body: validateCreateKeyBody },
      async handler({ body }, ctx) {
        const { role, permissions } = chooseRole(body);
        const expiresAt = body.expires_at === undefined ? null : Date.parse(body.expires_at);
        if (expiresAt !== null && expiresAt <= Date.now()) throw validationError('body', { expires_at: 'must be in the future' });
        const appId = body.app_id?.toLowerCase() ?? ctx.principal.appId;
        const environment = await ctx.services.store.run('findEnvironment', {
          tenantId: ctx.principal.tenantId,
          appId,
          name: body.environment_name ?? 'production',
        });
        if (!environment) {
          throw new ApiError('not_found', `No environment "${body.environment_name ?? 'production'}" in app ${appId}`);
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
      async handler(_input, ctx) {
        return data(await ctx.services.store.run('listKeys', { tenantId: ctx.principal.tenantId, appId: ctx.principal.appId }));
      },
    }),
    route<KeyIdParams>({
      method: 'DELETE',
      path: '/v1/api-keys/:id',
      permission: 'admin',
      validate: { params: validateKeyIdParams },
      async handler({ params }, ctx) {
        const scope = { tenantId: ctx.principal.tenantId, appId: ctx.principal.appId };
        const keyHash = await ctx.services.store.run('revokeKey', { ...scope, id: params.id });
        if (keyHash === null) throw new ApiError('not_found', 'API key not found');
        ctx.services.auth.forget(keyHash);
        const [view] = (await ctx.services.store.run('listKeys', scope)).filter((k) => k.id === params.id);
        return data(view);
      },
    }),
  ];
}

function chooseRole(body: CreateKeyBody): { role: Role; permissions: Permission[] } {
  const role = body.role === undefined ? (body.permissions ? 'custom' : undefined) : parseRole(body.role);
  if (role === undefined) {
    throw validationError('body', body.role === undefined ? { role: 'give a role (SDK, Read-Only, Full Access, Custom) or permissions' } : { role: `unknown role "${body.role}"` });
  }
  if (role === 'custom' && !body.permissions) throw validationError('body', { permissions: 'required for a Custom key' });
  if (role !== 'custom' && body.permissions) throw validationError('body', { permissions: `a ${body.role} key has the preset's permissions; use role Custom to choose them` });
  return { role, permissions: permissionsFor(role, body.permissions ?? []) };
}
