/**
 * What every command of the CLI is given (the environment, stdout, stderr, the clock), and how it
 * reports a usage error: one line, where the help is, exit code 2.
 */

export interface CliIo {
  env: Readonly<Record<string, string | undefined>>;
  out(text: string): void;
  err(text: string): void;
  nowMs(): number;
  /** Whether stderr is a terminal (progress lines of `agents sync`). */
  tty?: boolean;
}

/** Prints a usage error of `command` (empty: the operator commands) and returns its exit code. */
export function usageFailure(io: CliIo, message: string, command = ''): number {
  io.err(`tracelake: ${message}\nRun "tracelake ${command === '' ? '' : `${command} `}--help" for usage.\n`);
  return 2;
}
