/**
 * Every command line's tokenizer: `node:util` `parseArgs` (strict), with its errors turned into one
 * `UsageError` that names the flag in the words the CLI prints. Commands check their values
 * themselves and throw the same error, which the CLI prints with a pointer to the help (exit 2).
 */
import { parseArgs, type ParseArgsConfig } from 'node:util';

/** A command line that cannot run; `flag` names the flag it is about, when it is about one. */
export class UsageError extends Error {
  constructor(
    message: string,
    readonly flag?: string,
  ) {
    super(message);
  }
}

export interface ArgsSpec {
  /** Flags that take a value: `--flag value` or `--flag=value`. */
  strings: readonly string[];
  /** Flags that take a value and may be given several times, each value kept. */
  lists?: readonly string[];
  /** Flags without a value. */
  switches?: readonly string[];
  /** Whether words that are not flags are taken (in `positionals`); otherwise each is an error. */
  positionals?: boolean;
  /** A flag given twice: an error, or the later one wins (settings appended to a command line). */
  repeats?: 'refused' | 'last wins';
  /** The command, to name in messages ("worker takes no --x"); without it "unknown option --x". */
  command?: string;
}

export interface Args {
  /** The `strings` flags given, in the order given. */
  values: ReadonlyMap<string, string>;
  lists: ReadonlyMap<string, readonly string[]>;
  switches: ReadonlySet<string>;
  positionals: string[];
}

/** Whether the arguments ask for help (`--help` or `-h` anywhere), which wins over any error in them. */
export function wantsHelp(argv: readonly string[]): boolean {
  return argv.includes('--help') || argv.includes('-h');
}

/** Tokenizes `argv` as `spec` describes. Throws UsageError. */
export function parseFlags(argv: readonly string[], spec: ArgsSpec): Args {
  const options: NonNullable<ParseArgsConfig['options']> = {};
  for (const name of spec.strings) options[name] = { type: 'string' };
  for (const name of spec.lists ?? []) options[name] = { type: 'string', multiple: true };
  for (const name of spec.switches ?? []) options[name] = { type: 'boolean' };
  const tokens = tokenize(argv, options, spec.command);
  const args = {
    values: new Map<string, string>(),
    lists: new Map<string, string[]>(),
    switches: new Set<string>(),
    positionals: [] as string[],
  };
  for (const token of tokens) {
    if (token.kind === 'positional') {
      if (!spec.positionals) {
        const refusal = spec.command ? `${spec.command} takes no argument` : 'unexpected argument';
        throw new UsageError(`${refusal} "${token.value}"`);
      }
      args.positionals.push(token.value);
    }
    if (token.kind !== 'option') continue;
    const { name, value } = token;
    if (value === undefined) args.switches.add(name);
    else if (spec.lists?.includes(name)) args.lists.set(name, [...(args.lists.get(name) ?? []), value]);
    else if (!args.values.has(name) || spec.repeats === 'last wins') args.values.set(name, value);
    else throw new UsageError(`--${name} is given twice`, name);
  }
  return args;
}

function tokenize(
  argv: readonly string[],
  options: NonNullable<ParseArgsConfig['options']>,
  command: string | undefined,
) {
  try {
    // parseArgs copies the arguments before it reads them.
    return parseArgs({ args: argv as string[], options, strict: true, allowPositionals: true, tokens: true }).tokens;
  } catch (e) {
    throw usageOf(e as Error & { code?: string }, command);
  }
}

/**
 * parseArgs' error in the CLI's words: its message quotes the flag first ("Unknown option '--x'",
 * "Option '--x <value>' argument missing"). Any other error is a bug and passes through.
 */
function usageOf(e: Error & { code?: string }, command: string | undefined): Error {
  if (e.code !== 'ERR_PARSE_ARGS_UNKNOWN_OPTION' && e.code !== 'ERR_PARSE_ARGS_INVALID_OPTION_VALUE') return e;
  const named = /'(-[^' ]*)/.exec(e.message)![1]!;
  const flag = named.replace(/^--?/, '');
  if (e.code === 'ERR_PARSE_ARGS_UNKNOWN_OPTION') {
    return new UsageError(command ? `${command} takes no ${named}` : `unknown option ${named}`, flag);
  }
  if (/does not take an argument/.test(e.message)) return new UsageError(`${named} takes no value`, flag);
  // The next word starts with "-": a forgotten value, or one that must be written with "=".
  if (/ambiguous/.test(e.message)) {
    return new UsageError(`${named} needs a value (one that starts with "-" is written ${named}=VALUE)`, flag);
  }
  return new UsageError(`${named} needs a value`, flag);
}
