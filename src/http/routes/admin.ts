/**
 * Environments (spec: Environments) and app updates and deletes (spec: Apps). Admin only. Each call
 * works on the caller's app, or on `app_id` when it names another app of the caller's tenant;
 * anything of another tenant, or an environment of another app, answers 404 like an unknown id.
 * Keys removed by a delete are dropped from the auth cache at once, so they fail on the next request.
 *
 * Pins limit these as they limit key management (routes/apiKeys.ts): an admin pinned to a preview
 * or development environment stays inside its own app (core/admin/rules.ts, isTenantAdmin), and
 * manages only its own environment and those of lower kinds.
 */
import {
  validateCreateEnvironmentBody,
  validateDeleteAppBody,
  validateDeleteEnvironmentBody,
  validateEnvironmentListQuery,
  validateEnvironmentParams,
  validateUpdateAppBody,
  validateUpdateEnvironmentBody,
} from '../../contract/admin.js';
import { validateAppParams } from '../../contract/apps.js';
import { isTenantAdmin, lowerKinds, type Pin } from '../../core/admin/rules.js';
import { ApiError } from '../../core/errors.js';
import { planOf } from '../../core/plans.js';
import type { AppRef } from '../../store/admin/environments.js';
import { actorOf, administeredApp } from '../principal.js';
import { data } from '../reply.js';
import { route, type AnyRoute, type Context } from '../route.js';
import { CREATED, ENVIRONMENT_EXAMPLE, ENV_ID } from '../../openapi/examples.js';
import { NO_SUCH_APP } from '../../openapi/phrases.js';
import { answer, payload } from '../../openapi/note.js';

function appRef(ctx: Context, appId: string | undefined): AppRef {
  return { tenantId: ctx.principal.tenantId, appId: administeredApp(ctx.principal, appId) };
}

/**
 * 403 unless a pinned admin (not a tenant admin) may have `env` as it is or would be: its own
 * environment in its own kind, or one of a lower kind. Deleting an environment deletes its keys, so
 * this is the key rule (managesKeysOf); and no kind may go above those, or a staging key could make
 * its environment production and itself a tenant admin.
 */
function assertManages(ctx: Context, env: { id?: string; kind: string }): void {
  const pin = ctx.principal.pin ?? null;
  if (isTenantAdmin(pin) || managesEnvironment(pin!, env)) return;
  throw new ApiError(
    'forbidden',
    `This key is pinned to a ${pin!.kind} environment: it manages its own environment and those of lower kinds, not a ${env.kind} one`,
  );
}

function managesEnvironment(pin: Pin, env: { id?: string; kind: string }): boolean {
  return env.id === pin.environmentId ? env.kind === pin.kind : (lowerKinds(pin) as string[]).includes(env.kind);
}

/** The environment as it stands, for a pinned admin's check; undefined for tenant admins (no query) and unknown ids (the store answers 404). */
async function currentEnvironment(ctx: Context, ref: AppRef, id: string) {
  if (isTenantAdmin(ctx.principal.pin ?? null)) return undefined;
  return (await ctx.services.store.run('listEnvironments', ref)).find((e) => e.id === id);
}

function forget(ctx: Context, keyHashes: readonly string[]): void {
  for (const hash of keyHashes) ctx.services.auth.forget(hash);
}

