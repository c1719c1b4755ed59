/**
 * `GET /v1/auth/app`: the app of the credential in Authorization, sent without an app id — so a
 * person or a tool holding only an API key (the one the first start prints) can sign in to the UI
 * or run `tracelake quickstart`. Every other route still needs the app id header (spec:
 * Authentication). The router does no auth here, since it would ask for that header: the handler
 * authenticates (http/auth.ts, `appOf`) and then counts the request against the tenant's rate like
 * any authenticated one. An unknown key has no tenant to count against, as on every route
 * (docs/decisions.md, "The app of a key alone").
 */
import type { CredentialApp } from '../../contract/responses.js';
import { rateLimited } from '../../core/errors.js';
import { data } from '../reply.js';
import { route } from '../route.js';

export const CREDENTIAL_APP_PATH = '/v1/auth/app';

export const credentialRoutes = [
  route({
    method: 'GET',
    path: CREDENTIAL_APP_PATH,
    permission: 'none',
    async handler({ headers }, ctx) {
      const { tenantId, appId } = await ctx.services.auth.appOf(headers);
      const rate = ctx.services.rateLimiter.take(tenantId, Date.now());
      if (!rate.allowed) throw rateLimited(rate.retryAfterSeconds);
      return data({ app_id: appId } satisfies CredentialApp);
    },
  }),
];
