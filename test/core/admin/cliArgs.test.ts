import t, { type Test } from 'tap';
import { buildCommand, DEFAULT_DATA_DIR, parseCli, USAGE, type CliRequest } from '../../../src/core/admin/cliArgs.js';
import { UsageError } from '../../../src/core/cliArgs.js';
import { PERMISSIONS } from '../../../src/core/permissions.js';

const NOW = Date.parse('2026-06-01T00:00:00Z');
const T = '0B7C2F4E-9D1A-4C55-8E3F-2A6B1C9D0E11';
const A = '5f0e3d2c-1b4a-4958-8776-a5b4c3d2e1f0';
const K = '9a8b7c6d-5e4f-4a3b-9c2d-1e0f9a8b7c6d';

function parse(args: string[], env: Record<string, string | undefined> = {}): CliRequest {
  return parseCli(args, env, NOW);
}

function command(args: string[]) {
  const r = parse(args);
  if (r.kind !== 'run') throw new Error('expected a command');
  return r.command;
}

function usage(t: Test, args: string[], message: RegExp): void {
  t.throws(() => parse(args), { constructor: UsageError, message }, `${JSON.stringify(args)}`);
}

t.test('help', async (t) => {
  for (const args of [['help'], ['--help'], ['key', 'create', '-h'], ['tenant', '--help', '--name']]) {
    t.same(parse(args), { kind: 'help', text: USAGE }, JSON.stringify(args));
  }
  t.match(USAGE, /tenant create --name NAME \[--plan PLAN\]/);
  t.match(USAGE, /tenant set-plan --tenant TENANT_ID --plan PLAN/);
  t.match(USAGE, /--kinds development,preview,production/);
});

t.test('the data dir: flag, then TRACELAKE_DATA_DIR, then data/store', async (t) => {
  const server = { url: 'http://127.0.0.1:4318', token: null };
  t.same(parse(['tenant', 'list']), {
    kind: 'run',
    dataDir: DEFAULT_DATA_DIR,
    command: { name: 'tenant list' },
    flags: new Map(),
    server,
  });
  t.same(
    parse(['secret', 'reset']),
    { kind: 'run', dataDir: DEFAULT_DATA_DIR, command: { name: 'secret reset' }, flags: new Map(), server },
    'recovery from a lost secret',
  );
  t.equal(DEFAULT_DATA_DIR, 'data/store');
  t.match(parse(['tenant', 'list'], { TRACELAKE_DATA_DIR: '/srv/tl' }), { dataDir: '/srv/tl' });
  t.match(
    parse(['tenant', 'list'], { TRACELAKE_DATA_DIR: '' }),
    { dataDir: DEFAULT_DATA_DIR },
    'an empty variable is unset',
  );
  t.match(parse(['tenant', 'list', '--data-dir', '/a'], { TRACELAKE_DATA_DIR: '/srv/tl' }), { dataDir: '/a' });
  t.match(parse(['--data-dir=/b', 'tenant', 'list']), { dataDir: '/b' }, '--flag=value, anywhere');
  usage(t, ['tenant', 'list', '--data-dir='], /--data-dir must not be empty/);
});

t.test('flag syntax', async (t) => {
  usage(t, [], /no command given/);
  usage(t, ['tenant'], /unknown command "tenant"/);
  usage(t, ['tenant', 'remove'], /unknown command "tenant remove"/);
  usage(t, ['constructor'], /unknown command "constructor"/);
  usage(t, ['toString', 'create'], /unknown command/);
  usage(t, ['tenant', 'create', '--name'], /--name needs a value/);
  usage(t, ['tenant', 'create', '--name', '--data-dir', 'x'], /--name needs a value/);
  usage(t, ['tenant', 'create', '--name', 'a', '--name', 'b'], /--name is given twice/);
  usage(t, ['tenant', 'list', '--name', 'a'], /tenant list takes no --name/);
  usage(t, ['tenant', 'list', '--color', 'red'], /unknown option --color/);
  t.match(
    command(['tenant', 'create', '--name=--odd']),
    { tenantName: '--odd' },
    'a value may start with -- in the = form',
  );
  t.match(command(['tenants', 'list']), { name: 'tenant list' }, 'plural nouns');
});

