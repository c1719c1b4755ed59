/**
 * The notes on the operator API's operations (/v1/operator/*), which http/routes/operator.ts builds
 * one per CLI command (core/admin/operatorApi.ts): a note is keyed by the command, and takes its
 * success status from there, so the two cannot drift apart. Every
 * note says that the operation exists only on a server with an operator token, and names the
 * errors the operator API answers (http/operatorAuth.ts, http/routes/operator.ts).
 */
import type { Catalog } from '../contract/catalog.js';
import { OPERATOR_ENDPOINTS, type OperatorCommandName } from '../core/admin/operatorApi.js';
import type { Tag } from './tags.js';
import { APP_EXAMPLE, APP_ID, CREATED, ENV_ID, ENVIRONMENT_EXAMPLE } from './examples.js';
import { answer, payload, type OperationNote, type RouteNote } from './note.js';

export const OPERATOR_TAG = 'Operator' satisfies Tag;

/** The sentence every operator note ends with. */
export const ONLY_WITH_OPERATOR_TOKEN =
  'Served only by a server with an operator token (`TRACELAKE_OPERATOR_TOKEN`), in both modes; without one, every operator route answers 404 `not_found`.';

/** Errors of every operator route: the token is its only credential (no 403, no rate limit). */
const COMMON_ERRORS: NonNullable<OperationNote['errors']> = [
  {
    status: 401,
    when: '`unauthorized`: no operator token, or a wrong one (an API key or a session token is refused here too).',
  },
  { status: 404, when: '`not_found`: the server has no operator token (the operator API is off).' },
];

/** The body's shape first (typia), then the values by the CLI's own checks (cliArgs.ts). */
const REFUSED_BODY = {
  status: 400,
  when: '`invalid_request_body` with `details` keyed by field: a field of the wrong shape, or a value the CLI would refuse (`details.body` when two fields conflict).',
};

/** REFUSED_BODY with the values this command's CLI refuses, field by field. */
function refusedBody(rules: string): { status: number; when: string } {
  return { status: 400, when: `${REFUSED_BODY.when} ${rules}` };
}

/** The CLI's rule for names and display names (cliArgs.ts, `label`). */
const LABEL_RULE = '1 to 128 characters, no control characters, not blank';

const TENANT_ID = APP_EXAMPLE.tenant_id;
const KEY_ID = '5b4a3c2d-1e0f-4a9b-8c7d-6e5f4a3b2c1d';

const KEY_EXAMPLE: Catalog['OperatorKeyAnswer']['data'] = {
  id: KEY_ID,
  name: 'checkout-service',
  tenant_id: TENANT_ID,
  app_id: APP_ID,
  environment_id: ENV_ID,
  environment_name: 'production',
  allowed_kinds: null,
  role: 'sdk',
  permissions: ['trace.write', 'score.write', 'template.read'],
  key_prefix: 'sk_service_A',
  created_at: CREATED,
  expires_at: null,
  last_used_at: null,
  revoked_at: null,
};

const TENANT_EXAMPLE: Catalog['TenantAnswer']['data'] = {
  id: TENANT_ID,
  name: 'acme',
  plan: 'team',
  created_at: CREATED,
  apps: 2,
};

/** A note of the operator API: its tag, the sentence on the token, and the common errors added. */
function operator(note: Omit<RouteNote, 'tag'>): RouteNote {
  return {
    ...note,
    tag: OPERATOR_TAG,
    description:
      note.description === undefined ? ONLY_WITH_OPERATOR_TOKEN : `${note.description}\n\n${ONLY_WITH_OPERATOR_TOKEN}`,
    errors: [...COMMON_ERRORS, ...(note.errors ?? [])],
  };
}

/** The success status of a command's endpoint (201 when it makes something). */
function status(name: OperatorCommandName): number {
  return OPERATOR_ENDPOINTS[name].status;
}

