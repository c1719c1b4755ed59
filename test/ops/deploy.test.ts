/**
 * The container image and the systemd unit, tested as far as can be without Docker or systemd
 * (docs/deploy.md, "What is tested"): the Dockerfile's shape, then its ENTRYPOINT and HEALTHCHECK
 * commands run here with the image's environment (`/app` being this checkout); the unit of
 * docs/deploy.md: its ExecStart run with its environment and working directory, stopped with its
 * KillSignal, its stop timeout above the server's, its hardening; and its syntax, where
 * `systemd-analyze` is installed.
 */
import { execFile, execFileSync } from 'node:child_process';
import { existsSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import t from 'tap';
import { OPTIONS } from '../../src/config.js';
import { SHUTDOWN_GRACE_MS } from '../../src/serve.js';
import { startServer, tempDir } from '../helpers/server.js';
import { unhooked } from '../helpers/unhooked.js';

const ROOT = fileURLToPath(new URL('../../../', import.meta.url));

// ---------------------------------------------------------------------------------------------------
// The Dockerfile.

interface Instruction {
  keyword: string;
  args: string;
}

/** The Dockerfile's instructions by stage: continuation lines joined, comments dropped. */
function dockerStages(text: string): Instruction[][] {
  const stages: Instruction[][] = [];
  const logical = text
    .replace(/\\\r?\n/g, ' ')
    .split(/\r?\n/)
    .map((l) => l.trim())
    .filter((l) => l !== '' && !l.startsWith('#'));
  for (const line of logical) {
    const [, keyword, args] = /^(\S+)\s*(.*)$/.exec(line)!;
    const instruction = { keyword: keyword!.toUpperCase(), args: args! };
    if (instruction.keyword === 'FROM') stages.push([]);
    stages.at(-1)?.push(instruction);
  }
  return stages;
}

/** `ENV A=1 B=2` (the form the Dockerfile uses) as a map. */
function envOf(stage: Instruction[]): Record<string, string> {
  const env: Record<string, string> = {};
  for (const { args } of stage.filter((i) => i.keyword === 'ENV')) {
    for (const [, k, v] of args.matchAll(/(\w+)=("[^"]*"|\S+)/g)) env[k!] = v!.replace(/^"|"$/g, '');
  }
  return env;
}

/** The exec form (a JSON array) of an instruction's arguments, after any `--option=value`s. */
function execForm(args: string): string[] {
  const json = args.slice(args.indexOf('['));
  return JSON.parse(json) as string[];
}

const only = (stage: Instruction[], keyword: string) => {
  const found = stage.filter((i) => i.keyword === keyword);
  if (found.length !== 1) throw new Error(`expected one ${keyword}, found ${found.length}`);
  return found[0]!.args;
};

/** Runs a command to its end; resolves with its exit code. */
function exitCode(command: string[], env: Record<string, string>): Promise<number> {
  return new Promise((resolve) =>
    execFile(...unhooked(command[0]!, command.slice(1)), { env: { ...process.env, ...env } }, (error) =>
      resolve(error ? Number(error.code ?? 1) : 0),
    ),
  );
}

t.test('the Dockerfile: a multi-stage, non-root image with its data dir as a volume', async (t) => {
  const text = readFileSync(join(ROOT, 'Dockerfile'), 'utf8');
  const stages = dockerStages(text);
  t.ok(stages.length >= 2, 'multi-stage');
  const build = stages[0]!;
  const runtime = stages.at(-1)!;
  const buildName = /\bAS\s+(\S+)/i.exec(build[0]!.args)?.[1];
  t.ok(buildName, 'the build stage is named');
  t.match(build.map((i) => i.args).join('\n'), /npm run prepare/, 'it builds as npm install does');
  t.match(build.map((i) => i.args).join('\n'), /npm prune --omit=dev/, 'and drops the dev dependencies');
  for (const copy of runtime.filter((i) => i.keyword === 'COPY')) {
    t.ok(
      copy.args.startsWith(`--from=${buildName} `) || /^data\/\S+\.json( data\/\S+\.json)* \.\/data\/$/.test(copy.args),
      `the runtime stage copies built files or data files only: COPY ${copy.args}`,
    );
    t.notMatch(copy.args, /(^|\s)(\/app\/)?src(\s|$)/, 'never the sources');
  }
  const user = only(runtime, 'USER');
  t.notMatch(user, /^(root|0)(:|$)/, `USER ${user} is not root`);
  const env = envOf(runtime);
  t.equal(env.TRACELAKE_HOST, '0.0.0.0', 'reachable from outside the container');
  t.same(execForm(only(runtime, 'VOLUME')), [env.TRACELAKE_DATA_DIR], 'the data dir is the volume');
  t.equal(only(runtime, 'EXPOSE'), `${env.TRACELAKE_PORT} ${env.TRACELAKE_GRPC_PORT}`, 'OTLP/HTTP and OTLP/gRPC');
  t.equal(only(runtime, 'WORKDIR'), '/app');
  t.match(
    only(runtime, 'RUN'),
    /ln -s \/app\/dist\/src\/cli\.js \/usr\/local\/bin\/tracelake/,
    'tracelake is the compiled CLI',
  );
  t.equal(only(runtime, 'STOPSIGNAL'), 'SIGTERM');
  t.same(execForm(only(runtime, 'ENTRYPOINT')), ['tracelake', 'serve']);
  t.equal(runtime.filter((i) => i.keyword === 'CMD').length, 0, 'no CMD: arguments to docker run are settings');
  t.ok(existsSync(join(ROOT, '.dockerignore')), '.dockerignore');
  t.match(
    readFileSync(join(ROOT, '.dockerignore'), 'utf8'),
    /^node_modules$[\s\S]*^dist$[\s\S]*^data\/store$/m,
    'no local build, dependencies or store in the build context',
  );
});

t.test("the image's ENTRYPOINT serves, its HEALTHCHECK sees it, its STOPSIGNAL stops it cleanly", async (t) => {
  const runtime = dockerStages(readFileSync(join(ROOT, 'Dockerfile'), 'utf8')).at(-1)!;
  const image = envOf(runtime);
  const here = (arg: string) =>
    arg === 'tracelake'
      ? [process.execPath, join(ROOT, 'dist/src/cli.js')]
      : arg === 'node'
        ? [process.execPath]
        : [arg.replace(/^\/app\//, ROOT)];
  const entrypoint = execForm(only(runtime, 'ENTRYPOINT')).flatMap(here);
  const check = /^(?:--\S+\s+)*CMD\s+(\[.*\])$/.exec(only(runtime, 'HEALTHCHECK'));
  t.ok(check, 'HEALTHCHECK [options] CMD [exec form]');
  const healthcheck = (JSON.parse(check![1]!) as string[]).flatMap((a, i) => (i === 0 ? here(a) : [a]));

  const dataDir = tempDir();
  t.teardown(() => rmSync(dataDir, { recursive: true, force: true }));
  // The image's environment; only the volume is a temporary directory and the port a free one.
  const server = await startServer({
    command: entrypoint,
    testSettings: false,
    dataDir,
    env: { ...image, TRACELAKE_DATA_DIR: dataDir, TRACELAKE_PORT: '0', TRACELAKE_WORKERS: '1' },
  });
  t.teardown(() => server.stop('SIGKILL'));
  t.match(
    server.logs.find((l) => l.msg === 'listening'),
    { host: '0.0.0.0', data_dir: dataDir },
  );
  t.ok(server.bootstrap, 'a first start on the volume bootstraps');
  const probe = { ...image, TRACELAKE_PORT: String(server.port) };
  t.equal(await exitCode(healthcheck, probe), 0, 'healthy');
  t.equal(await server.stop(only(runtime, 'STOPSIGNAL') as NodeJS.Signals), 0, 'a clean stop');
  t.ok(server.logs.some((l) => l.msg === 'stopped'));
  t.equal(await exitCode(healthcheck, probe), 1, 'unhealthy once stopped');
});

// ---------------------------------------------------------------------------------------------------
// The systemd unit of docs/deploy.md.

function unitText(): string {
  const doc = readFileSync(join(ROOT, 'docs/deploy.md'), 'utf8');
  const block = [...doc.matchAll(/```ini\n([\s\S]*?)```/g)].map((m) => m[1]!).find((b) => b.includes('[Service]'));
  if (!block) throw new Error('no unit in docs/deploy.md');
  return block;
}

/** Every `Key=value` of the unit, in order (keys may repeat). */
function unitEntries(text: string): [string, string][] {
  return text.split('\n').flatMap((line) => {
    const m = /^([A-Za-z]+)=(.*)$/.exec(line.trim());
    return m ? [[m[1]!, m[2]!] as [string, string]] : [];
  });
}

/** Paths of the installation as they are here: the checkout, and the node running the tests. */
const installed = (value: string) =>
  value.replaceAll('/usr/bin/node', process.execPath).replaceAll('/opt/tracelake', ROOT.replace(/\/$/, ''));

t.test("the systemd unit: a stop timeout above the server's, no root, hardening", async (t) => {
  const unit = new Map(unitEntries(unitText()));
  const timeoutMs = Number(OPTIONS.find((o) => o.key === 'shutdownTimeoutMs')!.fallback);
  t.ok(
    Number(unit.get('TimeoutStopSec')) * 1000 > timeoutMs + SHUTDOWN_GRACE_MS,
    `TimeoutStopSec=${unit.get('TimeoutStopSec')} > ${(timeoutMs + SHUTDOWN_GRACE_MS) / 1000} s`,
  );
  t.equal(unit.get('KillSignal'), 'SIGTERM');
  t.equal(
    unit.get('Restart'),
    'on-failure',
    'restarted after a failure (exit 75 when the database failed), not after a clean stop',
  );
  t.ok(unit.get('User') && unit.get('User') !== 'root', 'not root');
  for (const [key, value] of Object.entries({
    NoNewPrivileges: 'yes',
    ProtectSystem: 'strict',
    ProtectHome: 'yes',
    PrivateTmp: 'yes',
    PrivateDevices: 'yes',
    CapabilityBoundingSet: '',
    RestrictNamespaces: 'yes',
  })) {
    t.equal(unit.get(key), value, `${key}=${value}`);
  }
  t.match(unit.get('ExecStart'), /^\/\S+ .* serve$/, 'an absolute path, running `serve`');
});

t.test('the systemd unit: its ExecStart serves and its KillSignal stops it cleanly', async (t) => {
  const entries = unitEntries(unitText());
  const unit = new Map(entries);
  const env = Object.fromEntries(
    entries.filter(([k]) => k === 'Environment').map(([, v]) => v.split(/=(.*)/s).slice(0, 2) as [string, string]),
  );
  t.ok(env.TRACELAKE_DATA_DIR, 'the unit names its data directory');
  const dataDir = tempDir();
  t.teardown(() => rmSync(dataDir, { recursive: true, force: true }));
  const server = await startServer({
    command: installed(unit.get('ExecStart')!).split(/\s+/),
    cwd: installed(unit.get('WorkingDirectory')!),
    testSettings: false,
    dataDir,
    // The unit's environment; only its state directory is a temporary one and its port a free one.
    env: { ...env, TRACELAKE_DATA_DIR: dataDir, TRACELAKE_PORT: '0', TRACELAKE_WORKERS: '1' },
  });
  t.teardown(() => server.stop('SIGKILL'));
  const health = await fetch(`${server.url}/health`);
  t.equal(health.status, 200, '/health');
  t.equal(await server.stop(unit.get('KillSignal') as NodeJS.Signals), 0, 'a clean stop (exit 0: no restart)');
  t.ok(server.logs.some((l) => l.msg === 'stopped'));
});

function systemdAnalyze(): string | null {
  try {
    return execFileSync('sh', ['-c', 'command -v systemd-analyze'], { encoding: 'utf8' }).trim() || null;
  } catch {
    return null;
  }
}
const analyze = systemdAnalyze();

t.test(
  'the systemd unit passes systemd-analyze verify',
  { skip: analyze ? false : 'systemd-analyze is not installed here' },
  async (t) => {
    const dir = tempDir();
    t.teardown(() => rmSync(dir, { recursive: true, force: true }));
    const file = join(dir, 'tracelake.service');
    writeFileSync(file, installed(unitText()));
    const result = await new Promise<{ code: number; stderr: string }>((resolve) =>
      execFile(analyze!, ['verify', file], (error, _out, stderr) =>
        resolve({ code: error ? Number(error.code ?? 1) : 0, stderr }),
      ),
    );
    t.equal(result.code, 0, result.stderr);
    t.equal(result.stderr.trim(), '', 'no unknown key, no warning');
  },
);