t.test('tenant and app commands', async (t) => {
  t.same(command(['tenant', 'create', '--name', 'Acme Inc.']), {
    name: 'tenant create',
    tenantName: 'Acme Inc.',
    plan: null,
    plansFile: null,
  });
  t.same(command(['tenant', 'create', '--name', 'a', '--plan', 'free', '--plans-file', '/etc/plans.json']), {
    name: 'tenant create',
    tenantName: 'a',
    plan: 'free',
    plansFile: '/etc/plans.json',
  });
  t.match(
    parse(['tenant', 'create', '--name', 'a'], { TRACELAKE_PLANS_FILE: '/srv/plans.json' }),
    { command: { plansFile: '/srv/plans.json' } },
    'TRACELAKE_PLANS_FILE',
  );
  t.match(parse(['tenant', 'create', '--name', 'a'], { TRACELAKE_PLANS_FILE: '' }), { command: { plansFile: null } });
  usage(t, ['tenant', 'create', '--name', 'a', '--plan', 'no plan'], /--plan must be a plan name/);
  t.same(command(['tenant', 'set-plan', '--tenant', T, '--plan', 'team']), {
    name: 'tenant set-plan',
    tenantId: T.toLowerCase(),
    plan: 'team',
    plansFile: null,
  });
  usage(t, ['tenant', 'set-plan', '--tenant', T], /--plan is required/);
  usage(t, ['tenant', 'create'], /--name is required/);
  usage(t, ['tenant', 'create', '--name', '   '], /--name must not be blank/);
  usage(t, ['tenant', 'create', '--name', 'a\nb'], /--name must be 1 to 128 printable characters/);
  usage(t, ['tenant', 'create', '--name', 'x'.repeat(129)], /--name must be/);

  t.same(command(['app', 'create', '--tenant', T, '--name', 'web']), {
    name: 'app create',
    tenantId: T.toLowerCase(),
    appName: 'web',
    displayName: null,
    entryPoint: null,
    runtime: 'nodejs',
  });
  t.same(
    command([
      'app',
      'create',
      '--tenant',
      T,
      '--name',
      'web.v2',
      '--display-name',
      'Web',
      '--entry-point',
      'src/main.ts',
      '--runtime',
      'python3.12',
    ]),
    {
      name: 'app create',
      tenantId: T.toLowerCase(),
      appName: 'web.v2',
      displayName: 'Web',
      entryPoint: 'src/main.ts',
      runtime: 'python3.12',
    },
  );
  usage(t, ['app', 'create', '--tenant', 'acme', '--name', 'web'], /--tenant must be a UUID, got "acme"/);
  usage(t, ['app', 'create', '--tenant', T, '--name', 'Web'], /--name must be lowercase/);
  usage(t, ['app', 'create', '--tenant', T, '--name', 'web', '--entry-point', 'a\tb'], /--entry-point must be a path/);
  usage(
    t,
    ['app', 'create', '--tenant', T, '--name', 'web', '--runtime', 'no spaces'],
    /--runtime must be a runtime name/,
  );
  t.same(command(['app', 'list', '--tenant', T]), { name: 'app list', tenantId: T.toLowerCase() });
});

t.test('environment commands', async (t) => {
  t.same(command(['environment', 'create', '--app', A, '--name', 'pr-7', '--kind', 'preview']), {
    name: 'environment create',
    appId: A,
    environmentName: 'pr-7',
    kind: 'preview',
  });
  usage(t, ['env', 'create', '--app', A, '--name', 'PR', '--kind', 'preview'], /--name must be an environment name/);
  usage(
    t,
    ['env', 'create', '--app', A, '--name', 'qa', '--kind', 'test'],
    /--kind must be development, preview or production/,
  );
  t.same(command(['env', 'list', '--app', A]), { name: 'environment list', appId: A }, '"env" stands for environment');
  t.same(command(['environments', 'list', '--app', A]), { name: 'environment list', appId: A });
});