/** The note of each command's route. */
export const COMMAND_NOTES: Record<OperatorCommandName, RouteNote> = {
  'tenant create': operator({
    summary: 'Create a tenant',
    description:
      "With an app `default` and that app's `production` environment; `created_by` is `operator`. Tenant names are unique.",
    body: payload('OperatorCreateTenantBody', { acme: { name: 'acme', plan: 'team' } }),
    answers: [
      answer(status('tenant create'), 'CreatedTenantAnswer', 'The tenant, with the ids of its app and environment.', {
        acme: { data: { tenant_id: TENANT_ID, name: 'acme', plan: 'team', app_id: APP_ID, environment_id: ENV_ID } },
      }),
    ],
    errors: [
      refusedBody(`\`name\`: ${LABEL_RULE}; \`plan\`: one of the server's plans.`),
      { status: 409, when: '`conflict`: a tenant of that name exists.' },
    ],
  }),
  'tenant list': operator({
    summary: 'List tenants',
    description: 'Every tenant, oldest first, with its number of apps.',
    answers: [answer(status('tenant list'), 'TenantListAnswer', 'The tenants.', { one: { data: [TENANT_EXAMPLE] } })],
  }),
  'tenant set-plan': operator({
    summary: "Set a tenant's plan",
    description: "The plan's quotas apply from the tenant's next request (its keys are dropped from the auth cache).",
    params: 'OperatorTenantParams',
    body: payload('OperatorSetPlanBody', { team: { plan: 'team' } }),
    answers: [answer(status('tenant set-plan'), 'TenantAnswer', 'The tenant.', { team: { data: TENANT_EXAMPLE } })],
    errors: [refusedBody("`plan`: one of the server's plans."), { status: 404, when: 'Or no tenant has that id.' }],
  }),
  'app create': operator({
    summary: 'Create an app of a tenant',
    description: "With its default `production` environment. The plan's app limit does not apply (as in the CLI).",
    params: 'OperatorTenantParams',
    body: payload('OperatorCreateAppBody', { web: { name: 'web', display_name: 'Web shop' } }),
    answers: [
      answer(status('app create'), 'AppAnswer', 'The app.', {
        web: {
          data: {
            ...APP_EXAMPLE,
            name: 'web',
            display_name: 'Web shop',
            created_by: 'operator',
            updated_by: 'operator',
          },
        },
      }),
    ],
    errors: [
      refusedBody(
        `\`name\`: lowercase letters, digits, ".", "_" and "-", at most 64, starting with a letter or digit; \`display_name\`: ${LABEL_RULE}; \`entry_point\`: a path of at most 512 characters, no control characters; \`runtime\`: letters, digits, ".", "_" and "-", at most 32.`,
      ),
      { status: 404, when: 'Or no tenant has that id.' },
      { status: 409, when: '`duplicate_app_name`: the tenant has an app of that name.' },
    ],
  }),
  'app list': operator({
    summary: 'List the apps of a tenant',
    params: 'OperatorTenantParams',
    answers: [answer(status('app list'), 'AppListAnswer', 'The apps.')],
    errors: [{ status: 404, when: 'Or no tenant has that id.' }],
  }),
  'environment create': operator({
    summary: 'Create an environment of an app',
    params: 'OperatorAppParams',
    body: payload('OperatorCreateEnvironmentBody', { staging: { name: 'staging', kind: 'preview' } }),
    answers: [
      answer(status('environment create'), 'EnvironmentAnswer', 'The environment.', {
        staging: { data: ENVIRONMENT_EXAMPLE },
      }),
    ],
    errors: [
      refusedBody(
        '`name`: an environment name (lowercase letters, digits and "-", at most 63, starting with a letter or digit).',
      ),
      { status: 404, when: 'Or no app has that id.' },
      { status: 409, when: '`conflict`: the app has an environment of that name.' },
    ],
  }),
  'environment list': operator({
    summary: 'List the environments of an app',
    description: 'The default environment first.',
    params: 'OperatorAppParams',
    answers: [answer(status('environment list'), 'EnvironmentListAnswer', 'The environments.')],
    errors: [{ status: 404, when: 'Or no app has that id.' }],
  }),
  'key create': operator({
    summary: 'Create an API key of an app',
    description:
      "Exactly one of `role` (`sdk`, `read-only`, `full-access`) and `permissions` (a custom key); exactly one of `environment` (pinned to it) and `kinds` (kind-scoped: the environment is named per request with `X-Service-Environment` or `X-Service-Pull-Request`). The plan's key limit does not apply (as in the CLI). The key itself is in this answer only.",
    params: 'OperatorAppParams',
    body: payload('OperatorCreateKeyBody', {
      pinned: { name: 'checkout-service', role: 'sdk', environment: 'production' },
      kindScoped: { name: 'previews', role: 'read-only', kinds: ['preview', 'development'] },
      custom: {
        name: 'grader',
        permissions: ['trace.read', 'score.write'],
        environment: 'production',
        expires_at: '2027-06-30T00:00:00Z',
      },
    }),
    answers: [
      answer(status('key create'), 'CreatedOperatorKeyAnswer', 'The key, with `plaintext_key` this once.', {
        pinned: { data: { ...KEY_EXAMPLE, plaintext_key: 'sk_service_A1b2C3d4E5f6G7h8I9j0K1l2M3n4O5p6Q7r8S9t0U1v' } },
      }),
    ],
    errors: [
      refusedBody(
        `\`name\`: ${LABEL_RULE}; \`role\`: sdk, read-only, full-access or worker; \`environment\`: an environment name; \`expires_at\`: a date-time with a zone, in the future; \`details.body\`: not exactly one of \`role\` and \`permissions\`, or of \`environment\` and \`kinds\`.`,
      ),
      { status: 404, when: 'Or no app has that id, or the app has no environment of that name.' },
    ],
  }),
  'key list': operator({
    summary: 'List the API keys of an app',
    description: 'Newest first, revoked keys included; metadata only, never the key.',
    params: 'OperatorAppParams',
    answers: [answer(status('key list'), 'OperatorKeyListAnswer', 'The keys.', { one: { data: [KEY_EXAMPLE] } })],
    errors: [{ status: 404, when: 'Or no app has that id.' }],
  }),
  'key revoke': operator({
    summary: 'Revoke an API key',
    description:
      'The next request with the key is 401 (it is dropped from the auth cache). Revoking twice keeps the first time.',
    params: 'OperatorKeyParams',
    answers: [
      answer(status('key revoke'), 'OperatorKeyAnswer', 'The revoked key.', {
        revoked: { data: { ...KEY_EXAMPLE, revoked_at: CREATED } },
      }),
    ],
    errors: [{ status: 404, when: 'Or no app has that id, or the app has no key of that id.' }],
  }),
  'token create': operator({
    summary: 'Issue a session token',
    description:
      "A token for a tenant admin of one app, signed with this store's secret; `ttl_seconds` from 60 to 7 days (default 3600).",
    body: payload('OperatorCreateTokenBody', {
      admin: { tenant_id: TENANT_ID, app_id: APP_ID, subject: 'ops@example.com', ttl_seconds: 3600 },
    }),
    answers: [
      answer(status('token create'), 'SessionTokenAnswer', 'The token and its claims.', {
        admin: {
          data: {
            token: 'eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.eyJpc3MiOiJ0cmFjZWxha2UifQ.c2lnbmF0dXJl',
            token_type: 'Bearer',
            subject: 'ops@example.com',
            tenant_id: TENANT_ID,
            app_id: APP_ID,
            role: 'admin',
            issued_at: '2026-11-20T09:15:02.000Z',
            expires_at: '2026-11-20T10:15:02.000Z',
          },
        },
      }),
    ],
    errors: [
      refusedBody('`subject`: an e-mail address; `ttl_seconds`: 60 to 604,800 (7 days).'),
      { status: 404, when: "Or no app has that id, or the app is not the tenant's." },
    ],
  }),
};

/** The note of `GET /v1/operator/server`, the route of no command. */
export const SERVER_NOTE: RouteNote = operator({
  summary: 'Which server this is, and which store it serves',
  description: 'The CLI asks this before sending a command, and sends it only to the server of its own data dir.',
  answers: [
    answer(200, 'OperatorServerAnswer', 'The server.', {
      server: { data: { data_dir: '/var/lib/tracelake', version: '0.1.0', pid: 1, started_at: CREATED } },
    }),
  ],
});
