/**
 * Starts the real Tracelake server as a child process on 127.0.0.1, port 0, with a temporary data
 * directory, and talks HTTP to it. The server is stopped when the test ends (and killed if the test
 * process dies first).
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { cpSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { unhooked } from './unhooked.js';

const MAIN = new URL('../../src/main.js', import.meta.url).pathname;
const alive = new Set<ChildProcess>();
/** Every directory `tempDir` made: removed when the test process exits (a CI run left ~40). */
const made = new Set<string>();
process.on('exit', () => {
  for (const child of alive) child.kill('SIGKILL');
  for (const dir of made) {
    try {
      rmSync(dir, { recursive: true, force: true, maxRetries: 3 });
    } catch {
      // A directory a killed server was still writing: the system's temporary directory keeps it.
    }
  }
});

export interface LogLine {
  msg: string;
  [key: string]: unknown;
}

export interface ServerOptions {
  dataDir?: string;
  args?: string[];
  env?: Record<string, string>;
  /** The server's entry point (benchmarks start an older build this way); default: this build's. */
  main?: string;
  /** A command the server runs under, e.g. `['nsenter', '-t', pid, '-m']` (fault tests). */
  wrap?: string[];
  /** The Node executable to run the server with (another Node version); default: the suite's. */
  node?: string;
  /**
   * The whole command line the settings flags follow, instead of node and the entry point: how an
   * operator starts it, e.g. `['npm', 'start', '--silent', '--']` (test/ops).
   */
  command?: string[];
  /** The working directory of the process (default: this one's). */
  cwd?: string;
  /**
   * false: none of the test settings (host, port, data dir, workers, DuckDB) on the command line,
   * so the environment decides, as in a deployment (test/ops); `dataDir` is then only recorded.
   */
  testSettings?: boolean;
  /** How long the start may take before it counts as failed (benchmarks over large stores). */
  startTimeoutMs?: number;
}

export interface TestServer {
  url: string;
  port: number;
  /** The OTLP/gRPC port, or null when it is off (the default of test servers). */
  grpcPort: number | null;
  dataDir: string;
  logs: LogLine[];
  child: ChildProcess;
  /** The bootstrap log of this start, when it bootstrapped. */
  bootstrap: LogLine | undefined;
  /** Sends a signal and resolves with the exit code. */
  stop(signal?: NodeJS.Signals): Promise<number | null>;
  /** The first log line `match` accepts, logged already or as it arrives; rejects after `ms`. */
  waitForLog(match: (l: LogLine) => boolean, ms?: number): Promise<LogLine>;
  /** What the server wrote on stderr (plain text, not the log) so far; all of it once `stop` resolved. */
  stderr(): string;
  /** Resolves with stderr once it matches `pattern`, now or as it arrives; rejects after `ms`. */
  waitForStderr(pattern: RegExp, ms?: number): Promise<string>;
}

export function tempDir(prefix = 'tracelake-test-'): string {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  made.add(dir);
  return dir;
}

/**
 * A copy of a stopped server's data directory, for a test that damages or reuses a store another
 * test made: a copy costs milliseconds, a server's start and stop seconds.
 */
export function copyOfStore(dataDir: string): string {
  const copy = tempDir();
  cpSync(dataDir, copy, { recursive: true });
  return copy;
}

function spawnServer(dataDir: string, options: ServerOptions): ChildProcess {
  const [wrapper, ...wrapArgs] = options.wrap ?? [];
  const node = options.node ?? process.execPath;
  const [program, ...programArgs] = options.command ?? [
    ...(wrapper ? [wrapper, ...wrapArgs] : []),
    node,
    options.main ?? MAIN,
  ];
  const settings = [
    ...(options.testSettings === false
      ? []
      : [
          '--host',
          '127.0.0.1',
          '--port',
          '0',
          '--data-dir',
          dataDir,
          '--workers',
          '1',
          '--duckdb-threads',
          '2',
          '--duckdb-memory',
          '1GiB',
        ]),
    ...(options.args ?? []),
  ];
  const [command, args] = unhooked(program!, [...programArgs, ...settings]);
  const child = spawn(command, args, {
    // No OTLP/gRPC port unless a test asks for one (`--grpc-port 0`): servers in parallel would
    // fight over 4317. An environment variable, so it reaches servers without the test settings too.
    env: { ...process.env, TRACELAKE_LOG_LEVEL: 'info', TRACELAKE_GRPC_PORT: 'off', ...options.env },
    stdio: ['ignore', 'pipe', 'pipe'],
    ...(options.cwd ? { cwd: options.cwd } : {}),
  });
  alive.add(child);
  return child;
}

