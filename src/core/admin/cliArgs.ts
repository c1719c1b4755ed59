/**
 * The operator CLI's command line: `tracelake <noun> <verb> [--flag value | --flag=value] …`, parsed
 * and checked into one typed command without touching the store. Anything wrong here is a usage
 * error (exit 2), so a command that reaches the store has well-formed arguments. The operator API
 * builds its commands from request bodies with the same checks (core/admin/operatorApi.ts).
 */
import { parseFlags, UsageError, wantsHelp } from '../cliArgs.js';
import { isPermission, parseRole, permissionsFor, PERMISSIONS, type Permission, type Role } from '../permissions.js';
import { ENVIRONMENT_KINDS, ENVIRONMENT_NAME, isEnvironmentKind, type EnvironmentKind } from './rules.js';
import { MAX_SESSION_TTL_SEC } from './jwt.js';

export const DEFAULT_DATA_DIR = 'data/store';
/** Where the server listens by default (config.ts), so the CLI finds it with no setting. */
export const DEFAULT_HOST = '127.0.0.1';
export const DEFAULT_PORT = 4318;
export const DEFAULT_TOKEN_TTL_SEC = 3600;
const MIN_TOKEN_TTL_SEC = 60;

export type KeyScope = { environment: string } | { kinds: EnvironmentKind[] };

export type CliCommand =
  | { name: 'tenant create'; tenantName: string; plan: string | null; plansFile: string | null }
  | { name: 'tenant set-plan'; tenantId: string; plan: string; plansFile: string | null }
  | { name: 'tenant list' }
  | {
      name: 'app create';
      tenantId: string;
      appName: string;
      displayName: string | null;
      entryPoint: string | null;
      runtime: string;
    }
  | { name: 'app list'; tenantId: string }
  | { name: 'environment create'; appId: string; environmentName: string; kind: EnvironmentKind }
  | { name: 'environment list'; appId: string }
  | {
      name: 'key create';
      appId: string;
      keyName: string;
      role: Role;
      permissions: Permission[];
      scope: KeyScope;
      expiresAt: number | null;
    }
  | { name: 'key list'; appId: string }
  | { name: 'key revoke'; appId: string; keyId: string }
  | { name: 'token create'; tenantId: string; appId: string; subject: string; ttlSec: number }
  | { name: 'secret reset' };

/** A running server the CLI may send its command to: its address, and the operator token (null: none set). */
export interface ServerTarget {
  url: string;
  token: string | null;
}

export type CliRequest =
  | { kind: 'help'; text: string }
  | {
      kind: 'run';
      dataDir: string;
      command: CliCommand;
      /** The command's own flags as given (not the global ones): what the operator API is sent. */
      flags: ReadonlyMap<string, string>;
      /** Null when the server cannot be found (port 0: it picks a free port). */
      server: ServerTarget | null;
    };

/** Flags every command takes: where the store is, and where a server running on it listens. */
const GLOBAL_FLAGS = ['data-dir', 'host', 'port', 'operator-token'];

