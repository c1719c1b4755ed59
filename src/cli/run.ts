/**
 * The operator CLI: parse (usage errors exit 2, also a plan the plans file lacks), run one command —
 * through the operator API of a server running on the store, else on the store directly (failures
 * exit 1) — and print its answer as JSON on stdout (exit 0).
 */
import { parseCli, type CliCommand, type CliRequest, type ServerTarget } from '../core/admin/cliArgs.js';
import { UsageError } from '../core/cliArgs.js';
import { isOperatorCommand, operatorRequest, type OperatorCommand } from '../core/admin/operatorApi.js';
import { settingsHelp } from '../config.js';
import { homedir } from 'node:os';
import { parseSyncArgs, SYNC_USAGE, type SyncOptions } from '../core/agents/syncArgs.js';
import { runAgentsSync, SyncFailure } from './agentsSync.js';
import { ApiError } from '../core/errors.js';
import { runOperatorCommand } from '../store/admin/operator.js';
import { assertPlan } from './plans.js';
import { errorCode, reachServer, sendCommand, type Answer, type Reach } from './remote.js';
import { usageFailure, type CliIo } from './io.js';
import { CliFailure, StoreLocked, withStore } from './store.js';

export async function runCli(argv: readonly string[], io: CliIo): Promise<number> {
  if (argv[0] === 'agents') return runAgents(argv.slice(1), io);
  if (argv[0] === 'worker') return (await import('./worker.js')).runWorkerCommand(argv.slice(1), io);
  if (argv[0] === 'quickstart') return (await import('./quickstart.js')).runQuickstart(argv.slice(1), io);
  let request: CliRequest;
  try {
    request = parseCli(argv, io.env, io.nowMs());
  } catch (e) {
    if (!(e instanceof UsageError)) throw e;
    return usageFailure(io, e.message);
  }
  if (request.kind === 'help') {
    io.out(`${request.text}\n${settingsHelp()}`);
    return 0;
  }
  const { command, dataDir, flags, server } = request;
  let reach: Reach | null = null;
  try {
    if (server?.token && isOperatorCommand(command)) {
      const target = { ...server, token: server.token };
      reach = await reachServer(target, dataDir);
      if (reach.kind === 'same store') return await remote(io, target, command, flags);
    }
    // Before the store is opened, so a bad plan name leaves no trace.
    if ('plan' in command && command.plan !== null) assertPlan(command.plan, command.plansFile);
    const answer = await withStore(dataDir, command.name === 'tenant create', (store) =>
      runOperatorCommand(store, command, io.nowMs(), 'cli'),
    );
    io.out(`${JSON.stringify(answer, null, 2)}\n`);
    return 0;
  } catch (e) {
    if (e instanceof UsageError) return usageFailure(io, e.message);
    if (e instanceof StoreLocked) {
      io.err(`tracelake: ${lockedAdvice(e.dataDir, command, server, reach)}\n`);
      return 1;
    }
    const known = e instanceof CliFailure || e instanceof ApiError;
    io.err(`tracelake: ${known ? e.message : ((e as Error).stack ?? String(e))}\n`);
    return 1;
  }
}

/** Sends the command to the server's operator API and prints its answer as the store path would. */
async function remote(
  io: CliIo,
  server: ServerTarget & { token: string },
  command: OperatorCommand,
  flags: ReadonlyMap<string, string>,
): Promise<number> {
  let answer: Answer;
  try {
    answer = await sendCommand(server, operatorRequest(command.name, flags));
  } catch (e) {
    throw new CliFailure(`The server at ${server.url} stopped answering: ${(e as Error).message}`);
  }
  const { status, body } = answer;
  const data = (body as { data?: unknown } | undefined)?.data;
  if (status >= 200 && status < 300 && data !== undefined) {
    io.out(`${JSON.stringify(data, null, 2)}\n`);
    return 0;
  }
  const error = (body as { error?: { message?: string; details?: Record<string, string> } } | undefined)?.error;
  if (status === 400 && error?.details) return usageFailure(io, Object.values(error.details).join('; '));
  throw new CliFailure(errorCode(body) ? `${error!.message}` : `The server at ${server.url} answered ${status}`);
}

/**
 * One line on what to do when a server holds the store: send the command through it (and what is
 * missing for that), or stop it.
 */
function lockedAdvice(dir: string, command: CliCommand, server: ServerTarget | null, reach: Reach | null): string {
  const held = `The store in ${dir} is in use by a running Tracelake server`;
  if (!isOperatorCommand(command))
    return `${held}: ${command.name} needs the server stopped; stop the server first, then run this command again.`;
  if (server === null)
    return `${held}, which cannot be found on port 0: set TRACELAKE_PORT (and TRACELAKE_OPERATOR_TOKEN) to reach it, or stop the server first.`;
  const orStop = 'or stop the server first.';
  switch (reach?.kind) {
    case undefined:
      return `${held}: set TRACELAKE_OPERATOR_TOKEN to its operator token to run this command through the server, ${orStop}`;
    case 'token refused':
      return `${held}; the server at ${server.url} refused the operator token: set TRACELAKE_OPERATOR_TOKEN to that server's token, ${orStop}`;
    case 'operator api off':
      return `${held}; the server at ${server.url} has its operator API off: restart it with TRACELAKE_OPERATOR_TOKEN set, ${orStop}`;
    case 'other store':
      return `${held}; the server at ${server.url} serves another store (${reach.dataDir}): set TRACELAKE_HOST and TRACELAKE_PORT to this store's server, ${orStop}`;
    default:
      return `${held}, but none answers at ${server.url}: set TRACELAKE_HOST and TRACELAKE_PORT to where it listens, ${orStop}`;
  }
}

/**
 * `tracelake agents sync`: unlike the other commands it talks to a running server over HTTP, not to
 * a stopped one's store. In watch mode SIGINT and SIGTERM end it after the round in progress.
 */
async function runAgents(argv: readonly string[], io: CliIo): Promise<number> {
  let options: SyncOptions | null;
  try {
    if (argv[0] !== 'sync')
      throw new UsageError(
        argv[0] === undefined ? 'agents: give a command (sync)' : `unknown command "agents ${argv[0]}"`,
      );
    options = parseSyncArgs(argv.slice(1), io.env, homedir(), io.tty === true);
  } catch (e) {
    if (!(e instanceof UsageError)) throw e;
    return usageFailure(io, e.message, 'agents sync');
  }
  if (options === null) {
    io.out(SYNC_USAGE);
    return 0;
  }
  const stop = new AbortController();
  const onSignal = () => stop.abort();
  process.once('SIGINT', onSignal);
  process.once('SIGTERM', onSignal);
  try {
    await runAgentsSync(options, io, stop.signal);
    return 0;
  } catch (e) {
    io.err(`tracelake: ${e instanceof SyncFailure ? e.message : ((e as Error).stack ?? String(e))}\n`);
    return 1;
  } finally {
    process.off('SIGINT', onSignal);
    process.off('SIGTERM', onSignal);
  }
}
