/**
 * The operator API (/v1/operator/*) as a mapping of the CLI's commands: each command is one
 * endpoint, its flags are the endpoint's path parameters and body fields. The CLI turns the flags it
 * was given into a request (`operatorRequest`); the server turns a request back into flags and
 * checks them with the CLI's own rules (`operatorCommand`), so both ends accept the same commands.
 */
import { buildCommand, type CliCommand } from './cliArgs.js';
import type { UsageError } from '../cliArgs.js';

/** Every CLI command but `secret reset`, which replaces the secret a running server holds. */
export type OperatorCommand = Exclude<CliCommand, { name: 'secret reset' }>;
export type OperatorCommandName = OperatorCommand['name'];

export type OperatorMethod = 'GET' | 'POST' | 'PATCH' | 'DELETE';

/** A body field: the flag it stands for, and its JSON type (a list flag is comma-separated). */
interface Field {
  flag: string;
  name: string;
  type: 'string' | 'list' | 'integer';
}

export interface OperatorEndpoint {
  method: OperatorMethod;
  /** `:name` segments are path parameters, each named after the flag it carries. */
  path: string;
  fields: readonly Field[];
  /** 201 when the command makes something. */
  status: 200 | 201;
}

/** JSON names are the flags' names in snake case unless given. */
const text = (flag: string, name = flag.replace(/-/g, '_')): Field => ({ flag, name, type: 'string' });
const list = (flag: string): Field => ({ flag, name: flag, type: 'list' });

const PREFIX = '/v1/operator';

/** Who the server is and which store it serves: the CLI sends a command only to the server of its own store. */
export const OPERATOR_SERVER_PATH = `${PREFIX}/server`;

export const OPERATOR_ENDPOINTS: Record<OperatorCommandName, OperatorEndpoint> = {
  'tenant create': { method: 'POST', path: `${PREFIX}/tenants`, fields: [text('name'), text('plan')], status: 201 },
  'tenant list': { method: 'GET', path: `${PREFIX}/tenants`, fields: [], status: 200 },
  'tenant set-plan': { method: 'PATCH', path: `${PREFIX}/tenants/:tenant`, fields: [text('plan')], status: 200 },
  'app create': {
    method: 'POST',
    path: `${PREFIX}/tenants/:tenant/apps`,
    fields: [text('name'), text('display-name'), text('entry-point'), text('runtime')],
    status: 201,
  },
  'app list': { method: 'GET', path: `${PREFIX}/tenants/:tenant/apps`, fields: [], status: 200 },
  'environment create': {
    method: 'POST',
    path: `${PREFIX}/apps/:app/environments`,
    fields: [text('name'), text('kind')],
    status: 201,
  },
  'environment list': { method: 'GET', path: `${PREFIX}/apps/:app/environments`, fields: [], status: 200 },
  'key create': {
    method: 'POST',
    path: `${PREFIX}/apps/:app/keys`,
    fields: [text('name'), text('role'), list('permissions'), text('environment'), list('kinds'), text('expires-at')],
    status: 201,
  },
  'key list': { method: 'GET', path: `${PREFIX}/apps/:app/keys`, fields: [], status: 200 },
  'key revoke': { method: 'DELETE', path: `${PREFIX}/apps/:app/keys/:id`, fields: [], status: 200 },
  'token create': {
    method: 'POST',
    path: `${PREFIX}/tokens`,
    fields: [
      text('tenant', 'tenant_id'),
      text('app', 'app_id'),
      text('subject'),
      { flag: 'ttl', name: 'ttl_seconds', type: 'integer' },
    ],
    status: 201,
  },
};

export function isOperatorCommand(command: CliCommand): command is OperatorCommand {
  return command.name !== 'secret reset';
}

export interface OperatorRequest {
  method: OperatorMethod;
  path: string;
  body?: Record<string, unknown>;
}

/** The request that runs command `name` given `flags` (already checked by the CLI). */
export function operatorRequest(name: OperatorCommandName, flags: ReadonlyMap<string, string>): OperatorRequest {
  const endpoint = OPERATOR_ENDPOINTS[name];
  const path = endpoint.path.replace(/:([a-z-]+)/g, (_, flag: string) => encodeURIComponent(flags.get(flag) ?? ''));
  if (endpoint.method === 'GET' || endpoint.method === 'DELETE') return { method: endpoint.method, path };
  const body: Record<string, unknown> = {};
  for (const field of endpoint.fields) {
    const value = flags.get(field.flag);
    if (value === undefined) continue;
    body[field.name] =
      field.type === 'list' ? value.split(',').map((s) => s.trim()) : field.type === 'integer' ? Number(value) : value;
  }
  return { method: endpoint.method, path, body };
}

/**
 * The command a request to `name`'s endpoint asks for: its path parameters and body as flags,
 * checked as the CLI checks them. Throws UsageError (a 400; `usageDetails` says which field).
 */
export function operatorCommand(
  name: OperatorCommandName,
  params: Readonly<Record<string, string>>,
  body: Readonly<Record<string, unknown>> | undefined,
  nowMs: number,
): OperatorCommand {
  const flags = new Map(Object.entries(params));
  for (const field of OPERATOR_ENDPOINTS[name].fields) {
    const value = body?.[field.name];
    if (value === undefined) continue;
    flags.set(field.flag, Array.isArray(value) ? value.join(',') : String(value));
  }
  return buildCommand(name, flags, nowMs) as OperatorCommand;
}

/** A usage error of `name`'s flags in the API's words: `details` keyed by field, flags named as fields. */
export function usageDetails(name: OperatorCommandName, e: UsageError): Record<string, string> {
  const fieldOf = (flag: string) => OPERATOR_ENDPOINTS[name].fields.find((f) => f.flag === flag)?.name ?? flag;
  const message = e.message.replace(/--([a-z-]+)/g, (_, flag: string) => fieldOf(flag));
  return { [e.flag === undefined ? 'body' : fieldOf(e.flag)]: message };
}