export const USAGE = `Usage: tracelake serve [settings]    run the server in this process (settings below)
       tracelake <command> [--data-dir DIR] [--host HOST] [--port PORT] [--operator-token TOKEN] [options]

A command goes to the running server's operator API when a server on the store in DIR listens at
HOST:PORT and TOKEN is its operator token; with no server up it works directly on the store.
  DIR    default: $TRACELAKE_DATA_DIR, else ${DEFAULT_DATA_DIR}
  HOST   default: $TRACELAKE_HOST, else ${DEFAULT_HOST} (0.0.0.0 and :: are reached on loopback)
  PORT   default: $TRACELAKE_PORT, else ${DEFAULT_PORT}
  TOKEN  default: $TRACELAKE_OPERATOR_TOKEN (prefer the variable: a flag shows in the process list)
Prints JSON on stdout. Exit codes: 0 done, 1 failed, 2 usage error.
Plans are those of the server; on the store directly, those of --plans-file (default:
$TRACELAKE_PLANS_FILE, else the installation's data/plans.json).

Commands:
  tenant create --name NAME [--plan PLAN]
  tenant set-plan --tenant TENANT_ID --plan PLAN
  tenant list
  app create --tenant TENANT_ID --name NAME [--display-name TEXT] [--entry-point PATH] [--runtime NAME]
  app list --tenant TENANT_ID
  environment create --app APP_ID --name NAME --kind development|preview|production
  environment list --app APP_ID
  key create --app APP_ID --name NAME
             (--role sdk|read-only|full-access|worker | --permissions ${PERMISSIONS.slice(0, 2).join(',')},…)
             (--environment NAME | --kinds development,preview,production)
             [--expires-at ISO-8601]
  key list --app APP_ID
  key revoke --app APP_ID --id KEY_ID
  token create --tenant TENANT_ID --app APP_ID --subject EMAIL [--ttl SECONDS]   (default ${DEFAULT_TOKEN_TTL_SEC}, at most ${MAX_SESSION_TTL_SEC})
  secret reset    recovery from a lost or damaged secret: a new secret, every API key revoked,
                  a new Full Access key printed for each app (session tokens stop verifying too);
                  on the store directly only: stop the server first
  agents sync [PATH ...]   send Claude Code and Codex transcripts to a running server over HTTP
                  (TRACELAKE_URL, TRACELAKE_API_KEY, TRACELAKE_APP_ID); see "tracelake agents sync --help"
  worker                   run the turns of worker runs for a running server (a Worker key);
                  see "tracelake worker --help"
  quickstart --key KEY [--url URL]   send a sample agent trace with scores to a running server
                  (also npm run demo -- --key KEY); see "tracelake quickstart --help"
`;

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
const APP_NAME = /^[a-z0-9][a-z0-9._-]{0,63}$/;
const LABEL = /^[^\x00-\x1f\x7f]{1,128}$/;
const EMAIL = /^[^\s@]{1,64}@[^\s@]{1,189}$/;
const PLAN = /^[A-Za-z0-9_.-]{1,64}$/;
const ISO_DATE_TIME = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d{1,9})?)?(Z|[+-]\d{2}:\d{2})$/;

/** Reads the flags of one command; every accessor checks its value and names the flag on failure. */
class Flags {
  constructor(private readonly values: ReadonlyMap<string, string>) {}

  optional(flag: string): string | undefined {
    return this.values.get(flag);
  }

  required(flag: string): string {
    const v = this.values.get(flag);
    if (v === undefined) throw new UsageError(`--${flag} is required`, flag);
    return v;
  }

  matching(flag: string, pattern: RegExp, what: string, value = this.required(flag)): string {
    if (!pattern.test(value)) throw new UsageError(`--${flag} must be ${what}, got "${value}"`, flag);
    return value;
  }

  id(flag: string): string {
    return this.matching(flag, UUID, 'a UUID').toLowerCase();
  }

  label(flag: string): string {
    const v = this.matching(flag, LABEL, '1 to 128 printable characters');
    if (v.trim() === '') throw new UsageError(`--${flag} must not be blank`, flag);
    return v;
  }

  /** Exactly one of two alternative flags. */
  oneOf(a: string, b: string): 'first' | 'second' {
    const has = [this.values.has(a), this.values.has(b)];
    if (has[0] === has[1]) throw new UsageError(`give exactly one of --${a} and --${b}`);
    return has[0] ? 'first' : 'second';
  }
}

/** A comma-separated list of distinct items, each checked by `ok`, in the order of `canonical`. */
function list<T extends string>(flag: string, text: string, canonical: readonly T[], ok: (s: string) => s is T): T[] {
  const items = text.split(',').map((s) => s.trim());
  for (const item of items) {
    if (!ok(item)) throw new UsageError(`--${flag}: unknown value "${item}"; expected ${canonical.join(', ')}`, flag);
  }
  if (new Set(items).size !== items.length) throw new UsageError(`--${flag} lists a value twice`, flag);
  return canonical.filter((c) => items.includes(c));
}

function keyRole(f: Flags): { role: Role; permissions: Permission[] } {
  if (f.oneOf('role', 'permissions') === 'second') {
    return {
      role: 'custom',
      permissions: permissionsFor('custom', list('permissions', f.required('permissions'), PERMISSIONS, isPermission)),
    };
  }
  const role = parseRole(f.required('role'));
  if (role === undefined || role === 'custom')
    throw new UsageError(
      '--role must be sdk, read-only, full-access or worker (use --permissions for a custom key)',
      'role',
    );
  return { role, permissions: permissionsFor(role) };
}

function keyScope(f: Flags): KeyScope {
  if (f.oneOf('environment', 'kinds') === 'first')
    return { environment: f.matching('environment', ENVIRONMENT_NAME, 'an environment name') };
  return { kinds: list('kinds', f.required('kinds'), ENVIRONMENT_KINDS, isEnvironmentKind) };
}

