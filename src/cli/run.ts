/**
 * The operator CLI: parse (usage errors exit 2, also a plan the plans file lacks), run one command
 * against the store (failures exit 1), print its answer as JSON on stdout (exit 0).
 */
import { parseCli, UsageError } from '../core/admin/cliArgs.js';
import { ApiError } from '../core/errors.js';
import { execute } from './commands.js';
import { assertPlan } from './plans.js';
import { CliFailure, withStore } from './store.js';

export interface CliIo {
  env: Readonly<Record<string, string | undefined>>;
  out(text: string): void;
  err(text: string): void;
  nowMs(): number;
}

export async function runCli(argv: readonly string[], io: CliIo): Promise<number> {
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

function usage(io: CliIo, e: UsageError): number {
  io.err(`tracelake: ${e.message}\nRun "tracelake --help" for usage.\n`);
  return 2;
}
