/**
 * Agent profiles: how a worker runs the agent a run names (the profile's name is also the agent's
 * name in the run's trace, its spans' service_name). A profile is a command (the prompt on its
 * stdin, the workspace as its working directory), the command for a session's later turns (which
 * resume the agent's conversation), the format of its output (core/workers/output.ts), a timeout and
 * an output cap. Workers read them from a JSON file (`--profiles`); two are built in.
 *
 * ```json
 * { "profiles": { "reviewer": { "command": ["my-agent", "--review"], "format": "events", "timeout_seconds": 600 } } }
 * ```
 */
import { OUTPUT_FORMATS, type OutputFormat } from './output.js';

export interface AgentProfile {
  name: string;
  /** The first turn of a run. */
  command: string[];
  /** A session's later turns: resumes the agent's own conversation in the same workspace. */
  resume: string[];
  format: OutputFormat;
  timeoutSeconds: number;
  /** stdout and stderr bytes together; past them the agent is stopped and the turn fails. */
  maxOutputBytes: number;
  /** Added to the agent's environment. */
  env: Record<string, string>;
}

export const DEFAULT_TIMEOUT_SECONDS = 1800;
export const DEFAULT_MAX_OUTPUT_BYTES = 8 * 1024 * 1024;
/** Profile names, as runs name them: short, lower case, safe in a path and a log line. */
export const PROFILE_NAME = /^[a-z0-9][a-z0-9._-]{0,63}$/;

/**
 * Claude Code in print mode, allowed to edit files, its messages as stream-json; a session's later
 * turns `--continue` the latest conversation of the workspace. Codex's `exec` reads a `-` prompt from
 * stdin and `exec resume --last` continues. Both are starting points: a profiles file replaces them.
 */
export const BUILTIN_PROFILES: Readonly<Record<string, AgentProfile>> = {
  'claude-code': {
    name: 'claude-code',
    command: ['claude', '-p', '--output-format', 'stream-json', '--verbose', '--permission-mode', 'acceptEdits'],
    resume: [
      'claude',
      '-p',
      '--continue',
      '--output-format',
      'stream-json',
      '--verbose',
      '--permission-mode',
      'acceptEdits',
    ],
    format: 'claude-stream-json',
    timeoutSeconds: DEFAULT_TIMEOUT_SECONDS,
    maxOutputBytes: DEFAULT_MAX_OUTPUT_BYTES,
    env: {},
  },
  codex: {
    name: 'codex',
    command: ['codex', 'exec', '--sandbox', 'workspace-write', '-'],
    resume: ['codex', 'exec', 'resume', '--last', '-'],
    format: 'text',
    timeoutSeconds: DEFAULT_TIMEOUT_SECONDS,
    maxOutputBytes: DEFAULT_MAX_OUTPUT_BYTES,
    env: {},
  },
};

const FIELDS = new Set(['command', 'resume', 'format', 'timeout_seconds', 'max_output_bytes', 'env']);

/** A profiles file's content → profiles by name; throws an Error naming the bad entry. */
export function parseProfiles(json: unknown): Record<string, AgentProfile> {
  const root = json as { profiles?: unknown } | null;
  if (
    typeof root !== 'object' ||
    root === null ||
    typeof root.profiles !== 'object' ||
    root.profiles === null ||
    Array.isArray(root.profiles)
  ) {
    throw new Error('profiles: expected {"profiles": {"<name>": {"command": [...]}}}');
  }
  const out: Record<string, AgentProfile> = {};
  for (const [name, raw] of Object.entries(root.profiles as Record<string, unknown>)) {
    const at = `profiles.${name}`;
    if (!PROFILE_NAME.test(name)) throw new Error(`${at}: a name is 1-64 lower-case letters, digits, ".", "_" or "-"`);
    if (typeof raw !== 'object' || raw === null || Array.isArray(raw)) throw new Error(`${at}: expected an object`);
    const p = raw as Record<string, unknown>;
    for (const key of Object.keys(p))
      if (!FIELDS.has(key)) throw new Error(`${at}.${key}: unknown field (known: ${[...FIELDS].join(', ')})`);
    const command = argv(p.command, `${at}.command`);
    const format = p.format ?? 'events';
    if (!(OUTPUT_FORMATS as readonly unknown[]).includes(format))
      throw new Error(`${at}.format: expected one of ${OUTPUT_FORMATS.join(', ')}`);
    out[name] = {
      name,
      command,
      resume: p.resume === undefined ? command : argv(p.resume, `${at}.resume`),
      format: format as OutputFormat,
      timeoutSeconds: whole(p.timeout_seconds, `${at}.timeout_seconds`, DEFAULT_TIMEOUT_SECONDS, 1, 7 * 24 * 3600),
      maxOutputBytes: whole(p.max_output_bytes, `${at}.max_output_bytes`, DEFAULT_MAX_OUTPUT_BYTES, 1, 1024 ** 3),
      env: environment(p.env, `${at}.env`),
    };
  }
  return out;
}

function argv(v: unknown, at: string): string[] {
  if (!Array.isArray(v) || v.length === 0 || !v.every((a) => typeof a === 'string') || v[0] === '')
    throw new Error(`${at}: expected a non-empty list of strings (the program, then its arguments)`);
  return v as string[];
}

function whole(v: unknown, at: string, fallback: number, min: number, max: number): number {
  if (v === undefined) return fallback;
  if (typeof v !== 'number' || !Number.isInteger(v) || v < min || v > max)
    throw new Error(`${at}: expected a whole number from ${min} to ${max}`);
  return v;
}

function environment(v: unknown, at: string): Record<string, string> {
  if (v === undefined) return {};
  if (typeof v !== 'object' || v === null || Array.isArray(v) || !Object.values(v).every((x) => typeof x === 'string'))
    throw new Error(`${at}: expected an object of strings`);
  return { ...(v as Record<string, string>) };
}
