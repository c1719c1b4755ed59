/**
 * src/core/admin/operatorApi.ts: every CLI command but `secret reset` has an endpoint; the request
 * the CLI makes of its flags is turned back by the server into the very command the CLI parsed.
 */
import t from 'tap';
import { parseCli, type CliCommand } from '../../../src/core/admin/cliArgs.js';
import { UsageError } from '../../../src/core/cliArgs.js';
import {
  isOperatorCommand,
  OPERATOR_ENDPOINTS,
  OPERATOR_SERVER_PATH,
  operatorCommand,
  operatorRequest,
  usageDetails,
  type OperatorCommandName,
} from '../../../src/core/admin/operatorApi.js';

const NOW = Date.parse('2026-06-01T00:00:00Z');
const T = '0b7c2f4e-9d1a-4c55-8e3f-2a6b1c9d0e11';
const A = '5f0e3d2c-1b4a-4958-8776-a5b4c3d2e1f0';
const K = '9a8b7c6d-5e4f-4a3b-9c2d-1e0f9a8b7c6d';

/** A command line of each command, with every flag the command has where it can. */
const LINES: string[][] = [
  ['tenant', 'create', '--name', 'Acme Inc.', '--plan', 'free'],
  ['tenant', 'create', '--name', 'bare'],
  ['tenant', 'list'],
  ['tenant', 'set-plan', '--tenant', T, '--plan', 'team'],
  [
    'app',
    'create',
    '--tenant',
    T,
    '--name',
    'web',
    '--display-name',
    'Web shop',
    '--entry-point',
    'src/index.ts',
    '--runtime',
    'bun',
  ],
  ['app', 'list', '--tenant', T],
  ['environment', 'create', '--app', A, '--name', 'staging', '--kind', 'preview'],
  ['environment', 'list', '--app', A],
  [
    'key',
    'create',
    '--app',
    A,
    '--name',
    'ci',
    '--role',
    'read-only',
    '--kinds',
    'preview, development',
    '--expires-at',
    '2099-01-01T00:00:00+02:00',
  ],
  [
    'key',
    'create',
    '--app',
    A,
    '--name',
    'custom',
    '--permissions',
    'trace.write,score.write',
    '--environment',
    'staging',
  ],
  ['key', 'list', '--app', A],
  ['key', 'revoke', '--app', A, '--id', K],
  ['token', 'create', '--tenant', T, '--app', A, '--subject', 'ops@acme.test', '--ttl', '600'],
  ['token', 'create', '--tenant', T, '--app', A, '--subject', 'ops@acme.test'],
];

function parsed(line: string[]): { command: CliCommand; flags: ReadonlyMap<string, string> } {
  const r = parseCli(line, {}, NOW);
  if (r.kind !== 'run') throw new Error('expected a command');
  return r;
}

/** The path parameters a router would find in `path` for the endpoint's pattern. */
function paramsOf(pattern: string, path: string): Record<string, string> {
  const names = pattern.split('/');
  const values = path.split('/');
  return Object.fromEntries(
    names.flatMap((n, i) => (n.startsWith(':') ? [[n.slice(1), decodeURIComponent(values[i]!)]] : [])),
  );
}

t.test('every command but secret reset has its endpoint', async (t) => {
  const names = new Set(LINES.map((l) => parsed(l).command.name));
  t.same([...names].sort(), Object.keys(OPERATOR_ENDPOINTS).sort(), 'the lines cover every endpoint');
  t.notOk(isOperatorCommand(parsed(['secret', 'reset']).command));
  t.ok(isOperatorCommand(parsed(['tenant', 'list']).command));
  const routes = Object.values(OPERATOR_ENDPOINTS).map((e) => `${e.method} ${e.path.replace(/:[a-z-]+/g, ':')}`);
  t.equal(new Set(routes).size, routes.length, 'no two share a method and path');
  t.ok(Object.values(OPERATOR_ENDPOINTS).every((e) => e.path.startsWith('/v1/operator/')));
  t.equal(OPERATOR_SERVER_PATH, '/v1/operator/server');
});