/**
 * Runs a server that is expected to die on its own (a crash point), listening or not, and resolves
 * with its exit code (null when a signal ended it).
 */
export function runUntilExit(options: ServerOptions & { dataDir: string }): Promise<number | null> {
  const child = spawnServer(options.dataDir, options);
  child.stdout!.resume();
  child.stderr!.resume();
  return new Promise((resolve) =>
    child.on('close', (code) => {
      alive.delete(child);
      resolve(code);
    }),
  );
}

/**
 * Like runUntilExit, and with what the server wrote on stdout and stderr. With `signalAt`, the
 * server is sent that signal when it logs that message (a stop in the middle of its start).
 */
export function runToExit(
  options: ServerOptions & { dataDir: string; signalAt?: { msg: string; signal: NodeJS.Signals } },
): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const child = spawnServer(options.dataDir, options);
  let stdout = '';
  let stderr = '';
  child.stdout!.on('data', (d: Buffer) => (stdout += d.toString()));
  const { signalAt } = options;
  if (signalAt)
    createInterface({ input: child.stdout! }).on(
      'line',
      (line) => line.includes(`"msg":${JSON.stringify(signalAt.msg)}`) && child.kill(signalAt.signal),
    );
  child.stderr!.on('data', (d: Buffer) => (stderr += d.toString()));
  return new Promise((resolve) =>
    child.on('close', (code) => {
      alive.delete(child);
      resolve({ code, stdout, stderr });
    }),
  );
}

export async function startServer(options: ServerOptions = {}): Promise<TestServer> {
  const dataDir = options.dataDir ?? tempDir();
  const child = spawnServer(dataDir, options);
  const logs: LogLine[] = [];
  const logWaiters = new Set<(l: LogLine) => void>();
  let stderr = '';
  child.stderr!.on('data', (d: Buffer) => (stderr += d.toString()));
  // 'close', not 'exit': the child's last log lines may still be in its stdout pipe at 'exit'.
  const exited = new Promise<number | null>((resolve) =>
    child.on('close', (code) => {
      alive.delete(child);
      resolve(code);
    }),
  );
  const listening = await new Promise<LogLine>((resolve, reject) => {
    // A start is seconds of CPU: on a machine loaded several times over its cores, many times that in wall time.
    const limit = options.startTimeoutMs ?? 60_000;
    const timer = setTimeout(() => reject(new Error(`server did not start in ${limit / 1000} s: ${stderr}`)), limit);
    createInterface({ input: child.stdout! }).on('line', (line) => {
      let entry: LogLine;
      try {
        entry = JSON.parse(line) as LogLine;
      } catch {
        return;
      }
      logs.push(entry);
      for (const wake of logWaiters) wake(entry);
      if (entry.msg === 'listening') {
        clearTimeout(timer);
        resolve(entry);
      }
    });
    void exited.then((code) => {
      clearTimeout(timer);
      reject(new Error(`server exited with ${code} before listening: ${stderr}`));
    });
  });
  const port = listening.port as number;
  return {
    url: `http://127.0.0.1:${port}`,
    port,
    grpcPort: (listening.grpc_port as number | null | undefined) ?? null,
    dataDir,
    logs,
    child,
    bootstrap: logs.find((l) => l.msg === 'bootstrap'),
    async stop(signal: NodeJS.Signals = 'SIGTERM') {
      if (child.exitCode !== null) return child.exitCode;
      child.kill(signal);
      return exited;
    },
    stderr: () => stderr,
    waitForStderr(pattern, ms = 10_000) {
      if (pattern.test(stderr)) return Promise.resolve(stderr);
      return new Promise((resolve, reject) => {
        const timer = setTimeout(() => {
          child.stderr!.off('data', look);
          reject(new Error(`stderr did not match ${pattern} in ${ms} ms: ${stderr}`));
        }, ms);
        // Registered after the collecting listener, so `stderr` already holds this chunk.
        const look = () => {
          if (!pattern.test(stderr)) return;
          clearTimeout(timer);
          child.stderr!.off('data', look);
          resolve(stderr);
        };
        child.stderr!.on('data', look);
      });
    },
    waitForLog(match, ms = 10_000) {
      const seen = logs.find(match);
      if (seen) return Promise.resolve(seen);
      return new Promise((resolve, reject) => {
        const timer = setTimeout(() => {
          logWaiters.delete(wake);
          reject(new Error(`no matching log line in ${ms} ms`));
        }, ms);
        const wake = (l: LogLine) => {
          if (!match(l)) return;
          clearTimeout(timer);
          logWaiters.delete(wake);
          resolve(l);
        };
        logWaiters.add(wake);
      });
    },
  };
}

