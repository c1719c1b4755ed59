/**
 * `tracelake worker`: the command line (core/workers/workerArgs.ts), the agent profiles (a file, or
 * the built-in ones), JSON log lines on stdout, and SIGTERM/SIGINT as the stop (worker/main.ts).
 * Usage errors exit 2; a key the server refuses exits 1.
 */
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { homedir, hostname } from 'node:os';
import { resolve } from 'node:path';
import { BUILTIN_PROFILES, parseProfiles, type AgentProfile } from '../core/workers/profiles.js';
import { UsageError } from '../core/cliArgs.js';
import { parseWorkerArgs, WORKER_USAGE, type WorkerOptions } from '../core/workers/workerArgs.js';
import { runWorker } from '../worker/main.js';
import { usageFailure, type CliIo } from './io.js';

/** A worker's default name: the host and a hash of its work directory, so a restart keeps it. */
function defaultName(workDir: string): string {
  const host =
    hostname()
      .replace(/[^A-Za-z0-9._-]/g, '-')
      .slice(0, 100) || 'worker';
  return `${host}-${createHash('sha256').update(resolve(workDir)).digest('hex').slice(0, 8)}`;
}

function loadProfiles(file: string | null, only: string[]): Record<string, AgentProfile> {
  let all: Record<string, AgentProfile>;
  if (file === null) all = { ...BUILTIN_PROFILES };
  else {
    let json: unknown;
    try {
      json = JSON.parse(readFileSync(file, 'utf8'));
    } catch (e) {
      throw new UsageError(`--profiles ${file}: ${(e as Error).message}`);
    }
    try {
      all = parseProfiles(json);
    } catch (e) {
      throw new UsageError(`--profiles ${file}: ${(e as Error).message}`);
    }
  }
  if (only.length === 0) return all;
  const chosen: Record<string, AgentProfile> = {};
  for (const name of only) {
    const profile = all[name];
    if (!profile)
      throw new UsageError(`--profile ${name}: no such profile (known: ${Object.keys(all).join(', ') || 'none'})`);
    chosen[name] = profile;
  }
  return chosen;
}

export async function runWorkerCommand(argv: readonly string[], io: CliIo): Promise<number> {
  let options: WorkerOptions | null;
  let profiles: Record<string, AgentProfile>;
  try {
    options = parseWorkerArgs(argv, io.env, homedir(), defaultName);
    if (options === null) {
      io.out(WORKER_USAGE);
      return 0;
    }
    profiles = loadProfiles(options.profilesFile, options.profiles);
    if (Object.keys(profiles).length === 0) throw new UsageError('no agent profiles to serve');
  } catch (e) {
    if (!(e instanceof UsageError)) throw e;
    return usageFailure(io, e.message, 'worker');
  }
  const stop = new AbortController();
  const onSignal = () => stop.abort();
  process.once('SIGINT', onSignal);
  process.once('SIGTERM', onSignal);
  try {
    await runWorker(
      options,
      profiles,
      {
        log: (level, fields, msg) =>
          io.out(`${JSON.stringify({ level, time: new Date(io.nowMs()).toISOString(), msg, ...fields })}\n`),
      },
      stop.signal,
    );
    return 0;
  } catch (e) {
    io.err(`tracelake: ${(e as Error).message}\n`);
    return 1;
  } finally {
    process.off('SIGINT', onSignal);
    process.off('SIGTERM', onSignal);
  }
}