function expiry(f: Flags, nowMs: number): number | null {
  const text = f.optional('expires-at');
  if (text === undefined) return null;
  const at = Date.parse(f.matching('expires-at', ISO_DATE_TIME, 'an ISO 8601 date-time with a zone', text));
  if (Number.isNaN(at)) throw new UsageError(`--expires-at is not a valid date: "${text}"`, 'expires-at');
  if (at <= nowMs) throw new UsageError('--expires-at must be in the future', 'expires-at');
  return at;
}

function ttl(f: Flags): number {
  const text = f.optional('ttl');
  if (text === undefined) return DEFAULT_TOKEN_TTL_SEC;
  const n = /^\d{1,9}$/.test(text) ? Number(text) : NaN;
  if (!(n >= MIN_TOKEN_TTL_SEC && n <= MAX_SESSION_TTL_SEC))
    throw new UsageError(`--ttl must be whole seconds in ${MIN_TOKEN_TTL_SEC}..${MAX_SESSION_TTL_SEC}`, 'ttl');
  return n;
}

type Env = Readonly<Record<string, string | undefined>>;

interface Spec {
  flags: readonly string[];
  build(f: Flags, nowMs: number, env: Env): CliCommand;
}

/** The plans file named by --plans-file or TRACELAKE_PLANS_FILE; null = the installation's own. */
function plansFile(f: Flags, env: Env): string | null {
  return f.optional('plans-file') ?? (env.TRACELAKE_PLANS_FILE || null);
}

/** Every command: its flags and how they become a CliCommand. */
const COMMANDS = new Map<string, Spec>(
  Object.entries({
    'tenant create': {
      flags: ['name', 'plan', 'plans-file'],
      build: (f, _now, env) => ({
        name: 'tenant create',
        tenantName: f.label('name'),
        plan: f.optional('plan') === undefined ? null : f.matching('plan', PLAN, 'a plan name'),
        plansFile: plansFile(f, env),
      }),
    },
    'tenant set-plan': {
      flags: ['tenant', 'plan', 'plans-file'],
      build: (f, _now, env) => ({
        name: 'tenant set-plan',
        tenantId: f.id('tenant'),
        plan: f.matching('plan', PLAN, 'a plan name'),
        plansFile: plansFile(f, env),
      }),
    },
    'tenant list': { flags: [], build: () => ({ name: 'tenant list' }) },
    'app create': {
      flags: ['tenant', 'name', 'display-name', 'entry-point', 'runtime'],
      build: (f) => ({
        name: 'app create',
        tenantId: f.id('tenant'),
        appName: f.matching('name', APP_NAME, 'lowercase letters, digits, ".", "_" and "-" (at most 64)'),
        displayName: f.optional('display-name') === undefined ? null : f.label('display-name'),
        entryPoint:
          f.optional('entry-point') === undefined
            ? null
            : f.matching('entry-point', /^[^\x00-\x1f\x7f]{1,512}$/, 'a path of at most 512 characters'),
        runtime:
          f.optional('runtime') === undefined
            ? 'nodejs'
            : f.matching('runtime', /^[A-Za-z0-9._-]{1,32}$/, 'a runtime name'),
      }),
    },
    'app list': { flags: ['tenant'], build: (f) => ({ name: 'app list', tenantId: f.id('tenant') }) },
    'environment create': {
      flags: ['app', 'name', 'kind'],
      build: (f) => ({
        name: 'environment create',
        appId: f.id('app'),
        environmentName: f.matching(
          'name',
          ENVIRONMENT_NAME,
          'an environment name (lowercase letters, digits and "-", at most 63)',
        ),
        kind: f.matching(
          'kind',
          /^(development|preview|production)$/,
          'development, preview or production',
        ) as EnvironmentKind,
      }),
    },
    'environment list': { flags: ['app'], build: (f) => ({ name: 'environment list', appId: f.id('app') }) },
    'key create': {
      flags: ['app', 'name', 'role', 'permissions', 'environment', 'kinds', 'expires-at'],
      build: (f, nowMs) => ({
        name: 'key create',
        appId: f.id('app'),
        keyName: f.label('name'),
        ...keyRole(f),
        scope: keyScope(f),
        expiresAt: expiry(f, nowMs),
      }),
    },
    'key list': { flags: ['app'], build: (f) => ({ name: 'key list', appId: f.id('app') }) },
    'key revoke': {
      flags: ['app', 'id'],
      build: (f) => ({ name: 'key revoke', appId: f.id('app'), keyId: f.id('id') }),
    },
    'token create': {
      flags: ['tenant', 'app', 'subject', 'ttl'],
      build: (f) => ({
        name: 'token create',
        tenantId: f.id('tenant'),
        appId: f.id('app'),
        subject: f.matching('subject', EMAIL, 'an e-mail address'),
        ttlSec: ttl(f),
      }),
    },
    'secret reset': { flags: [], build: () => ({ name: 'secret reset' }) },
  } satisfies Record<string, Spec>),
);