/** Starts a server for the duration of a tap test and removes its data dir afterwards. */
export async function serverFor(
  t: { teardown(fn: () => unknown): void },
  options: ServerOptions = {},
): Promise<TestServer> {
  const server = await startServer(options);
  t.teardown(async () => {
    // A server-side error is the first thing to read when a test fails: show it.
    for (const line of server.logs.filter((l) => typeof l.level === 'number' && l.level >= 50)) {
      process.stderr.write(`server error: ${JSON.stringify(line)}\n`);
    }
    await server.stop('SIGKILL');
    if (!options.dataDir) rmSync(server.dataDir, { recursive: true, force: true });
  });
  return server;
}

export interface Credentials {
  key: string;
  appId: string;
}

/** The bootstrap key and app of a freshly started server. */
export function rootCredentials(server: TestServer): Credentials {
  const b = server.bootstrap;
  if (!b || typeof b.api_key !== 'string') throw new Error('server did not bootstrap with a generated key');
  return { key: b.api_key, appId: b.app_id as string };
}

export interface Answer {
  status: number;
  headers: Headers;
  body: any;
  text: string;
}

/**
 * One HTTP call; `auth` adds `Authorization: Bearer <key>` and the app id header. An OTLP export
 * (`POST /v1/traces`) asks to be answered once its spans are readable (`X-Tracelake-Wait: visible`),
 * because the tests read right after writing; pass the header yourself to change that.
 */
export async function call(
  server: TestServer,
  method: string,
  path: string,
  options: { auth?: Credentials; body?: unknown; headers?: Record<string, string>; rawBody?: string | Uint8Array } = {},
): Promise<Answer> {
  const headers: Record<string, string> = { ...options.headers };
  if (method === 'POST' && path === '/v1/traces') headers['x-tracelake-wait'] ??= 'visible';
  if (options.auth) {
    headers['authorization'] ??= `Bearer ${options.auth.key}`;
    headers['x-service-app-id'] ??= options.auth.appId;
  }
  let body: string | Uint8Array | undefined = options.rawBody;
  if (options.body !== undefined) {
    body = JSON.stringify(options.body);
    headers['content-type'] ??= 'application/json';
  }
  const res = await fetch(server.url + path, { method, headers, body });
  const text = await res.text();
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    parsed = undefined;
  }
  return { status: res.status, headers: res.headers, body: parsed, text };
}

/** Creates a key through the API and returns its credentials and creation answer. */
export async function createKey(
  server: TestServer,
  admin: Credentials,
  spec: Record<string, unknown>,
): Promise<Credentials & { id: string; answer: Answer }> {
  const answer = await call(server, 'POST', '/v1/api-keys', { auth: admin, body: spec });
  if (answer.status !== 201) throw new Error(`key creation failed: ${answer.status} ${answer.text}`);
  return { key: answer.body.data.plaintext_key, appId: admin.appId, id: answer.body.data.id, answer };
}
