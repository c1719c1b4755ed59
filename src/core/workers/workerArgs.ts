/**
 * `tracelake worker`'s command line: the gateway and the worker key (flags, else TRACELAKE_URL /
 * TRACELAKE_API_KEY / TRACELAKE_APP_ID), the agent profiles it serves, where its workspaces live and
 * how many turns it runs at once, and the command it runs eval runs with, if any. Anything wrong is a
 * usage error (exit 2).
 */
import { parseFlags, UsageError, wantsHelp } from '../cliArgs.js';
import { parseEvalCommand } from './evalRun.js';
import { DEFAULT_MAX_OUTPUT_BYTES, DEFAULT_TIMEOUT_SECONDS, PROFILE_NAME } from './profiles.js';

export interface WorkerOptions {
  url: string;
  key: string;
  appId: string;
  /** A profiles file; null: the built-in profiles. */
  profilesFile: string | null;
  /** The profiles to serve; empty: every profile known. */
  profiles: string[];
  /** Workspaces (`runs/<run>/workspace`) and the agents' own state. */
  workDir: string;
  /** The `local` git provider's root: the same repositories the gateway reads. */
  gitRoot: string;
  concurrency: number;
  /** How this worker names itself to the gateway (a session's later turns go back to it). */
  name: string;
  /** How long a claim waits at the gateway for work. */
  pollSeconds: number;
  /** On SIGTERM: how long running turns may take to finish before they are handed back. */
  graceSeconds: number;
  /** The command that runs an eval run (core/workers/evalRun.ts); null: this worker takes no eval runs. */
  evalCommand: string[] | null;
  evalTimeoutSeconds: number;
  evalMaxOutputBytes: number;
}

export const WORKER_USAGE = `Usage: tracelake worker [options]

Runs the turns of worker runs and sessions for a Tracelake server: claims a turn under a lease,
prepares its workspace (a working copy of the run's repository on its branch tracelake/<run>),
runs the agent of the run's profile with the prompt on stdin, streams its output to the server,
commits the workspace as a checkpoint after the turn and reports how it ended. With
--eval-command it also runs eval runs. SIGTERM (or SIGINT) finishes the turns in progress, or
hands them back after --grace-seconds (an eval run then fails: "worker stopped"), then exits.

Options:
  --url URL             server (default $TRACELAKE_URL, else http://127.0.0.1:4318)
  --key KEY             a Worker key (role Worker: claims and reports, nothing else)
                        (default $TRACELAKE_API_KEY)
  --app APP_ID          app id (default $TRACELAKE_APP_ID)
  --git-root DIR        the repositories, as the server's TRACELAKE_GIT_ROOT names them
                        (default $TRACELAKE_GIT_ROOT)
  --profiles FILE       agent profiles (JSON; default $TRACELAKE_WORKER_PROFILES, else the
                        built-in claude-code and codex)
  --profile NAME        serve only this profile (repeat for several; default: all known)
  --work-dir DIR        workspaces and agent state (default $TRACELAKE_WORKER_DIR, else
                        $XDG_STATE_HOME/tracelake/worker or ~/.local/state/tracelake/worker)
  --concurrency N       turns run at once (default 1, at most 64)
  --name NAME           this worker's name (default <host>-<hash of the work dir>, so a
                        restarted worker keeps its sessions)
  --poll-seconds N      how long a claim waits for work at the server (default 20, at most 30)
  --grace-seconds N     on SIGTERM, time left to running turns before they are handed back
                        (default 10)
  --eval-command CMD    also run eval runs: the program and its arguments, split on spaces
                        (no shell), or a JSON array of strings; it runs in a checkout of the
                        run's git_commit (or git_branch) or an empty directory, with
                        TRACELAKE_URL, TRACELAKE_APP_ID, TRACELAKE_API_KEY (a key for the run),
                        TRACELAKE_EVAL_RUN_ID, TRACELAKE_EVAL_CONFIG, TRACELAKE_EVAL_SUITE and
                        TRACELAKE_EVAL_SUITE_VERSION; it reports its trials itself, and its last
                        stdout line, when a JSON object, is the run's card (default: none)
  --eval-timeout-seconds N
                        an eval command's timeout (default 1800)
  --eval-max-output-bytes N
                        an eval command's stdout and stderr cap (default 8388608)
`;

