/**
 * The operator CLI: parse (usage errors exit 2, also a plan the plans file lacks), run one command
 * against the store (failures exit 1), print its answer as JSON on stdout (exit 0).
 */
import { homedir } from 'node:os';
import { parseCli, UsageError } from '../core/admin/cliArgs.js';
import { parseSyncArgs, SyncUsageError, SYNC_USAGE } from '../core/agents/syncArgs.js';
import { runAgentsSync, SyncFailure } from './agentsSync.js';
import { ApiError } from '../core/errors.js';
import { execute } from './commands.js';
import { assertPlan } from './plans.js';
import { CliFailure, withStore } from './store.js';

export interface CliIo {
  env: Readonly<Record<string, string | undefined>>;
  out(text: string): void;
  err(text: string): void;
  nowMs(): number;
  /** Whether stderr is a terminal (progress lines of `agents sync`). */
  tty?: boolean;
}

export async function runCli(argv: readonly string[], io: CliIo): Promise<number> {
  if (argv[0] === 'agents') return runAgents(argv.slice(1), io);
  let request;
  try {
    request = parseCli(argv, io.env, io.nowMs());
  } catch (e) {
    if (!(e instanceof UsageError)) throw e;
    return usage(io, e);
  }
  if (request.kind === 'help') {
    io.out(request.text);
    return 0;
  }
  const { command, dataDir } = request;
  try {
    // Before the store is opened, so a bad plan name leaves no trace.
    if ('plan' in command && command.plan !== null) assertPlan(command.plan, command.plansFile);
    const answer = await withStore(dataDir, command.name === 'tenant create', (store) => execute(store, command, io.nowMs()));
    io.out(`${JSON.stringify(answer, null, 2)}\n`);
    return 0;
  } catch (e) {
    if (e instanceof UsageError) return usage(io, e);
    const known = e instanceof CliFailure || e instanceof ApiError;
    io.err(`tracelake: ${known ? e.message : ((e as Error).stack ?? String(e))}\n`);
    return 1;
  }
}

/**
 * `tracelake agents sync`: unlike the other commands it talks to a running server over HTTP, not to
 * a stopped one's store. In watch mode SIGINT and SIGTERM end it after the round in progress.
 */
async function runAgents(argv: readonly string[], io: CliIo): Promise<number> {
  let options;
  try {
    if (argv[0] !== 'sync') throw new SyncUsageError(argv[0] === undefined ? 'agents: give a command (sync)' : `unknown command "agents ${argv[0]}"`);
    options = parseSyncArgs(argv.slice(1), io.env, homedir(), io.tty === true);
  } catch (e) {
    if (!(e instanceof SyncUsageError)) throw e;
    io.err(`tracelake: ${e.message}\nRun "tracelake agents sync --help" for usage.\n`);
    return 2;
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

function usage(io: CliIo, e: UsageError): number {
  io.err(`tracelake: ${e.message}\nRun "tracelake --help" for usage.\n`);
  return 2;
}
