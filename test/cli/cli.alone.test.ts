/**
 * Integration: the operator CLI as a real process on a temporary data dir — tenants, apps,
 * environments and keys (pinned and kind-scoped) made offline work against a real server started on
 * the same dir; tenants cannot see each other; a revocation made offline holds after a restart; the
 * CLI refuses a store that a running server holds; session tokens verify, and tampered ones do not.
 */
import { execFile } from 'node:child_process';
import { rmSync } from 'node:fs';
import { join } from 'node:path';
import t, { type Test } from 'tap';
import { readSecret } from '../../src/auth/secret.js';
import { deriveSessionKey, verifySessionToken } from '../../src/core/admin/jwt.js';
import { call, startServer, tempDir, type Credentials } from '../helpers/server.js';
import { unhooked } from '../helpers/unhooked.js';

const CLI = new URL('../../src/cli.js', import.meta.url).pathname;

interface Run {
  code: number;
  stdout: string;
  stderr: string;
  json: any;
}

function cli(args: string[], env: Record<string, string> = {}): Promise<Run> {
  return new Promise((resolve) => {
    execFile(
      ...unhooked(process.execPath, [CLI, ...args]),
      { env: { ...process.env, ...env } },
      (error, stdout, stderr) => {
        let json: unknown;
        try {
          json = JSON.parse(stdout);
        } catch {
          json = undefined;
        }
        resolve({ code: error ? Number(error.code) : 0, stdout, stderr, json });
      },
    );
  });
}

/** Runs a command on `dataDir` that must succeed, and returns its JSON. */
async function ok(t: Test, dataDir: string, ...args: string[]): Promise<any> {
  const r = await cli([...args, '--data-dir', dataDir]);
  t.equal(r.code, 0, `${args.slice(0, 2).join(' ')}: ${r.stderr}`);
  return r.json;
}

t.test('usage errors exit 2, help exits 0, a missing store exits 1', async (t) => {
  const help = await cli(['--help']);
  t.equal(help.code, 0);
  t.match(help.stdout, /Usage: tracelake/);
  t.match(help.stdout, /token create/);
  for (const args of [
    [],
    ['tenant'],
    ['tenant', 'delete'],
    ['tenant', 'create'],
    ['tenant', 'create', '--name', 'x', '--color', 'red'],
    ['key', 'create', '--app', 'nope', '--name', 'k'],
  ]) {
    const r = await cli(args);
    t.equal(r.code, 2, `${JSON.stringify(args)} is a usage error`);
    t.match(r.stderr, /^tracelake: .+\nRun "tracelake --help" for usage\.\n$/);
    t.equal(r.stdout, '');
  }
  const dir = join(tempDir(), 'missing');
  const missing = await cli(['tenant', 'list', '--data-dir', dir]);
  t.equal(missing.code, 1);
  t.match(missing.stderr, /No Tracelake store in/);
  const fromEnv = await cli(['tenant', 'list'], { TRACELAKE_DATA_DIR: dir });
  t.match(fromEnv.stderr, new RegExp(`No Tracelake store in ${dir}`), 'TRACELAKE_DATA_DIR is the default');
});

