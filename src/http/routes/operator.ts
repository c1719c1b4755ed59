/**
 * The operator API (/v1/operator/*): the CLI's commands on a running server, so tenants, plans,
 * apps, environments, keys and session tokens need no downtime. Opened by the operator token alone
 * (http/operatorAuth.ts); served only when one is configured. Each endpoint is a CLI command
 * (core/admin/operatorApi.ts), checked by the CLI's rules and run by the same code on the store
 * thread (store/admin/operator.ts); a refused request has changed nothing.
 */
import { realpathSync } from 'node:fs';
import { resolve } from 'node:path';
import {
  validateOperatorAppParams,
  validateOperatorCreateAppBody,
  validateOperatorCreateEnvironmentBody,
  validateOperatorCreateKeyBody,
  validateOperatorCreateTenantBody,
  validateOperatorCreateTokenBody,
  validateOperatorKeyParams,
  validateOperatorSetPlanBody,
  validateOperatorTenantParams,
} from '../../contract/operator.js';
import type { OperatorServer } from '../../contract/responses.js';
import { UsageError } from '../../core/cliArgs.js';
import {
  OPERATOR_ENDPOINTS,
  OPERATOR_SERVER_PATH,
  operatorCommand,
  usageDetails,
  type OperatorCommand,
  type OperatorCommandName,
} from '../../core/admin/operatorApi.js';
import { validationError } from '../../core/errors.js';
import { COMMAND_NOTES, SERVER_NOTE } from '../../openapi/operatorNotes.js';
import { data } from '../reply.js';
import { route, type AnyRoute, type Context, type Route } from '../route.js';

type Validators = NonNullable<
  Route<Record<string, string>, Record<string, never>, Record<string, unknown> | undefined>['validate']
>;

const VALIDATORS: Record<OperatorCommandName, Validators> = {
  'tenant create': { body: validateOperatorCreateTenantBody },
  'tenant list': {},
  'tenant set-plan': { params: validateOperatorTenantParams, body: validateOperatorSetPlanBody },
  'app create': { params: validateOperatorTenantParams, body: validateOperatorCreateAppBody },
  'app list': { params: validateOperatorTenantParams },
  'environment create': { params: validateOperatorAppParams, body: validateOperatorCreateEnvironmentBody },
  'environment list': { params: validateOperatorAppParams },
  'key create': { params: validateOperatorAppParams, body: validateOperatorCreateKeyBody },
  'key list': { params: validateOperatorAppParams },
  'key revoke': { params: validateOperatorKeyParams },
  'token create': { body: validateOperatorCreateTokenBody },
} as Record<OperatorCommandName, Validators>;

/** The command a request asks for, or 400 naming the field the CLI's rules refuse. */
function commandOf(
  name: OperatorCommandName,
  params: Record<string, string>,
  body: Record<string, unknown> | undefined,
  ctx: Context,
): OperatorCommand {
  let command: OperatorCommand;
  try {
    command = operatorCommand(name, params, body, Date.now());
  } catch (e) {
    if (e instanceof UsageError) throw validationError('body', usageDetails(name, e));
    throw e;
  }
  // The server's own plans (the CLI on a data dir reads the plans file instead: cli/plans.ts).
  const plans = ctx.services.plans.plans;
  if ('plan' in command && command.plan !== null && !(command.plan in plans)) {
    throw validationError('body', {
      plan: `unknown plan "${command.plan}"; the plans file has ${Object.keys(plans).join(', ')}`,
    });
  }
  return command;
}

/** What the main thread must forget once a command has run: the auth cache holds keys with their tenant's plan. */
function forgetCached(ctx: Context, command: OperatorCommand): void {
  if (command.name === 'key revoke') ctx.services.auth.forgetKeyId(command.keyId);
  if (command.name === 'tenant set-plan') ctx.services.auth.forgetTenant(command.tenantId);
}

function commandRoute(name: OperatorCommandName, secret: Buffer): AnyRoute {
  const endpoint = OPERATOR_ENDPOINTS[name];
  return route({
    method: endpoint.method,
    path: endpoint.path,
    permission: 'operator',
    validate: VALIDATORS[name],
    note: COMMAND_NOTES[name],
    async handler({ params, body }, ctx) {
      const command = commandOf(name, params, body, ctx);
      const answer = await ctx.services.store.run('operator', { command, nowMs: Date.now(), secret });
      forgetCached(ctx, command);
      return data(answer, endpoint.status);
    },
  });
}

/** Every operator route; `secret` hashes the keys they mint and signs the session tokens. */
export function operatorRoutes(secret: Buffer): AnyRoute[] {
  return [
    route({
      method: 'GET',
      path: OPERATOR_SERVER_PATH,
      permission: 'operator',
      note: SERVER_NOTE,
      handler: (_input, ctx) =>
        data({
          // Resolved as the CLI resolves its own, which sends a command only to the server of its store.
          data_dir: realpathSync(resolve(ctx.config.dataDir)),
          version: ctx.services.version,
          pid: process.pid,
          started_at: ctx.services.startedAt.toISOString(),
        } satisfies OperatorServer),
    }),
    ...(Object.keys(OPERATOR_ENDPOINTS) as OperatorCommandName[]).map((name) => commandRoute(name, secret)),
  ];
}