t.test('request and back: the server rebuilds the command the CLI parsed', async (t) => {
  for (const line of LINES) {
    const { command, flags } = parsed(line);
    const name = command.name as OperatorCommandName;
    const request = operatorRequest(name, flags);
    const endpoint = OPERATOR_ENDPOINTS[name];
    t.equal(request.method, endpoint.method, line.join(' '));
    t.equal(request.path.split('/').length, endpoint.path.split('/').length);
    // A body travels as JSON.
    const body =
      request.body === undefined ? undefined : (JSON.parse(JSON.stringify(request.body)) as Record<string, unknown>);
    t.same(
      operatorCommand(name, paramsOf(endpoint.path, request.path), body, NOW),
      command,
      `${line.join(' ')}: the same command`,
    );
  }
});

t.test('the bodies: JSON names, lists as arrays, numbers as numbers', async (t) => {
  const key = parsed(LINES[8]!);
  t.same(operatorRequest('key create', key.flags), {
    method: 'POST',
    path: `/v1/operator/apps/${A}/keys`,
    body: { name: 'ci', role: 'read-only', kinds: ['preview', 'development'], expires_at: '2099-01-01T00:00:00+02:00' },
  });
  t.same(operatorRequest('token create', parsed(LINES[12]!).flags).body, {
    tenant_id: T,
    app_id: A,
    subject: 'ops@acme.test',
    ttl_seconds: 600,
  });
  t.same(
    operatorRequest('key revoke', parsed(LINES[11]!).flags),
    { method: 'DELETE', path: `/v1/operator/apps/${A}/keys/${K}` },
    'no body on a delete',
  );
  t.same(operatorRequest('tenant list', new Map()), { method: 'GET', path: '/v1/operator/tenants' });
  t.equal(
    operatorRequest('app list', new Map([['tenant', 'a/b']])).path,
    '/v1/operator/tenants/a%2Fb/apps',
    'path parameters are encoded',
  );
  t.equal(
    operatorRequest('app list', new Map()).path,
    '/v1/operator/tenants//apps',
    'a missing one is empty (the router finds no route)',
  );
});

t.test("a bad request: the CLI's usage error, in the words of the API", async (t) => {
  const refusal = (
    name: OperatorCommandName,
    params: Record<string, string>,
    body: Record<string, unknown> | undefined,
  ) => {
    try {
      operatorCommand(name, params, body, NOW);
    } catch (e) {
      if (e instanceof UsageError) return usageDetails(name, e);
      throw e;
    }
    throw new Error('expected a usage error');
  };
  t.same(refusal('tenant create', {}, { name: ' ' }), { name: 'name must not be blank' });
  t.same(refusal('tenant create', {}, undefined), { name: 'name is required' }, 'no body');
  t.same(refusal('token create', {}, { tenant_id: T, app_id: A, subject: 'a@b.c', ttl_seconds: 5 }), {
    ttl_seconds: 'ttl_seconds must be whole seconds in 60..604800',
  });
  t.same(
    refusal('key create', { app: A }, { name: 'k', role: 'sdk' }),
    { body: 'give exactly one of environment and kinds' },
    'not about one field',
  );
  t.same(refusal('key create', { app: A }, { name: 'k', role: 'sdk', kinds: ['preview', 'nightly'] }), {
    kinds: 'kinds: unknown value "nightly"; expected development, preview, production',
  });
  t.same(
    refusal(
      'key create',
      { app: A },
      { name: 'k', role: 'sdk', kinds: ['preview'], expires_at: '2001-01-01T00:00:00Z' },
    ),
    { expires_at: 'expires_at must be in the future' },
  );
  t.same(
    refusal('app list', { tenant: 'nope' }, undefined),
    { tenant: 'tenant must be a UUID, got "nope"' },
    'a path parameter keeps its name',
  );
});
