/**
 * Eval runs run by a worker (docs/decisions.md, "Workers"): the worker's `--eval-command`, the
 * environment it gets, how its exit reads as the run's end, and the gateway's check of that end.
 * The command reports its trials itself (with the run key minted at the claim); the worker only
 * ends the run: exit 0 completes it with the card the command printed last, anything else fails it
 * with an error that says why. Pure: the worker and the store apply it.
 */
import { ApiError } from '../errors.js';

/** Ends of an eval run's lease as the worker reports them (a subset of a turn's reasons). */
export const EVAL_END_REASONS = ['exit', 'timeout', 'output_limit', 'spawn', 'workspace'] as const;
export type EvalEndReason = (typeof EVAL_END_REASONS)[number];

/** The error of an eval run whose worker stopped (SIGTERM) before the command ended. */
export const WORKER_STOPPED = 'worker stopped';
/** The error of an eval run whose lease expired (its worker died or lost the gateway). */
export const LEASE_EXPIRED = 'lease_expired';

/**
 * `--eval-command`: a JSON array (`["/usr/bin/node", "run evals.mjs"]`) or a line split on
 * whitespace (no shell, no quoting: arguments with spaces need the array form). Throws an Error
 * saying what is wrong.
 */
export function parseEvalCommand(text: string): string[] {
  const trimmed = text.trim();
  if (trimmed.startsWith('[')) {
    let parsed: unknown;
    try {
      parsed = JSON.parse(trimmed);
    } catch (e) {
      throw new Error(`not a JSON array of strings: ${(e as Error).message}`);
    }
    if (
      !Array.isArray(parsed) ||
      parsed.length === 0 ||
      !parsed.every((a) => typeof a === 'string') ||
      parsed[0] === ''
    ) {
      throw new Error('expected a non-empty JSON array of strings (the program, then its arguments)');
    }
    return parsed as string[];
  }
  const words = trimmed.split(/\s+/).filter((w) => w !== '');
  if (words.length === 0) throw new Error('expected a program (and its arguments)');
  return words;
}

/** What the command is told of its run (beside the worker's own environment). */
export interface EvalRunInfo {
  id: string;
  suite: string;
  suite_version: string | null;
  config: Record<string, unknown>;
}

export function evalEnvironment(
  run: EvalRunInfo,
  gateway: { url: string; appId: string },
  runKey: string,
): Record<string, string> {
  return {
    TRACELAKE_URL: gateway.url,
    TRACELAKE_APP_ID: gateway.appId,
    TRACELAKE_API_KEY: runKey,
    TRACELAKE_EVAL_RUN_ID: run.id,
    TRACELAKE_EVAL_CONFIG: JSON.stringify(run.config),
    TRACELAKE_EVAL_SUITE: run.suite,
    TRACELAKE_EVAL_SUITE_VERSION: run.suite_version ?? '',
  };
}

/** How the command ended, as the worker saw it (worker/agentProcess.ts's exit). */
export interface CommandExit {
  code: number | null;
  signal: string | null;
  stoppedFor: 'timeout' | 'output_limit' | null;
  spawnError: string | null;
}

export type EvalEnd =
  | {
      status: 'succeeded';
      reason: 'exit';
      exit_code: 0;
      error: null;
      card: Record<string, unknown>;
      cost_usd: number | null;
    }
  | { status: 'failed'; reason: EvalEndReason; exit_code: number | null; error: string; card: null; cost_usd: null };

/**
 * The card a command printed: its last stdout line when that is a JSON object, else `{}` (a
 * command with nothing to say still succeeded). Its `costUsd`, a number ≥ 0, is the run's cost.
 */
export function cardOf(lastLine: string | null): { card: Record<string, unknown>; costUsd: number | null } {
  let parsed: unknown = null;
  try {
    parsed = lastLine === null ? null : JSON.parse(lastLine);
  } catch {
    // a line of text: no card
  }
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) return { card: {}, costUsd: null };
  const card = parsed as Record<string, unknown>;
  const cost = card.costUsd;
  return { card, costUsd: typeof cost === 'number' && Number.isFinite(cost) && cost >= 0 ? cost : null };
}

/** The run's end from the command's exit and its last stdout line. */
export function evalEnd(
  exit: CommandExit,
  lastLine: string | null,
  limits: { timeoutSeconds: number; maxOutputBytes: number },
): EvalEnd {
  const failed = (reason: EvalEndReason, error: string): EvalEnd => ({
    status: 'failed',
    reason,
    exit_code: exit.code,
    error,
    card: null,
    cost_usd: null,
  });
  if (exit.spawnError !== null) return failed('spawn', `The eval command could not be started: ${exit.spawnError}`);
  if (exit.stoppedFor === 'timeout')
    return failed('timeout', `The eval command ran past its timeout of ${limits.timeoutSeconds} s and was stopped`);
  if (exit.stoppedFor === 'output_limit')
    return failed('output_limit', `The eval command printed more than ${limits.maxOutputBytes} bytes and was stopped`);
  if (exit.code === 0) {
    const { card, costUsd } = cardOf(lastLine);
    return { status: 'succeeded', reason: 'exit', exit_code: 0, error: null, card, cost_usd: costUsd };
  }
  return failed(
    'exit',
    exit.code === null
      ? `The eval command was killed by ${exit.signal ?? 'a signal'}`
      : `The eval command exited with ${exit.code}`,
  );
}

/** A worker's report of an eval run's end, checked by the gateway: a card to succeed, an error to fail. */
export function checkEvalEnd(end: {
  status: string;
  reason: string;
  exitCode: number | null;
  card: unknown;
  error: string | null;
}): { kind: 'complete' | 'fail' } {
  if (!(EVAL_END_REASONS as readonly string[]).includes(end.reason)) {
    throw new ApiError('conflict', `An eval run ends for one of ${EVAL_END_REASONS.join(', ')}, not ${end.reason}`, {
      reason: end.reason,
    });
  }
  if (end.status === 'succeeded') {
    if (end.reason !== 'exit' || end.exitCode !== 0)
      throw new ApiError('conflict', 'An eval run succeeds only when its command exited with code 0 (reason exit)', {
        reason: end.reason,
      });
    if (typeof end.card !== 'object' || end.card === null || Array.isArray(end.card))
      throw new ApiError('conflict', 'A succeeded eval run needs its card (an object)');
    return { kind: 'complete' };
  }
  if (end.status !== 'failed')
    throw new ApiError('conflict', `An eval run is not ${end.status}: report it succeeded or failed`, {
      status: end.status,
    });
  if (end.error === null || end.error.trim() === '')
    throw new ApiError('conflict', 'A failed eval run needs its error');
  return { kind: 'fail' };
}