t.test('key create', async (t) => {
  t.same(command(['key', 'create', '--app', A, '--name', 'ci', '--role', 'sdk', '--environment', 'production']), {
    name: 'key create',
    appId: A,
    keyName: 'ci',
    role: 'sdk',
    permissions: ['trace.write', 'score.write', 'template.read'],
    scope: { environment: 'production' },
    expiresAt: null,
  });
  t.match(command(['key', 'create', '--app', A, '--name', 'r', '--role', 'read-only', '--environment', 'production']), {
    role: 'read_only',
    permissions: PERMISSIONS.filter((p) => p.endsWith('.read')),
  });
  t.match(
    command(['key', 'create', '--app', A, '--name', 'f', '--role', 'Full-Access', '--kinds', 'production,development']),
    {
      role: 'full_access',
      permissions: [...PERMISSIONS],
      scope: { kinds: ['development', 'production'] },
    },
    'kinds in canonical order',
  );
  t.match(
    command([
      'key',
      'create',
      '--app',
      A,
      '--name',
      'c',
      '--permissions',
      'score.read, trace.write',
      '--kinds',
      'preview',
    ]),
    {
      role: 'custom',
      permissions: ['trace.write', 'score.read'],
      scope: { kinds: ['preview'] },
    },
  );
  t.match(
    command([
      'key',
      'create',
      '--app',
      A,
      '--name',
      'e',
      '--role',
      'sdk',
      '--environment',
      'qa',
      '--expires-at',
      '2026-07-01T12:00:00+02:00',
    ]),
    {
      expiresAt: Date.parse('2026-07-01T10:00:00Z'),
    },
  );
  t.match(
    command([
      'key',
      'create',
      '--app',
      A,
      '--name',
      'e',
      '--role',
      'sdk',
      '--environment',
      'qa',
      '--expires-at',
      '2026-07-01T12:00Z',
    ]),
    {
      expiresAt: Date.parse('2026-07-01T12:00:00Z'),
    },
  );

  const base = ['key', 'create', '--app', A, '--name', 'k'];
  usage(t, [...base, '--environment', 'qa'], /exactly one of --role and --permissions/);
  usage(
    t,
    [...base, '--role', 'sdk', '--permissions', 'trace.read', '--environment', 'qa'],
    /exactly one of --role and --permissions/,
  );
  usage(t, [...base, '--role', 'sdk'], /exactly one of --environment and --kinds/);
  usage(
    t,
    [...base, '--role', 'sdk', '--environment', 'qa', '--kinds', 'preview'],
    /exactly one of --environment and --kinds/,
  );
  usage(t, [...base, '--role', 'root', '--environment', 'qa'], /--role must be sdk, read-only, full-access or worker/);
  usage(t, [...base, '--role', 'custom', '--environment', 'qa'], /use --permissions/);
  usage(
    t,
    [...base, '--permissions', 'trace.read,trace.delete', '--environment', 'qa'],
    /--permissions: unknown value "trace.delete"/,
  );
  usage(
    t,
    [...base, '--permissions', 'trace.read,trace.read', '--environment', 'qa'],
    /--permissions lists a value twice/,
  );
  usage(t, [...base, '--permissions', '', '--environment', 'qa'], /--permissions: unknown value ""/);
  usage(
    t,
    [...base, '--role', 'sdk', '--kinds', 'preview,staging'],
    /--kinds: unknown value "staging"; expected development, preview, production/,
  );
  usage(t, [...base, '--role', 'sdk', '--environment', 'Prod'], /--environment must be an environment name/);
  usage(
    t,
    [...base, '--role', 'sdk', '--environment', 'qa', '--expires-at', 'tomorrow'],
    /--expires-at must be an ISO 8601 date-time/,
  );
  usage(t, [...base, '--role', 'sdk', '--environment', 'qa', '--expires-at', '2026-07-01T12:00:00'], /with a zone/);
  usage(
    t,
    [...base, '--role', 'sdk', '--environment', 'qa', '--expires-at', '2026-13-45T00:00:00Z'],
    /not a valid date/,
  );
  usage(
    t,
    [...base, '--role', 'sdk', '--environment', 'qa', '--expires-at', '2026-05-31T23:59:59Z'],
    /must be in the future/,
  );
  usage(t, ['key', 'create', '--app', A, '--role', 'sdk', '--environment', 'qa'], /--name is required/);
});

