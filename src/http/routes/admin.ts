/**
 * Environments (spec: Environments) and app updates and deletes (spec: Apps). Admin only. Each call
 * works on the caller's app, or on `app_id` when it names another app of the caller's tenant;
 * anything of another tenant, or an environment of another app, answers 404 like an unknown id.
 * Keys removed by a delete are dropped from the auth cache at once, so they fail on the next request.
 */
import {
  validateCreateEnvironmentBody,
  validateDeleteAppBody,
  validateDeleteEnvironmentBody,
  validateEnvironmentListQuery,
  validateEnvironmentParams,
  validateUpdateAppBody,
  validateUpdateEnvironmentBody,
  type CreateEnvironmentBody,
  type DeleteAppBody,
  type DeleteEnvironmentBody,
  type EnvironmentListQuery,
  type EnvironmentParams,
  type UpdateAppBody,
  type UpdateEnvironmentBody,
} from '../../contract/admin.js';
import { validateAppParams, type AppParams } from '../../contract/apps.js';
import type { AppRef } from '../../store/admin/environments.js';
import { actorOf } from '../principal.js';
import { data } from '../reply.js';
import { route, type AnyRoute, type Context } from '../route.js';

function appRef(ctx: Context, appId: string | undefined): AppRef {
  return { tenantId: ctx.principal.tenantId, appId: appId?.toLowerCase() ?? ctx.principal.appId };
}

function forget(ctx: Context, keyHashes: readonly string[]): void {
  for (const hash of keyHashes) ctx.services.auth.forget(hash);
}

export const adminRoutes: AnyRoute[] = [
  route<Record<string, string>, Record<string, never>, CreateEnvironmentBody>({
    method: 'POST',
    path: '/v1/environments',
    permission: 'admin',
    validate: { body: validateCreateEnvironmentBody },
    async handler({ body }, ctx) {
      const env = await ctx.services.store.run('createEnvironment', { ...appRef(ctx, body.app_id), name: body.name, kind: body.kind });
      return data(env, 201);
    },
  }),
  route<Record<string, string>, EnvironmentListQuery>({
    method: 'GET',
    path: '/v1/environments',
    permission: 'admin',
    validate: { query: validateEnvironmentListQuery },
    handler: async ({ query }, ctx) => data(await ctx.services.store.run('listEnvironments', appRef(ctx, query.app_id))),
  }),
  route<EnvironmentParams, Record<string, never>, UpdateEnvironmentBody>({
    method: 'PATCH',
    path: '/v1/environments/:id',
    permission: 'admin',
    validate: { params: validateEnvironmentParams, body: validateUpdateEnvironmentBody },
    async handler({ params, body }, ctx) {
      const { app_id, ...patch } = body;
      return data(await ctx.services.store.run('updateEnvironment', { ...appRef(ctx, app_id), id: params.id.toLowerCase(), patch }));
    },
  }),
  route<EnvironmentParams, Record<string, never>, DeleteEnvironmentBody>({
    method: 'DELETE',
    path: '/v1/environments/:id',
    permission: 'admin',
    body: 'json',
    validate: { params: validateEnvironmentParams, body: validateDeleteEnvironmentBody },
    async handler({ params, body }, ctx) {
      const { deletion, keyHashes } = await ctx.services.store.run('deleteEnvironment', {
        ...appRef(ctx, body.app_id),
        id: params.id.toLowerCase(),
        confirmationName: body.confirmation_name,
        deletedAt: new Date().toISOString(),
      });
      forget(ctx, keyHashes);
      return data(deletion);
    },
  }),
  route<AppParams, Record<string, never>, UpdateAppBody>({
    method: 'PATCH',
    path: '/v1/apps/:appId',
    permission: 'admin',
    validate: { params: validateAppParams, body: validateUpdateAppBody },
    async handler({ params, body }, ctx) {
      return data(await ctx.services.store.run('updateApp', { ...appRef(ctx, params.appId), patch: body, by: actorOf(ctx.principal) }));
    },
  }),
  route<AppParams, Record<string, never>, DeleteAppBody | undefined>({
    method: 'DELETE',
    path: '/v1/apps/:appId',
    permission: 'admin',
    body: 'json',
    validate: { params: validateAppParams, body: validateDeleteAppBody },
    async handler({ params, body }, ctx) {
      const { deletion, keyHashes } = await ctx.services.store.run('deleteApp', {
        ...appRef(ctx, params.appId),
        callerAppId: ctx.principal.appId,
        ...(body?.confirmation_name === undefined ? {} : { confirmationName: body.confirmation_name }),
        deletedAt: new Date().toISOString(),
      });
      forget(ctx, keyHashes);
      return data(deletion);
    },
  }),
];
