/**
 * One eval run claimed under a lease (`tracelake worker --eval-command`): a directory for it (a
 * checkout of the run's commit or branch from the app's local repository, else an empty temporary
 * one), the eval command run there with the run's key and settings in its environment, its lines
 * streamed as the lease's events, heartbeats, and the run's end reported from the command's exit
 * (core/workers/evalRun.ts). The command reports its trials itself. A lost lease drops the run
 * without a report (the gateway fails it); a stopping worker releases it (the gateway fails it:
 * `worker stopped`). Eval runs are not cancelled through the worker routes.
 */
import { mkdir, rm } from 'node:fs/promises';
import { join } from 'node:path';
import type { CompleteBody } from '../contract/workers.js';
import { evalEnd, evalEnvironment } from '../core/workers/evalRun.js';
import type { LocalGitProvider } from '../git/local.js';
import type { EvalClaim } from '../store/workers/evalLeases.js';
import { runAgent, UNGUARDED, type AgentRun, type StopReason } from './agentProcess.js';
import { LeaseLost, type GatewayClient } from './client.js';
import { EventStream, type TurnLog, type TurnOutcome } from './turn.js';

/** Longest line sent (as for turns: the gateway takes 64 KiB of text per event). */
const MAX_LINE_CHARS = 16 * 1024;

export interface EvalContext {
  gateway: GatewayClient;
  git: LocalGitProvider;
  /** The worker's work directory: each run's directory is `<workDir>/evals/<run id>`. */
  workDir: string;
  command: string[];
  timeoutSeconds: number;
  maxOutputBytes: number;
  /** What the command is told of the gateway. */
  url: string;
  appId: string;
  log: TurnLog;
}

export interface RunningEval {
  claim: EvalClaim;
  handBack(): void;
  done: Promise<TurnOutcome>;
}

export function startEvalRun(claim: EvalClaim, ctx: EvalContext): RunningEval {
  const events = new EventStream(ctx.gateway, claim.lease_id);
  let command: AgentRun | null = null;
  let stopping: StopReason | null = null;
  const stop = (reason: StopReason) => {
    stopping ??= reason;
    command?.stop(reason);
  };
  events.onLost = () => stop('lease_lost');
  const beat = setInterval(() => {
    ctx.gateway.heartbeat(claim.lease_id).then(
      () => undefined,
      (e: unknown) =>
        e instanceof LeaseLost
          ? stop('lease_lost')
          : ctx.log.warn({ err: e, eval_run_id: claim.eval_run.id }, 'heartbeat failed'),
    );
  }, claim.heartbeat_ms);
  const done = (async (): Promise<TurnOutcome> => {
    try {
      return await runEval(
        claim,
        ctx,
        events,
        () => stopping,
        (c) => {
          command = c;
          if (stopping) c.stop(stopping);
        },
      );
    } finally {
      clearInterval(beat);
    }
  })();
  return { claim, handBack: () => stop('handback'), done };
}

/**
 * The run's directory, `<work dir>/evals/<run id>`: a checkout when the run names a ref and the app
 * has a local repository, else empty. It is removed after the run; a worker killed mid-run leaves it
 * in its own work directory (as it leaves its turns' workspaces), not in the machine's temp dir.
 */
async function prepare(claim: EvalClaim, ctx: EvalContext): Promise<{ dir: string; how: string }> {
  const run = claim.eval_run;
  const ref = run.git_commit ?? run.git_branch;
  const dir = join(ctx.workDir, 'evals', run.id);
  await rm(dir, { recursive: true, force: true });
  if (run.repository !== null && ref !== null) {
    const { commit } = await ctx.git.checkout(run.repository, ref, dir);
    return { dir, how: `checked out ${run.repository} ${ref} at ${commit.slice(0, 12)}` };
  }
  await mkdir(dir, { recursive: true });
  return {
    dir,
    how: `an empty directory (${ref === null ? 'the run names no commit or branch' : 'the app has no local git connection'})`,
  };
}