t.test('key list and revoke', async (t) => {
  t.same(command(['key', 'list', '--app', A]), { name: 'key list', appId: A });
  t.same(command(['key', 'revoke', '--app', A, '--id', K.toUpperCase()]), { name: 'key revoke', appId: A, keyId: K });
  usage(t, ['key', 'revoke', '--app', A], /--id is required/);
});

t.test('token create', async (t) => {
  t.same(command(['token', 'create', '--tenant', T, '--app', A, '--subject', 'ops@example.com']), {
    name: 'token create',
    tenantId: T.toLowerCase(),
    appId: A,
    subject: 'ops@example.com',
    ttlSec: 3600,
  });
  t.match(command(['token', 'create', '--tenant', T, '--app', A, '--subject', 'a@b', '--ttl', '60']), { ttlSec: 60 });
  t.match(command(['token', 'create', '--tenant', T, '--app', A, '--subject', 'a@b', '--ttl', '604800']), {
    ttlSec: 604800,
  });
  const base = ['token', 'create', '--tenant', T, '--app', A];
  usage(t, [...base, '--subject', 'ops'], /--subject must be an e-mail address/);
  usage(t, [...base, '--subject', 'a@b', '--ttl', '59'], /--ttl must be whole seconds in 60\.\.604800/);
  usage(t, [...base, '--subject', 'a@b', '--ttl', '604801'], /--ttl must be/);
  usage(t, [...base, '--subject', 'a@b', '--ttl', '1h'], /--ttl must be/);
  usage(t, [...base, '--subject', 'a@b', '--ttl', '9999999999'], /--ttl must be/);
});

t.test('the server: the address and token the server reads, its flags kept apart from the command', async (t) => {
  const run = (args: string[], env: Record<string, string | undefined> = {}) => {
    const r = parse(args, env);
    if (r.kind !== 'run') throw new Error('expected a command');
    return r;
  };
  t.same(run(['tenant', 'list']).server, { url: 'http://127.0.0.1:4318', token: null }, 'the server defaults');
  t.same(
    run(['tenant', 'list'], {
      TRACELAKE_HOST: 'tl.internal',
      TRACELAKE_PORT: '8080',
      TRACELAKE_OPERATOR_TOKEN: 'secret-token',
    }).server,
    { url: 'http://tl.internal:8080', token: 'secret-token' },
    'the variables',
  );
  t.same(
    run(['tenant', 'list', '--host', '10.0.0.5', '--port=9000', '--operator-token', 'from-flag'], {
      TRACELAKE_HOST: 'x',
      TRACELAKE_PORT: '1',
      TRACELAKE_OPERATOR_TOKEN: 'y',
    }).server,
    { url: 'http://10.0.0.5:9000', token: 'from-flag' },
    'flags win',
  );
  t.same(
    run(['tenant', 'list'], { TRACELAKE_HOST: '', TRACELAKE_PORT: '', TRACELAKE_OPERATOR_TOKEN: '' }).server,
    { url: 'http://127.0.0.1:4318', token: null },
    'empty variables are unset',
  );
  t.equal(
    run(['tenant', 'list', '--host', '0.0.0.0']).server?.url,
    'http://127.0.0.1:4318',
    'every interface: loopback',
  );
  t.equal(run(['tenant', 'list', '--host', '::']).server?.url, 'http://[::1]:4318');
  t.equal(run(['tenant', 'list', '--host', '[::]']).server?.url, 'http://[::1]:4318');
  t.equal(
    run(['tenant', 'list', '--host', 'fd00::1']).server?.url,
    'http://[fd00::1]:4318',
    'an IPv6 address is bracketed',
  );
  t.equal(run(['tenant', 'list', '--host', '[fd00::1]']).server?.url, 'http://[fd00::1]:4318');
  t.equal(run(['tenant', 'list', '--port', '0']).server, null, 'a server on a free port cannot be found');
  usage(t, ['tenant', 'list', '--port', '70000'], /--port \(TRACELAKE_PORT\) must be a port number, got "70000"/);
  usage(t, ['tenant', 'list', '--port', 'http'], /must be a port number/);
  usage(t, ['tenant', 'list', '--host', 'a b'], /--host \(TRACELAKE_HOST\) must be a host name or address/);
  t.throws(() => parse(['tenant', 'list'], { TRACELAKE_PORT: '-1' }), {
    message: /must be a port number, got "-1"/,
    flag: 'port',
  });
  const key = run([
    'key',
    'create',
    '--app',
    A,
    '--name',
    'k',
    '--role',
    'sdk',
    '--kinds',
    'preview',
    '--data-dir',
    '/d',
    '--port',
    '1',
    '--host',
    'h',
    '--operator-token',
    'x',
  ]);
  t.same(
    [...key.flags],
    [
      ['app', A],
      ['name', 'k'],
      ['role', 'sdk'],
      ['kinds', 'preview'],
    ],
    'the command flags, without the global ones',
  );
});