/** Every flag of any command: the command, named by the words, says which of them it takes. */
const ALL_FLAGS = [...new Set([...GLOBAL_FLAGS, ...[...COMMANDS.values()].flatMap((spec) => spec.flags)])];

const NOUN_ALIASES = new Map(
  Object.entries({
    env: 'environment',
    tenants: 'tenant',
    apps: 'app',
    environments: 'environment',
    keys: 'key',
    tokens: 'token',
  }),
);

/**
 * Parses the arguments after the program name. `help` first, or `--help` / `-h` anywhere, asks for the usage
 * text. The data dir is `--data-dir`, else TRACELAKE_DATA_DIR, else `data/store`. Throws UsageError.
 */
export function parseCli(argv: readonly string[], env: Env, nowMs: number): CliRequest {
  if (argv[0] === 'help' || wantsHelp(argv)) return { kind: 'help', text: USAGE };
  const { values, positionals: words } = parseFlags(argv, { strings: ALL_FLAGS, positionals: true });
  if (words.length === 0) throw new UsageError('no command given');
  const name = [NOUN_ALIASES.get(words[0]!) ?? words[0], ...words.slice(1)].join(' ');
  const spec = COMMANDS.get(name);
  if (!spec) throw new UsageError(`unknown command "${words.join(' ')}"`);
  for (const flag of values.keys()) {
    if (!GLOBAL_FLAGS.includes(flag) && !spec.flags.includes(flag)) throw new UsageError(`${name} takes no --${flag}`);
  }
  const dataDir = values.get('data-dir') ?? (env.TRACELAKE_DATA_DIR || DEFAULT_DATA_DIR);
  if (dataDir === '') throw new UsageError('--data-dir must not be empty');
  const server = serverTarget(values, env);
  const own = new Map([...values].filter(([flag]) => !GLOBAL_FLAGS.includes(flag)));
  return { kind: 'run', dataDir, command: spec.build(new Flags(own), nowMs, env), flags: own, server };
}

/**
 * Checks the flags of the command `name` into a CliCommand: the operator API's way in (its request
 * bodies become flags), with the CLI's own checks. Throws UsageError.
 */
export function buildCommand(name: string, flags: ReadonlyMap<string, string>, nowMs: number): CliCommand {
  const spec = COMMANDS.get(name);
  if (!spec) throw new UsageError(`unknown command "${name}"`);
  for (const flag of flags.keys()) {
    if (!spec.flags.includes(flag)) throw new UsageError(`${name} takes no --${flag}`, flag);
  }
  return spec.build(new Flags(flags), nowMs, {});
}

/**
 * The server the CLI would find, from the same settings the server reads: TRACELAKE_HOST and
 * TRACELAKE_PORT (or --host, --port), and the operator token. A server bound to every interface
 * is reached on loopback; one on port 0 (a free port) cannot be found.
 */
function serverTarget(values: ReadonlyMap<string, string>, env: Env): ServerTarget | null {
  const host = values.get('host') ?? (env.TRACELAKE_HOST || DEFAULT_HOST);
  if (!/^[A-Za-z0-9.:[\]-]{1,253}$/.test(host))
    throw new UsageError(`--host (TRACELAKE_HOST) must be a host name or address, got "${host}"`, 'host');
  const portText = values.get('port') ?? (env.TRACELAKE_PORT || String(DEFAULT_PORT));
  const port = /^\d{1,5}$/.test(portText) ? Number(portText) : NaN;
  if (!(port <= 65535))
    throw new UsageError(`--port (TRACELAKE_PORT) must be a port number, got "${portText}"`, 'port');
  if (port === 0) return null;
  const token = values.get('operator-token') ?? (env.TRACELAKE_OPERATOR_TOKEN || null);
  return { url: `http://${reachable(host)}:${port}`, token };
}

/** The address a client connects to for a server listening on `host`. */
function reachable(host: string): string {
  if (host === '0.0.0.0') return '127.0.0.1';
  if (host === '::' || host === '[::]') return '[::1]';
  return host.includes(':') && !host.startsWith('[') ? `[${host}]` : host;
}