t.test('tenants, apps and keys made offline work against the server', async (t) => {
  const dataDir = tempDir();
  t.teardown(() => rmSync(dataDir, { recursive: true, force: true }));

  const acme = await ok(t, dataDir, 'tenant', 'create', '--name', 'acme');
  t.match(acme, {
    tenant_id: /^[0-9a-f-]{36}$/,
    name: 'acme',
    plan: 'self_hosted',
    app_id: /^[0-9a-f-]{36}$/,
    environment_id: /^[0-9a-f-]{36}$/,
  });
  const globex = await ok(t, dataDir, 'tenant', 'create', '--name', 'globex', '--plan', 'free');
  t.equal(globex.plan, 'free', 'a plan of data/plans.json');
  const badPlan = await cli(['tenant', 'create', '--name', 'initech', '--plan', 'platinum', '--data-dir', dataDir]);
  t.equal(badPlan.code, 2, 'a plan the plans file lacks is a usage error');
  t.match(badPlan.stderr, /unknown plan "platinum"; the plans file has self_hosted, free, team/);
  const dupTenant = await cli(['tenant', 'create', '--name', 'acme', '--data-dir', dataDir]);
  t.equal(dupTenant.code, 1, 'tenant names are unique');
  t.match(dupTenant.stderr, /already exists/);
  t.same(
    (await ok(t, dataDir, 'tenant', 'list')).map((x: { name: string; plan: string; apps: number }) => [
      x.name,
      x.plan,
      x.apps,
    ]),
    [
      ['acme', 'self_hosted', 1],
      ['globex', 'free', 1],
    ],
  );

  const web = await ok(
    t,
    dataDir,
    'app',
    'create',
    '--tenant',
    acme.tenant_id,
    '--name',
    'web',
    '--display-name',
    'Web shop',
  );
  t.match(web, {
    tenant_id: acme.tenant_id,
    name: 'web',
    display_name: 'Web shop',
    runtime: 'nodejs',
    created_by: 'cli',
  });
  t.equal(
    (await cli(['app', 'create', '--tenant', acme.tenant_id, '--name', 'web', '--data-dir', dataDir])).code,
    1,
    'duplicate app name',
  );
  t.equal(
    (await cli(['app', 'create', '--tenant', web.id, '--name', 'x', '--data-dir', dataDir])).code,
    1,
    'unknown tenant',
  );
  t.same(
    (await ok(t, dataDir, 'app', 'list', '--tenant', acme.tenant_id)).map((a: { name: string }) => a.name),
    ['default', 'web'],
  );

  const staging = await ok(
    t,
    dataDir,
    'environment',
    'create',
    '--app',
    web.id,
    '--name',
    'staging',
    '--kind',
    'preview',
  );
  t.match(staging, { app_id: web.id, name: 'staging', kind: 'preview', is_default: false });
  t.same(
    (await ok(t, dataDir, 'env', 'list', '--app', web.id)).map((e: { name: string }) => e.name),
    ['production', 'staging'],
  );

  const admin = await ok(
    t,
    dataDir,
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
  );
  t.match(admin, {
    app_id: acme.app_id,
    tenant_id: acme.tenant_id,
    environment_id: acme.environment_id,
    environment_name: 'production',
    allowed_kinds: null,
    role: 'full_access',
  });
  t.match(admin.plaintext_key, /^sk_service_[0-9A-Za-z]{43}$/);
  const doomed = await ok(
    t,
    dataDir,
    'key',
    'create',
    '--app',
    acme.app_id,
    '--name',
    'doomed',
    '--role',
    'full-access',
    '--environment',
    'production',
  );
  const pinned = await ok(
    t,
    dataDir,
    'key',
    'create',
    '--app',
    web.id,
    '--name',
    'ci',
    '--permissions',
    'trace.write,score.write',
    '--environment',
    'staging',
    '--expires-at',
    '2099-01-01T00:00:00Z',
  );
  t.match(pinned, {
    environment_id: staging.id,
    role: 'custom',
    permissions: ['trace.write', 'score.write'],
    expires_at: '2099-01-01T00:00:00.000Z',
  });
  const scoped = await ok(
    t,
    dataDir,
    'key',
    'create',
    '--app',
    acme.app_id,
    '--name',
    'previews',
    '--role',
    'full-access',
    '--kinds',
    'preview,development',
  );
  t.match(
    scoped,
    { environment_id: null, environment_name: null, allowed_kinds: ['development', 'preview'] },
    'kind-scoped: no pin, the kinds in canonical order',
  );
  const noEnv = await cli([
    'key',
    'create',
    '--app',
    web.id,
    '--name',
    'x',
    '--role',
    'sdk',
    '--environment',
    'qa',
    '--data-dir',
    dataDir,
  ]);
  t.equal(noEnv.code, 1);
  t.match(noEnv.stderr, /No environment "qa"/);
  const other = await ok(
    t,
    dataDir,
    'key',
    'create',
    '--app',
    globex.app_id,
    '--name',
    'admin',
    '--role',
    'full-access',
    '--environment',
    'production',
  );
  const listed = await ok(t, dataDir, 'key', 'list', '--app', acme.app_id);
  t.same(listed.map((k: { name: string }) => k.name).sort(), ['admin', 'doomed', 'previews']);
  t.notOk(JSON.stringify(listed).includes(admin.plaintext_key), 'listings never show a plaintext key');

  const acmeAdmin: Credentials = { key: admin.plaintext_key, appId: acme.app_id };
  const globexAdmin: Credentials = { key: other.plaintext_key, appId: globex.app_id };

  let server = await startServer({ dataDir });
  t.teardown(() => server.stop('SIGKILL'));
  t.equal(server.bootstrap, undefined, 'a store with tenants does not bootstrap');

  const locked = await cli(['key', 'list', '--app', acme.app_id, '--data-dir', dataDir]);
  t.equal(locked.code, 1, 'the CLI refuses a store the server holds');
  t.match(locked.stderr, /stop the server first/);

  const keys = await call(server, 'GET', '/v1/api-keys', { auth: acmeAdmin });
  t.equal(keys.status, 200, 'a CLI-made pinned Full Access key works');
  t.same(keys.body.data.map((k: { name: string }) => k.name).sort(), ['admin', 'doomed', 'previews']);
  t.notOk(
    keys.body.data.find((k: { name: string }) => k.name === 'previews').environment_id,
    'the kind-scoped key has no pin',
  );
  const scopedAuth = { key: scoped.plaintext_key, appId: acme.app_id };
  t.equal(
    (await call(server, 'GET', '/v1/api-keys', { auth: scopedAuth, headers: { 'x-service-pull-request': '7' } }))
      .status,
    200,
    'a kind-scoped key works in an environment of its kinds',
  );
  t.equal(
    (
      await call(server, 'GET', '/v1/api-keys', {
        auth: scopedAuth,
        headers: { 'x-service-environment': 'production' },
      })
    ).status,
    403,
    'and not in another kind',
  );
  t.equal(
    (await call(server, 'GET', '/v1/api-keys', { auth: scopedAuth })).status,
    403,
    'it must name its environment',
  );
  const ingest = await call(server, 'POST', '/v1/traces', {
    rawBody: '{}',
    headers: { authorization: pinned.plaintext_key, 'x-service-app-id': web.id, 'content-type': 'application/json' },
  });
  t.equal(ingest.status, 200, 'a CLI-made custom key pinned to a CLI-made environment ingests');
  t.equal((await call(server, 'GET', `/v1/environments?app_id=${web.id}`, { auth: acmeAdmin })).body.data.length, 2);

  // The other tenant sees nothing of acme: every id of acme answers 404 (or 401 for acme's app header).
  for (const [method, path, body] of [
    ['GET', `/v1/apps/${acme.app_id}`],
    ['GET', `/v1/apps/${web.id}`],
    ['PATCH', `/v1/apps/${web.id}`, { runtime: 'go' }],
    ['DELETE', `/v1/apps/${web.id}`],
    ['GET', `/v1/environments?app_id=${web.id}`],
    ['POST', '/v1/environments', { name: 'intruder', kind: 'preview', app_id: web.id }],
    ['PATCH', `/v1/environments/${staging.id}`, { kind: 'development', app_id: web.id }],
    ['DELETE', `/v1/environments/${staging.id}`, { confirmation_name: 'staging', app_id: web.id }],
  ] as const) {
    const r = await call(server, method, path, { auth: globexAdmin, body });
    t.equal(r.status, 404, `globex: ${method} ${path}`);
    t.equal(r.body.error.code, 'not_found');
  }
  t.equal(
    (await call(server, 'GET', '/v1/api-keys', { auth: { key: other.plaintext_key, appId: acme.app_id } })).status,
    401,
    'a key names only its own app',
  );
  t.same(
    (await call(server, 'GET', `/v1/apps/${web.id}`, { auth: acmeAdmin })).body.data.runtime,
    'nodejs',
    "acme's app is untouched",
  );
  t.equal(
    (await call(server, 'GET', '/v1/apps', { auth: globexAdmin })).body.data.length,
    1,
    'globex lists only its own app',
  );
  const quota = await call(server, 'POST', '/v1/apps', { auth: globexAdmin, body: { name: 'second' } });
  t.equal(quota.status, 402, 'the free plan set by the CLI allows one app');
  t.match(quota.body.error, { code: 'entitlement_required', entitlement: 'max_apps', limit: 1, current: 1 });

  // Revoked offline: the key fails after the restart, the others do not.
  t.equal(
    (await call(server, 'GET', '/v1/api-keys', { auth: { key: doomed.plaintext_key, appId: acme.app_id } })).status,
    200,
  );
  t.equal(await server.stop('SIGTERM'), 0);
  const revoked = await ok(t, dataDir, 'key', 'revoke', '--app', acme.app_id, '--id', doomed.id);
  t.match(revoked, { id: doomed.id, revoked_at: /Z$/ });
  const again = await cli(['key', 'revoke', '--app', web.id, '--id', doomed.id, '--data-dir', dataDir]);
  t.equal(again.code, 1, 'a key of another app is not found');
  const upgraded = await ok(t, dataDir, 'tenant', 'set-plan', '--tenant', globex.tenant_id, '--plan', 'team');
  t.match(upgraded, { id: globex.tenant_id, plan: 'team' });
  t.equal(
    (await cli(['tenant', 'set-plan', '--tenant', web.id, '--plan', 'team', '--data-dir', dataDir])).code,
    1,
    'an unknown tenant',
  );
  server = await startServer({ dataDir });
  t.equal(
    (await call(server, 'POST', '/v1/apps', { auth: globexAdmin, body: { name: 'second' } })).status,
    201,
    'the team plan allows more',
  );
  const after = await call(server, 'GET', '/v1/api-keys', { auth: { key: doomed.plaintext_key, appId: acme.app_id } });
  t.equal(after.status, 401, 'the revoked key answers 401 after the restart');
  t.match(after.body.error.message, /revoked/);
  t.equal((await call(server, 'GET', '/v1/api-keys', { auth: acmeAdmin })).status, 200, 'other keys still work');
  t.equal(await server.stop('SIGTERM'), 0);
});