t.test("buildCommand: the operator API's way in, with the same checks", async (t) => {
  t.same(
    buildCommand('tenant create', new Map([['name', 'acme']]), NOW),
    { name: 'tenant create', tenantName: 'acme', plan: null, plansFile: null },
    'no plans file: the server has its own',
  );
  t.throws(() => buildCommand('tenant explode', new Map(), NOW), {
    constructor: UsageError,
    message: 'unknown command "tenant explode"',
  });
  t.throws(() => buildCommand('tenant list', new Map([['data-dir', '/x']]), NOW), {
    message: 'tenant list takes no --data-dir',
    flag: 'data-dir',
  });
  t.throws(() => buildCommand('tenant set-plan', new Map([['plan', 'free']]), NOW), {
    message: '--tenant is required',
    flag: 'tenant',
  });
});

t.test('usage errors name the flag they are about', async (t) => {
  const flagOf = (args: string[]) => {
    try {
      parse(args);
    } catch (e) {
      return (e as UsageError).flag;
    }
    return 'no error';
  };
  t.equal(flagOf(['tenant', 'create', '--name', ' ']), 'name', 'blank');
  t.equal(flagOf(['tenant', 'create', '--name', 'a', '--plan', 'a b']), 'plan', 'a pattern');
  t.equal(flagOf(['key', 'create', '--app', A, '--name', 'k', '--role', 'god', '--kinds', 'preview']), 'role');
  t.equal(
    flagOf(['key', 'create', '--app', A, '--name', 'k', '--permissions', 'x', '--kinds', 'preview']),
    'permissions',
    'a list item',
  );
  t.equal(
    flagOf(['key', 'create', '--app', A, '--name', 'k', '--role', 'sdk', '--kinds', 'preview,preview']),
    'kinds',
    'a list twice',
  );
  t.equal(
    flagOf([
      'key',
      'create',
      '--app',
      A,
      '--name',
      'k',
      '--role',
      'sdk',
      '--kinds',
      'preview',
      '--expires-at',
      '2020-01-01T00:00:00Z',
    ]),
    'expires-at',
  );
  t.equal(
    flagOf([
      'key',
      'create',
      '--app',
      A,
      '--name',
      'k',
      '--role',
      'sdk',
      '--kinds',
      'preview',
      '--expires-at',
      '2099-13-01T00:00:00Z',
    ]),
    'expires-at',
    'not a date',
  );
  t.equal(flagOf(['token', 'create', '--tenant', T, '--app', A, '--subject', 'a@b.c', '--ttl', '1']), 'ttl');
  t.equal(flagOf(['key', 'create', '--app', A, '--name', 'k', '--role', 'sdk']), undefined, 'two flags at once: none');
  t.equal(flagOf(['tenant']), undefined, 'no flag at all');
});
