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
import { APP_ID } from '../../openapi/examples.js';
import { answer } from '../../openapi/note.js';

export const CREDENTIAL_APP_PATH = '/v1/auth/app';

export const credentialRoutes = [
  route({
    method: 'GET',
    path: CREDENTIAL_APP_PATH,
    permission: 'none',
    note: {
      tag: 'Authentication',
      summary: 'The app of a key sent alone',
      description:
        "The app an API key belongs to, or the app a session token names, from `Authorization` alone: for a client that holds only the key (the UI's sign-in, `tracelake quickstart`). Every other operation still needs the app id in `X-Service-App-Id`. Counted against the tenant's rate like any authenticated request.",
      credentialAlone: true,
      answers: [
        answer(200, 'CredentialAppAnswer', 'The app to name in `X-Service-App-Id`.', {
          key: { data: { app_id: APP_ID } },
        }),
      ],
      errors: [
        {
          status: 401,
          when: '`unauthorized`: `Authorization` is missing, or holds no valid key or session token (unknown, revoked, expired, or a token that does not verify). On a server in local mode, no `Authorization` is the local app.',
        },
        { status: 403, when: '`forbidden`: the key of an eval run, which reports for its run and does nothing else.' },
        { status: 429, when: '`rate_limited`: the tenant of the credential is over its request rate.' },
      ],
    },
    async handler({ headers }, ctx) {
      const { tenantId, appId } = await ctx.services.auth.appOf(headers);
      const rate = ctx.services.rateLimiter.take(tenantId, Date.now());
      if (!rate.allowed) throw rateLimited(rate.retryAfterSeconds);
      return data({ app_id: appId } satisfies CredentialApp);
    },
  }),
];
