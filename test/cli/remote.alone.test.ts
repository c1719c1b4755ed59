/**
 * Integration: the operator CLI with a server running. Given the server's address and operator
 * token (the same settings the server reads), a command goes through the operator API and works at
 * once, with no downtime; without a token, with a wrong one, or with the operator API off, the CLI
 * says in one line what to set. It falls back to the store's file when no server is up there, and a
 * server of another store is never sent a command meant for this one.
 */
import { execFile } from 'node:child_process';
import { rmSync } from 'node:fs';
import t, { type Test } from 'tap';
import { hex } from '../helpers/otlp.js';
import { call, startServer, tempDir, type TestServer } from '../helpers/server.js';
import { unhooked } from '../helpers/unhooked.js';

const CLI = new URL('../../src/cli.js', import.meta.url).pathname;
const TOKEN = `op-${hex(24)}`;

interface Run {
  code: number;
  stdout: string;
  stderr: string;
  json: any;
}

function cli(args: string[], env: Record<string, string>): Promise<Run> {
  // Only what the test sets: a TRACELAKE_* variable of the caller's environment must not steer the CLI.
  const base = Object.fromEntries(Object.entries(process.env).filter(([k]) => !k.startsWith('TRACELAKE_')));
  return new Promise((resolve) => {
    execFile(...unhooked(process.execPath, [CLI, ...args]), { env: { ...base, ...env } }, (error, stdout, stderr) => {
      let json: unknown;
      try {
        json = JSON.parse(stdout);
      } catch {
        json = undefined;
      }
      resolve({ code: error ? Number(error.code) : 0, stdout, stderr, json });
    });
  });
}

/** The settings that find `server` on `dataDir`, as an operator would export them. */
function settings(server: { port: number }, dataDir: string, token: string | null = TOKEN): Record<string, string> {
  return {
    TRACELAKE_DATA_DIR: dataDir,
    TRACELAKE_HOST: '127.0.0.1',
    TRACELAKE_PORT: String(server.port),
    ...(token ? { TRACELAKE_OPERATOR_TOKEN: token } : {}),
  };
}

async function ok(t: Test, env: Record<string, string>, ...args: string[]): Promise<any> {
  const r = await cli(args, env);
  t.equal(r.code, 0, `${args.slice(0, 2).join(' ')}: ${r.stderr}`);
  return r.json;
}

async function operatorServer(
  t: Test,
  dataDir = tempDir(),
  env: Record<string, string> = { TRACELAKE_OPERATOR_TOKEN: TOKEN },
): Promise<TestServer> {
  t.teardown(() => rmSync(dataDir, { recursive: true, force: true }));
  const server = await startServer({ dataDir, env });
  t.teardown(() => server.stop('SIGKILL'));
  return server;
}

t.test('with the server up, commands go through its operator API and apply at once', async (t) => {
  const server = await operatorServer(t);
  const env = settings(server, server.dataDir);

  const acme = await ok(t, env, 'tenant', 'create', '--name', 'acme', '--plan', 'free');
  t.match(acme, { name: 'acme', plan: 'free', app_id: /^[0-9a-f-]{36}$/ }, 'the answer the file path gives');
  const web = await ok(t, env, 'app', 'create', '--tenant', acme.tenant_id, '--name', 'web');
  t.equal(web.created_by, 'operator', 'made by the server, not on the file');
  await ok(t, env, 'environment', 'create', '--app', web.id, '--name', 'staging', '--kind', 'preview');
  const scoped = await ok(
    t,
    env,
    'key',
    'create',
    '--app',
    web.id,
    '--name',
    'previews',
    '--role',
    'full-access',
    '--kinds',
    'preview,development',
  );
  t.same(scoped.allowed_kinds, ['development', 'preview']);
  t.equal(
    (
      await call(server, 'GET', '/v1/api-keys', {
        auth: { key: scoped.plaintext_key, appId: web.id },
        headers: { 'x-service-environment': 'staging' },
      })
    ).status,
    200,
    'the new kind-scoped key works on the running server',
  );
  const pinned = await ok(
    t,
    env,
    'key',
    'create',
    '--app',
    acme.app_id,
    '--name',
    'admin',
    '--role',
    'full-access',
    '--environment',
    'production',
    '--expires-at',
    '2099-01-01T00:00:00Z',
  );
  t.equal(pinned.expires_at, '2099-01-01T00:00:00.000Z');
  const admin = { key: pinned.plaintext_key, appId: acme.app_id };
  t.equal(
    (await call(server, 'POST', '/v1/apps', { auth: admin, body: { name: 'second' } })).status,
    402,
    'the free plan',
  );
  t.match(await ok(t, env, 'tenant', 'set-plan', '--tenant', acme.tenant_id, '--plan', 'team'), { plan: 'team' });
  t.equal(
    (await call(server, 'POST', '/v1/apps', { auth: admin, body: { name: 'second' } })).status,
    201,
    'the new plan applies at once',
  );
  const token = await ok(
    t,
    env,
    'token',
    'create',
    '--tenant',
    acme.tenant_id,
    '--app',
    acme.app_id,
    '--subject',
    'ops@acme.test',
    '--ttl',
    '600',
  );
  t.equal(
    (await call(server, 'GET', '/v1/api-keys', { auth: { key: token.token, appId: acme.app_id } })).status,
    200,
    'the session token verifies',
  );
  t.same(
    (await ok(t, env, 'key', 'list', '--app', acme.app_id)).map((k: { name: string }) => k.name),
    ['admin'],
  );
  t.match(await ok(t, env, 'key', 'revoke', '--app', acme.app_id, '--id', pinned.id), {
    id: pinned.id,
    revoked_at: /Z$/,
  });
  t.equal((await call(server, 'GET', '/v1/api-keys', { auth: admin })).status, 401, 'the revocation applies at once');
  t.same((await ok(t, env, 'tenant', 'list')).map((x: { name: string }) => x.name).slice(1), ['acme']);
  t.same(
    (await ok(t, { ...env, TRACELAKE_HOST: '0.0.0.0' }, 'app', 'list', '--tenant', acme.tenant_id))
      .map((a: { name: string }) => a.name)
      .sort(),
    ['default', 'second', 'web'],
    'a server bound to every interface is reached on loopback',
  );
  t.same(
    (
      await ok(
        t,
        { TRACELAKE_DATA_DIR: server.dataDir },
        'env',
        'list',
        '--app',
        web.id,
        '--port',
        String(server.port),
        '--operator-token',
        TOKEN,
      )
    ).length,
    2,
    'flags work as the variables do',
  );

  const badPlan = await cli(['tenant', 'create', '--name', 'initech', '--plan', 'platinum'], env);
  t.equal(badPlan.code, 2, "a plan the server's plans file lacks is a usage error");
  t.match(
    badPlan.stderr,
    /^tracelake: unknown plan "platinum"; the plans file has self_hosted, free, team\nRun "tracelake --help" for usage\.\n$/,
  );
  const unknown = await cli(['app', 'list', '--tenant', web.id], env);
  t.equal(unknown.code, 1);
  t.equal(unknown.stderr, `tracelake: No tenant ${web.id}\n`);
  const dup = await cli(['tenant', 'create', '--name', 'acme'], env);
  t.equal(dup.code, 1);
  t.match(dup.stderr, /already exists/);
  const reset = await cli(['secret', 'reset'], env);
  t.equal(reset.code, 1, 'secret reset is not sent to a server');
  t.match(
    reset.stderr,
    /^tracelake: The store in .+ is in use by a running Tracelake server: secret reset needs the server stopped; stop the server first, then run this command again\.\n$/,
  );
});