t.test('session tokens', async (t) => {
  const dataDir = tempDir();
  t.teardown(() => rmSync(dataDir, { recursive: true, force: true }));
  const acme = await ok(t, dataDir, 'tenant', 'create', '--name', 'acme');
  const globex = await ok(t, dataDir, 'tenant', 'create', '--name', 'globex');

  const before = Math.floor(Date.now() / 1000);
  const issued = await ok(
    t,
    dataDir,
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
  t.match(issued, {
    token_type: 'Bearer',
    subject: 'ops@acme.test',
    tenant_id: acme.tenant_id,
    app_id: acme.app_id,
    role: 'admin',
  });
  t.equal(Date.parse(issued.expires_at) - Date.parse(issued.issued_at), 600_000);

  const key = deriveSessionKey(readSecret(join(dataDir, 'secret'))!);
  const now = Math.floor(Date.now() / 1000);
  const verified = verifySessionToken(issued.token, key, now);
  t.ok(verified.ok, "the store's derived key verifies the token");
  if (verified.ok) {
    t.match(verified.claims, {
      iss: 'tracelake',
      sub: 'ops@acme.test',
      tenant_id: acme.tenant_id,
      app_id: acme.app_id,
      role: 'admin',
    });
    t.ok(verified.claims.iat >= before && verified.claims.exp === verified.claims.iat + 600);
  }
  t.same(verifySessionToken(issued.token, key, now + 601), { ok: false, reason: 'expired' });

  const [h, p, s] = issued.token.split('.') as [string, string, string];
  const forged = Buffer.from(
    JSON.stringify({ ...JSON.parse(Buffer.from(p, 'base64url').toString()), tenant_id: globex.tenant_id }),
  ).toString('base64url');
  t.same(
    verifySessionToken(`${h}.${forged}.${s}`, key, now),
    { ok: false, reason: 'bad signature' },
    'a changed claim fails',
  );
  const flipped = s.slice(0, -2) + (s.at(-2) === 'A' ? 'B' : 'A') + s.at(-1);
  t.same(
    verifySessionToken(`${h}.${p}.${flipped}`, key, now),
    { ok: false, reason: 'bad signature' },
    'a changed signature fails',
  );
  t.notOk(
    verifySessionToken(issued.token, deriveSessionKey(Buffer.alloc(32, 1)), now).ok,
    "another store's secret fails",
  );

  const cross = await cli([
    'token',
    'create',
    '--tenant',
    globex.tenant_id,
    '--app',
    acme.app_id,
    '--subject',
    'x@y.z',
    '--data-dir',
    dataDir,
  ]);
  t.equal(cross.code, 1, 'the app must belong to the tenant');
  t.match(cross.stderr, /not an app of tenant/);
  t.equal(
    (
      await cli([
        'token',
        'create',
        '--tenant',
        acme.tenant_id,
        '--app',
        acme.app_id,
        '--subject',
        'nobody',
        '--data-dir',
        dataDir,
      ])
    ).code,
    2,
  );
  t.equal(
    (
      await cli([
        'token',
        'create',
        '--tenant',
        acme.tenant_id,
        '--app',
        acme.app_id,
        '--subject',
        'a@b.c',
        '--ttl',
        '999999999',
        '--data-dir',
        dataDir,
      ])
    ).code,
    2,
  );
});
