/**
 * The documented starts — `npm start` and `tracelake serve` — run the server from the build without
 * rebuilding, and the signal a supervisor sends (SIGTERM to the process it started; systemd, Docker
 * and pm2 all do) reaches the server: it stops cleanly and lets go of the store's DuckDB lock, so
 * the next start on the same data dir succeeds. `--help` prints the settings and starts nothing.
 */
import { execFile } from 'node:child_process';
import { cpSync, readdirSync, rmSync, symlinkSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import t, { type Test } from 'tap';
import { startServer, tempDir, type TestServer } from '../helpers/server.js';
import { unhooked } from '../helpers/unhooked.js';

const ROOT = fileURLToPath(new URL('../../../', import.meta.url));
const CLI = join(ROOT, 'dist/src/cli.js');

/**
 * A copy of the installed package with the build but without sources or tsconfig: a start that
 * tried to rebuild would fail there. `build: false` leaves the build out too.
 */
function installedPackage(t: Test, build = true): string {
  const dir = tempDir('tracelake-pkg-');
  t.teardown(() => rmSync(dir, { recursive: true, force: true }));
  cpSync(join(ROOT, 'package.json'), join(dir, 'package.json'));
  symlinkSync(join(ROOT, 'node_modules'), join(dir, 'node_modules'));
  if (build) symlinkSync(join(ROOT, 'dist'), join(dir, 'dist'));
  return dir;
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

/** The server's own pid, from its `listening` line (the process started may be npm). */
function serverPid(t: Test, server: TestServer): number {
  const pid = server.logs.find((l) => l.msg === 'listening')?.pid;
  if (typeof pid !== 'number') throw new Error('no pid in the listening line');
  // Whatever the assertions say, no server outlives the test.
  t.teardown(() => {
    if (isAlive(pid)) process.kill(pid, 'SIGKILL');
  });
  return pid;
}

/** Stops `server` with `signal` sent to the process started, and checks the server stopped cleanly and let go of the store. */
async function expectCleanStop(t: Test, server: TestServer, signal: NodeJS.Signals): Promise<void> {
  const pid = serverPid(t, server);
  t.equal(await server.stop(signal), 0, `${signal}: exit code 0`);
  t.ok(
    server.logs.some((l) => l.msg === 'shutting down' && l.signal === signal),
    'the server got the signal',
  );
  t.ok(
    server.logs.some((l) => l.msg === 'stopped'),
    'and stopped cleanly',
  );
  t.notOk(isAlive(pid), 'the server process is gone');
  const next = await startServer({ dataDir: server.dataDir });
  t.pass('a second start on the same data dir got the DuckDB lock');
  t.equal(await next.stop('SIGTERM'), 0);
}

function run(command: string, args: string[], cwd = ROOT): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    execFile(...unhooked(command, args), { cwd }, (error, stdout, stderr) =>
      resolve({ code: error ? Number(error.code ?? 1) : 0, stdout, stderr }),
    );
  });
}

t.test('npm start serves the build as it is, and SIGTERM to npm stops the server', async (t) => {
  const pkg = installedPackage(t);
  const dataDir = tempDir();
  t.teardown(() => rmSync(dataDir, { recursive: true, force: true }));
  const server = await startServer({ command: ['npm', 'start', '--silent', '--'], cwd: pkg, dataDir });
  t.ok(server.bootstrap, 'it served (no sources there to rebuild from)');
  t.not(serverPid(t, server), server.child.pid, 'the process started is npm');
  await expectCleanStop(t, server, 'SIGTERM');
});

t.test('npm start without a build says so in one line', async (t) => {
  const pkg = installedPackage(t, false);
  const r = await run('npm', ['start', '--silent'], pkg);
  t.not(r.code, 0);
  t.match(r.stderr, /^tracelake: dist\/ is missing: run npm install \(it builds the server\) or npm run build$/m);
});

t.test('tracelake serve: SIGTERM and SIGINT stop it cleanly', async (t) => {
  for (const signal of ['SIGTERM', 'SIGINT'] as const) {
    const dataDir = tempDir();
    t.teardown(() => rmSync(dataDir, { recursive: true, force: true }));
    const server = await startServer({ command: [process.execPath, CLI, 'serve'], dataDir });
    t.equal(serverPid(t, server), server.child.pid, 'the server is the process started');
    await expectCleanStop(t, server, signal);
  }
});

t.test('tracelake --help and tracelake serve --help print the settings and start nothing', async (t) => {
  const dataDir = tempDir();
  t.teardown(() => rmSync(dataDir, { recursive: true, force: true }));
  const all = await run(process.execPath, [CLI, '--help']);
  t.equal(all.code, 0);
  t.match(all.stdout, /Usage: tracelake serve/);
  t.match(all.stdout, /token create/, 'the operator commands');
  t.match(all.stdout, /--operator-token +TRACELAKE_OPERATOR_TOKEN +\(unset\)/, 'and the settings table');
  const serve = await run(process.execPath, [CLI, 'serve', '--help', '--data-dir', join(dataDir, 'store')]);
  t.equal(serve.code, 0);
  t.match(serve.stdout, /--duckdb-memory +TRACELAKE_DUCKDB_MEMORY/);
  t.notMatch(serve.stdout, /token create/, 'serve --help: the settings only');
  t.same(readdirSync(dataDir), [], 'no store was created');
});
