/**
 * `tracelake agents sync`'s command line: where the server is and which key to use (flags, else
 * TRACELAKE_URL / TRACELAKE_API_KEY / TRACELAKE_APP_ID), which transcripts to read (the paths given,
 * else the agents' own directories), and how to send them. Anything wrong is a usage error (exit 2).
 */
import { parseFlags, UsageError, wantsHelp } from '../cliArgs.js';

export interface SyncOptions {
  url: string;
  key: string;
  appId: string;
  /** Files or directories to read; empty reads the agents' default directories. */
  paths: string[];
  /** Where the record of what was sent is kept. */
  stateFile: string;
  watch: boolean;
  /** Seconds between looks for grown files in watch mode. */
  intervalSec: number;
  /** A transcript untouched this long is taken as finished. */
  idleMinutes: number;
  batchBytes: number;
  batchSessions: number;
  /** X-Service-Environment, for a kind-scoped key. */
  environment: string | null;
  claudeDir: string;
  codexDir: string;
  /** Show progress on stderr (default: when it is a terminal). */
  progress: boolean;
}

export const SYNC_USAGE = `Usage: tracelake agents sync [PATH ...] [options]

Reads coding-agent transcripts and sends them to a running Tracelake server: Claude Code
(~/.claude/projects/**/*.jsonl, sub-agent files included) and OpenAI Codex CLI
(~/.codex/sessions/**/rollout-*.jsonl), or the files and directories given. Only sessions that are
new or grew since the last run are sent. Prints a JSON summary on stdout.

Options:
  --url URL             server (default $TRACELAKE_URL, else http://127.0.0.1:4318)
  --key KEY             API key with trace.write (default $TRACELAKE_API_KEY)
  --app APP_ID          app id (default $TRACELAKE_APP_ID)
  --environment NAME    environment, for keys scoped to environment kinds
  --state FILE          record of what was sent (default $TRACELAKE_AGENTS_STATE, else
                        $XDG_STATE_HOME/tracelake/agents-sync.json or ~/.local/state/...)
  --watch               keep following the directories and sync as files grow
  --interval SECONDS    how often --watch looks for changes (default 2)
  --idle-minutes N      a transcript untouched this long is finished (default 60)
  --batch-bytes BYTES   largest request body (default 8388608)
  --batch-sessions N    sessions per request (default 100, at most 1000)
  --claude-dir DIR      Claude Code's directory (default $CLAUDE_CONFIG_DIR, else ~/.claude)
  --codex-dir DIR       Codex's directory (default $CODEX_HOME, else ~/.codex)
  --progress / --no-progress   progress lines on stderr (default: when stderr is a terminal)
`;

type Env = Readonly<Record<string, string | undefined>>;

const FLAGS = {
  command: 'agents sync',
  strings: [
    'url',
    'key',
    'app',
    'environment',
    'state',
    'interval',
    'idle-minutes',
    'batch-bytes',
    'batch-sessions',
    'claude-dir',
    'codex-dir',
  ],
  switches: ['watch', 'progress', 'no-progress'],
  positionals: true,
};
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/**
 * Parses the arguments after `agents sync`. `home` is the user's home directory and `tty` whether
 * stderr is a terminal. Returns null when help was asked for.
 */
export function parseSyncArgs(argv: readonly string[], env: Env, home: string, tty: boolean): SyncOptions | null {
  if (wantsHelp(argv)) return null;
  const { values, switches, positionals: paths } = parseFlags(argv, FLAGS);
  if (switches.has('progress') && switches.has('no-progress'))
    throw new UsageError('give at most one of --progress and --no-progress');
  const url = (values.get('url') ?? env.TRACELAKE_URL ?? 'http://127.0.0.1:4318').replace(/\/+$/, '');
  if (!/^https?:\/\/[^\s/]+/.test(url)) throw new UsageError(`--url must be an http(s) URL, got "${url}"`);
  const key = values.get('key') ?? env.TRACELAKE_API_KEY ?? '';
  if (key === '') throw new UsageError('no API key: give --key or set TRACELAKE_API_KEY');
  const appId = values.get('app') ?? env.TRACELAKE_APP_ID ?? '';
  if (!UUID.test(appId))
    throw new UsageError(
      appId === '' ? 'no app id: give --app or set TRACELAKE_APP_ID' : `--app must be a UUID, got "${appId}"`,
    );
  const stateHome = env.XDG_STATE_HOME || `${home}/.local/state`;
  return {
    url,
    key,
    appId: appId.toLowerCase(),
    paths,
    stateFile: values.get('state') ?? (env.TRACELAKE_AGENTS_STATE || `${stateHome}/tracelake/agents-sync.json`),
    watch: switches.has('watch'),
    intervalSec: number(values, 'interval', 2, 0.05, 3600),
    idleMinutes: number(values, 'idle-minutes', 60, 0, 525_600),
    batchBytes: Math.trunc(number(values, 'batch-bytes', 8 * 1024 * 1024, 1024, 1024 ** 3)),
    batchSessions: Math.trunc(number(values, 'batch-sessions', 100, 1, 1000)),
    environment: values.get('environment') ?? null,
    claudeDir: values.get('claude-dir') ?? (env.CLAUDE_CONFIG_DIR || `${home}/.claude`),
    codexDir: values.get('codex-dir') ?? (env.CODEX_HOME || `${home}/.codex`),
    progress: switches.has('progress') || (tty && !switches.has('no-progress')),
  };
}

function number(values: ReadonlyMap<string, string>, flag: string, fallback: number, min: number, max: number): number {
  const text = values.get(flag);
  if (text === undefined) return fallback;
  const n = /^\d+(\.\d+)?$/.test(text) ? Number(text) : NaN;
  if (!(n >= min && n <= max)) throw new UsageError(`--${flag} must be a number in ${min}..${max}, got "${text}"`);
  return n;
}