export const adminRoutes: AnyRoute[] = [
  route({
    method: 'POST',
    path: '/v1/environments',
    permission: 'admin',
    validate: { body: validateCreateEnvironmentBody },
    note: {
      tag: 'Environments',
      summary: 'Create an environment',
      body: payload('CreateEnvironmentBody', { staging: { name: 'staging', kind: 'preview' } }),
      answers: [answer(201, 'EnvironmentAnswer', 'The environment.', { created: { data: ENVIRONMENT_EXAMPLE } })],
      errors: [
        {
          status: 402,
          when: '`entitlement_required` with entitlement `max_environments_per_app`: the app has as many environments as its plan allows.',
        },
        NO_SUCH_APP,
        { status: 409, when: '`conflict`: the app has an environment of that name.' },
      ],
    },
    async handler({ body }, ctx) {
      const ref = appRef(ctx, body.app_id);
      assertManages(ctx, { kind: body.kind });
      const env = await ctx.services.store.run('createEnvironment', {
        ...ref,
        name: body.name,
        kind: body.kind,
        maxEnvironments: planOf(ctx.services.plans, ctx.principal.plan).max_environments_per_app,
      });
      return data(env, 201);
    },
  }),
  route({
    method: 'GET',
    path: '/v1/environments',
    permission: 'admin',
    validate: { query: validateEnvironmentListQuery },
    note: {
      tag: 'Environments',
      summary: 'List environments',
      query: 'EnvironmentListQuery',
      answers: [answer(200, 'EnvironmentListAnswer', 'The environments of the app.')],
      errors: [NO_SUCH_APP],
    },
    handler: async ({ query }, ctx) =>
      data(await ctx.services.store.run('listEnvironments', appRef(ctx, query.app_id))),
  }),
  route({
    method: 'PATCH',
    path: '/v1/environments/:id',
    permission: 'admin',
    validate: { params: validateEnvironmentParams, body: validateUpdateEnvironmentBody },
    note: {
      tag: 'Environments',
      summary: 'Rename an environment or change its kind',
      params: 'EnvironmentParams',
      body: payload('UpdateEnvironmentBody', { rename: { name: 'qa' } }),
      answers: [answer(200, 'EnvironmentAnswer', 'The environment.')],
      errors: [
        { status: 400, when: '`invalid_request_body` (`details.body`): neither `name` nor `kind` is given.' },
        {
          status: 409,
          when: '`conflict`: the name is taken, or the default environment would be renamed or change kind.',
        },
      ],
    },
    async handler({ params, body }, ctx) {
      const { app_id, ...patch } = body;
      const ref = appRef(ctx, app_id);
      const id = params.id.toLowerCase();
      const current = await currentEnvironment(ctx, ref, id);
      if (current) assertManages(ctx, current);
      if (current && patch.kind !== undefined) assertManages(ctx, { id, kind: patch.kind });
      const updated = await ctx.services.store.run('updateEnvironment', { ...ref, id, patch });
      // Cached keys carry their environment's name and kind (what a pin may do): read them again.
      ctx.services.auth.forgetTenant(ref.tenantId);
      return data(updated);
    },
  }),
  route({
    method: 'DELETE',
    path: '/v1/environments/:id',
    permission: 'admin',
    body: 'json',
    validate: { params: validateEnvironmentParams, body: validateDeleteEnvironmentBody },
    note: {
      tag: 'Environments',
      summary: 'Delete an environment',
      description: 'A non-default environment, with its API keys; typed-name confirmation.',
      params: 'EnvironmentParams',
      body: payload('DeleteEnvironmentBody', { confirmed: { confirmation_name: 'staging' } }),
      answers: [
        answer(200, 'EnvironmentDeletionAnswer', 'What was deleted.', {
          deleted: {
            data: {
              id: ENV_ID,
              deleted_at: CREATED,
              cascade: { alerts_deleted: 0, api_keys_revoked: 2, deployments_deleted: 0, runtime_app_destroyed: false },
            },
          },
        }),
      ],
      errors: [
        { status: 400, when: "`invalid_request_body`: `confirmation_name` is not the environment's name." },
        { status: 409, when: "`conflict`: the app's default environment." },
      ],
    },
    async handler({ params, body }, ctx) {
      const ref = appRef(ctx, body.app_id);
      const id = params.id.toLowerCase();
      const current = await currentEnvironment(ctx, ref, id);
      if (current) assertManages(ctx, current);
      const { deletion, keyHashes } = await ctx.services.store.run('deleteEnvironment', {
        ...ref,
        id,
        confirmationName: body.confirmation_name,
        deletedAt: new Date().toISOString(),
      });
      forget(ctx, keyHashes);
      return data(deletion);
    },
  }),
  route({
    method: 'PATCH',
    path: '/v1/apps/:appId',
    permission: 'admin',
    validate: { params: validateAppParams, body: validateUpdateAppBody },
    // Retention drops every environment's spans.
    appWide: { what: "change an app's settings" },
    note: {
      tag: 'Apps',
      summary: 'Update an app',
      description: "`null` clears a field; `retention_days` sets how long the app's spans are kept.",
      params: 'AppParams',
      body: payload('UpdateAppBody', { retention: { retention_days: 30, display_name: null } }),
      answers: [answer(200, 'AppAnswer', 'The app.')],
      errors: [{ status: 400, when: '`invalid_request_body` (`details.body`): the body changes no field.' }],
    },
    async handler({ params, body }, ctx) {
      return data(
        await ctx.services.store.run('updateApp', {
          ...appRef(ctx, params.appId),
          patch: body,
          by: actorOf(ctx.principal),
        }),
      );
    },
  }),
  route({
    method: 'DELETE',
    path: '/v1/apps/:appId',
    permission: 'admin',
    body: 'json',
    validate: { params: validateAppParams, body: validateDeleteAppBody },
    note: {
      tag: 'Apps',
      summary: 'Delete an app',
      description: "With its environments and keys. The caller's own app cannot be deleted.",
      params: 'AppParams',
      body: { ...payload('DeleteAppBody', { confirmed: { confirmation_name: 'checkout' } }), optional: true },
      answers: [answer(200, 'AppDeletionAnswer', 'What was deleted.')],
      errors: [{ status: 409, when: "`conflict`: the caller's own app." }],
    },
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