t.test('a server holds the store and cannot be used: one line saying what to set', async (t) => {
  const server = await operatorServer(t);
  const cases: [string, Record<string, string>, RegExp][] = [
    [
      'no operator token',
      settings(server, server.dataDir, null),
      /: set TRACELAKE_OPERATOR_TOKEN to its operator token to run this command through the server, or stop the server first\.$/,
    ],
    [
      'a wrong token',
      settings(server, server.dataDir, `op-${hex(24)}`),
      /the server at http:\/\/127\.0\.0\.1:\d+ refused the operator token: set TRACELAKE_OPERATOR_TOKEN to that server's token, or stop the server first\.$/,
    ],
    [
      'port 0',
      { ...settings(server, server.dataDir), TRACELAKE_PORT: '0' },
      /cannot be found on port 0: set TRACELAKE_PORT/,
    ],
  ];
  const off = await operatorServer(t, tempDir(), {});
  cases.push([
    'the operator API off',
    settings(off, off.dataDir),
    /has its operator API off: restart it with TRACELAKE_OPERATOR_TOKEN set, or stop the server first\.$/,
  ]);
  const other = await operatorServer(t);
  cases.push([
    'the server of another store',
    settings(other, server.dataDir),
    /serves another store \(.+\): set TRACELAKE_HOST and TRACELAKE_PORT to this store's server, or stop the server first\.$/,
  ]);
  for (const [what, env, advice] of cases) {
    const r = await cli(['tenant', 'list'], env);
    t.equal(r.code, 1, what);
    t.equal(r.stdout, '');
    t.match(
      r.stderr,
      /^tracelake: The store in .+ is in use by a running Tracelake server[^\n]*\n$/,
      `${what}: one line`,
    );
    t.match(r.stderr.trimEnd(), advice, what);
  }
});

t.test('with no server up the CLI works on the file; a server of another store is left alone', async (t) => {
  const other = await operatorServer(t);
  const otherTenants = await ok(t, settings(other, other.dataDir), 'tenant', 'list');
  const dataDir = tempDir();
  t.teardown(() => rmSync(dataDir, { recursive: true, force: true }));

  // The address names the other store's server: the command must not go there.
  const acme = await ok(t, settings(other, dataDir), 'tenant', 'create', '--name', 'acme');
  const app = await ok(t, settings(other, dataDir), 'app', 'create', '--tenant', acme.tenant_id, '--name', 'web');
  t.equal(app.created_by, 'cli', 'made on the file');
  t.same(await ok(t, settings(other, other.dataDir), 'tenant', 'list'), otherTenants, 'the other store is unchanged');

  // Nothing listens at the address (a server that has stopped): the file, at once.
  const stopped = await operatorServer(t);
  await stopped.stop('SIGTERM');
  const listed = await ok(t, settings(stopped, dataDir), 'app', 'list', '--tenant', acme.tenant_id);
  t.same(
    listed.map((a: { name: string }) => a.name),
    ['default', 'web'],
  );
});