async function runEval(
  claim: EvalClaim,
  ctx: EvalContext,
  events: EventStream,
  stopping: () => StopReason | null,
  started: (c: AgentRun) => void,
): Promise<TurnOutcome> {
  const run = claim.eval_run;
  const step = (text: string, level: 'info' | 'error' = 'info') => events.push({ kind: 'step', text, level });
  step(
    `Starting eval run ${run.id} (experiment ${run.experiment}, suite ${run.suite}${run.suite_version ? ` ${run.suite_version}` : ''})`,
  );
  let dir: string;
  try {
    const prepared = await prepare(claim, ctx);
    dir = prepared.dir;
    step(`Directory: ${prepared.how}`);
  } catch (e) {
    step(`The directory could not be prepared: ${(e as Error).message}`, 'error');
    return finish(claim, ctx, events, {
      status: 'failed',
      reason: 'workspace',
      exit_code: null,
      error: `The eval run's directory could not be prepared: ${(e as Error).message}`,
    });
  }
  try {
    if (stopping() === 'handback') return await handBack(claim, ctx, events);
    if (stopping() === 'lease_lost') return 'lease lost';
    step(`Command: ${ctx.command.join(' ')}`);
    let lastLine: string | null = null;
    const command = runAgent({
      argv: ctx.command,
      cwd: dir,
      env: evalEnvironment(run, { url: ctx.url, appId: ctx.appId }, claim.api_key.plaintext_key),
      prompt: '',
      timeoutMs: ctx.timeoutSeconds * 1000,
      maxOutputBytes: ctx.maxOutputBytes,
      maxLineChars: MAX_LINE_CHARS,
      onLine(stream, line) {
        if (stream === 'stdout' && line.trim() !== '') lastLine = line;
        events.push({ kind: stream, text: line });
      },
      onUnguarded: (reason) => ctx.log.warn({ eval_run_id: run.id, reason }, UNGUARDED),
    });
    started(command);
    const exit = await command.exited;
    if (exit.stoppedFor === 'lease_lost' || stopping() === 'lease_lost') {
      ctx.log.warn({ eval_run_id: run.id }, 'the lease of this eval run was lost: the gateway fails it');
      return 'lease lost';
    }
    if (exit.stoppedFor === 'handback') return await handBack(claim, ctx, events);
    const stoppedFor = exit.stoppedFor === 'timeout' || exit.stoppedFor === 'output_limit' ? exit.stoppedFor : null;
    const end = evalEnd({ code: exit.code, signal: exit.signal, stoppedFor, spawnError: exit.spawnError }, lastLine, {
      timeoutSeconds: ctx.timeoutSeconds,
      maxOutputBytes: ctx.maxOutputBytes,
    });
    step(
      end.status === 'succeeded' ? `The eval command exited with 0 after ${(exit.ms / 1000).toFixed(1)} s` : end.error,
      end.status === 'succeeded' ? 'info' : 'error',
    );
    return await finish(claim, ctx, events, end);
  } finally {
    await rm(dir, { recursive: true, force: true }).catch(() => undefined);
  }
}

async function finish(
  claim: EvalClaim,
  ctx: EvalContext,
  events: EventStream,
  body: CompleteBody,
): Promise<TurnOutcome> {
  try {
    await events.flush();
    await ctx.gateway.complete(claim.lease_id, body);
    ctx.log.info({ eval_run_id: claim.eval_run.id, status: body.status, reason: body.reason }, 'eval run reported');
    return 'reported';
  } catch (e) {
    if (e instanceof LeaseLost) return 'lease lost';
    throw e;
  }
}

/** A stopping worker releases the run; the gateway fails it (`worker stopped`): eval runs are not queued again. */
async function handBack(claim: EvalClaim, ctx: EvalContext, events: EventStream): Promise<TurnOutcome> {
  try {
    events.push({ kind: 'step', text: 'The worker is stopping: the eval run fails (worker stopped)', level: 'error' });
    await events.flush();
    await ctx.gateway.release(claim.lease_id);
    ctx.log.info({ eval_run_id: claim.eval_run.id }, 'eval run released');
    return 'handed back';
  } catch (e) {
    if (e instanceof LeaseLost) return 'lease lost';
    throw e;
  }
}
