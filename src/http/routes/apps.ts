/**
 * Apps (spec: Apps): create (with its default `production` environment), list and read, within the
 * caller's tenant; an admin pinned to a preview or development environment lists and reads its own
 * app only. Admin only. Update, delete and plan quotas arrive with tenancy administration.
 */
import { validateAppParams, validateCreateAppBody } from '../../contract/apps.js';
import { isTenantAdmin } from '../../core/admin/rules.js';
import { ApiError } from '../../core/errors.js';
import { planOf } from '../../core/plans.js';
import { data } from '../reply.js';
import { actorOf, administeredApp, requireTenantAdmin } from '../principal.js';
import { route } from '../route.js';
import { APP_EXAMPLE } from '../../openapi/examples.js';
import { answer, payload } from '../../openapi/note.js';

export const appRoutes = [
  route({
    method: 'POST',
    path: '/v1/apps',
    permission: 'admin',
    validate: { body: validateCreateAppBody },
    note: {
      tag: 'Apps',
      summary: 'Create an app',
      description: 'With its default `production` environment.',
      body: payload('CreateAppBody', { checkout: { name: 'checkout', display_name: 'Checkout assistant' } }),
      answers: [answer(201, 'AppAnswer', 'The app.', { created: { data: APP_EXAMPLE } })],
      errors: [
        { status: 402, when: "`entitlement_required` (`max_apps`): the plan's app limit is reached." },
        { status: 409, when: '`duplicate_app_name`.' },
      ],
    },
    async handler({ body }, ctx) {
      requireTenantAdmin(ctx.principal, 'create apps');
      const app = await ctx.services.store.run('createApp', {
        tenantId: ctx.principal.tenantId,
        name: body.name,
        displayName: body.display_name ?? null,
        entryPoint: body.entry_point ?? null,
        runtime: body.runtime ?? 'nodejs',
        createdBy: actorOf(ctx.principal),
        maxApps: planOf(ctx.services.plans, ctx.principal.plan).max_apps,
      });
      if (!app) throw new ApiError('duplicate_app_name', `The tenant already has an app named "${body.name}"`);
      return data(app, 201);
    },
  }),
  route({
    method: 'GET',
    path: '/v1/apps',
    permission: 'admin',
    note: { tag: 'Apps', summary: 'List apps', answers: [answer(200, 'AppListAnswer', 'The apps of the tenant.')] },
    async handler(_input, ctx) {
      // A pinned admin that is not a tenant admin sees its own app only (see administeredApp).
      const own = isTenantAdmin(ctx.principal.pin ?? null) ? {} : { id: ctx.principal.appId };
      return data(await ctx.services.store.run('listApps', { tenantId: ctx.principal.tenantId, ...own }));
    },
  }),
  route({
    method: 'GET',
    path: '/v1/apps/:appId',
    permission: 'admin',
    validate: { params: validateAppParams },
    note: { tag: 'Apps', summary: 'One app', params: 'AppParams', answers: [answer(200, 'AppAnswer', 'The app.')] },
    async handler({ params }, ctx) {
      const [app] = await ctx.services.store.run('listApps', {
        tenantId: ctx.principal.tenantId,
        id: administeredApp(ctx.principal, params.appId),
      });
      if (!app) throw new ApiError('not_found', `App ${params.appId} not found`);
      return data(app);
    },
  }),
];