type Env = Readonly<Record<string, string | undefined>>;

const FLAGS = {
  command: 'worker',
  strings: [
    'url',
    'key',
    'app',
    'git-root',
    'profiles',
    'work-dir',
    'concurrency',
    'name',
    'poll-seconds',
    'grace-seconds',
    'eval-command',
    'eval-timeout-seconds',
    'eval-max-output-bytes',
  ],
  lists: ['profile'],
};
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
export const WORKER_NAME = /^[A-Za-z0-9][A-Za-z0-9._:-]{0,127}$/;

/**
 * Parses the arguments after `worker`; null when help was asked for. `defaultName` names the worker
 * from its work directory (the caller hashes it with the host name).
 */
export function parseWorkerArgs(
  argv: readonly string[],
  env: Env,
  home: string,
  defaultName: (workDir: string) => string,
): WorkerOptions | null {
  if (wantsHelp(argv)) return null;
  const { values, lists } = parseFlags(argv, FLAGS);
  const profiles = [...(lists.get('profile') ?? [])];
  for (const profile of profiles) {
    if (!PROFILE_NAME.test(profile))
      throw new UsageError(`--profile must be a profile name, got "${profile}"`, 'profile');
  }
  const url = (values.get('url') ?? env.TRACELAKE_URL ?? 'http://127.0.0.1:4318').replace(/\/+$/, '');
  if (!/^https?:\/\/[^\s/]+/.test(url)) throw new UsageError(`--url must be an http(s) URL, got "${url}"`);
  const key = values.get('key') ?? env.TRACELAKE_API_KEY ?? '';
  if (key === '') throw new UsageError('no worker key: give --key or set TRACELAKE_API_KEY');
  const appId = values.get('app') ?? env.TRACELAKE_APP_ID ?? '';
  if (!UUID.test(appId))
    throw new UsageError(
      appId === '' ? 'no app id: give --app or set TRACELAKE_APP_ID' : `--app must be a UUID, got "${appId}"`,
    );
  const gitRoot = values.get('git-root') ?? env.TRACELAKE_GIT_ROOT ?? '';
  if (gitRoot === '')
    throw new UsageError(
      'no git root: give --git-root or set TRACELAKE_GIT_ROOT (the directory of the repositories the server reads)',
    );
  const workDir =
    values.get('work-dir') ??
    (env.TRACELAKE_WORKER_DIR || `${env.XDG_STATE_HOME || `${home}/.local/state`}/tracelake/worker`);
  const name = values.get('name') ?? defaultName(workDir);
  const evalText = values.get('eval-command');
  let evalCommand: string[] | null = null;
  if (evalText !== undefined) {
    try {
      evalCommand = parseEvalCommand(evalText);
    } catch (e) {
      throw new UsageError(`--eval-command: ${(e as Error).message}`);
    }
  }
  if (!WORKER_NAME.test(name))
    throw new UsageError(`--name must be 1-128 letters, digits, ".", "_", ":" or "-", got "${name}"`);
  return {
    url,
    key,
    appId: appId.toLowerCase(),
    profilesFile: values.get('profiles') ?? (env.TRACELAKE_WORKER_PROFILES || null),
    profiles,
    workDir,
    gitRoot,
    concurrency: whole(values, 'concurrency', 1, 1, 64),
    name,
    pollSeconds: whole(values, 'poll-seconds', 20, 0, 30),
    graceSeconds: whole(values, 'grace-seconds', 10, 0, 3600),
    evalCommand,
    evalTimeoutSeconds: whole(values, 'eval-timeout-seconds', DEFAULT_TIMEOUT_SECONDS, 1, 7 * 24 * 3600),
    evalMaxOutputBytes: whole(values, 'eval-max-output-bytes', DEFAULT_MAX_OUTPUT_BYTES, 1, 1024 ** 3),
  };
}

function whole(values: ReadonlyMap<string, string>, flag: string, fallback: number, min: number, max: number): number {
  const text = values.get(flag);
  if (text === undefined) return fallback;
  const n = /^\d+$/.test(text) ? Number(text) : NaN;
  if (!(n >= min && n <= max))
    throw new UsageError(`--${flag} must be a whole number in ${min}..${max}, got "${text}"`);
  return n;
}
