/**
 * Local-only development endpoints (`/v1/dev/*`; the cloud answers 501 `not_available_on_cloud`).
 * `whoami` tells a developer which tenant, app and environment their requests act as — the app id is
 * what they configure their SDK with.
 */
import type { WhoAmI } from '../../contract/responses.js';
import { data } from '../reply.js';
import { route } from '../route.js';
import { answer } from '../../openapi/note.js';

export const devRoutes = [
  route({
    method: 'GET',
    path: '/v1/dev/whoami',
    permission: 'trace.read',
    note: {
      tag: 'Local development',
      summary: 'Who local requests act as',
      description: 'The tenant, app (the id an SDK is configured with) and environment of the request.',
      answers: [answer(200, 'WhoAmIAnswer', 'The caller.')],
    },
    handler: (_input, ctx) =>
      data({
        kind: ctx.principal.kind,
        tenant_id: ctx.principal.tenantId,
        app_id: ctx.principal.appId,
        environment_id: ctx.principal.environmentId,
        role: ctx.principal.role,
        permissions: ctx.principal.permissions,
      } satisfies WhoAmI),
  }),
];
