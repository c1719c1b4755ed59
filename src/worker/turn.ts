/**
 * One claimed turn, from workspace to report: prepare the workspace, run the profile's agent with
 * the prompt, stream what it prints (parsed into agent events where the profile's format says so)
 * and the worker's own steps to the gateway in small batches, heartbeat the lease (learning of a
 * cancel), checkpoint the workspace to the run's work branch, and report how the turn ended. A lost
 * lease drops the turn without a report; a worker stopping hands it back.
 */
import type { CompleteBody, WorkerEventInput } from '../contract/workers.js';
import { OutputParser } from '../core/workers/output.js';
import type { AgentProfile } from '../core/workers/profiles.js';
import type { TurnClaim } from '../store/workers/leases.js';
import { runAgent, UNGUARDED, type AgentExit, type AgentRun, type StopReason } from './agentProcess.js';
import { LeaseLost, type GatewayClient } from './client.js';
import type { Prepared, Workspaces } from './workspace.js';

/** Events sent at most per request, and how long an event waits for others to share its request. */
const BATCH_EVENTS = 200;
const BATCH_WAIT_MS = 100;
/** Longest line sent (the gateway takes 64 KiB of text per event). */
const MAX_LINE_CHARS = 16 * 1024;

export interface TurnLog {
  info(fields: Record<string, unknown>, msg: string): void;
  warn(fields: Record<string, unknown>, msg: string): void;
}

export interface TurnContext {
  gateway: GatewayClient;
  workspaces: Workspaces;
  profile: AgentProfile;
  log: TurnLog;
}

export type TurnOutcome = 'reported' | 'handed back' | 'lease lost';

/** A turn in progress: `handBack` asks it to stop and return the turn to the queue. */
export interface RunningTurn {
  claim: TurnClaim;
  handBack(): void;
  done: Promise<TurnOutcome>;
}

export function startTurn(claim: TurnClaim, ctx: TurnContext): RunningTurn {
  const events = new EventStream(ctx.gateway, claim.lease_id);
  let agent: AgentRun | null = null;
  let stopping: StopReason | null = null;
  const stop = (reason: StopReason) => {
    stopping ??= reason;
    agent?.stop(reason);
  };
  events.onCancel = () => stop('cancelled');
  events.onLost = () => stop('lease_lost');
  const beat = setInterval(() => {
    ctx.gateway.heartbeat(claim.lease_id).then(
      (h) => h.cancel && stop('cancelled'),
      (e: unknown) =>
        e instanceof LeaseLost
          ? stop('lease_lost')
          : ctx.log.warn({ err: e, run_id: claim.run.id }, 'heartbeat failed'),
    );
  }, claim.heartbeat_ms);

  const done = (async (): Promise<TurnOutcome> => {
    try {
      return await runTurn(
        claim,
        ctx,
        events,
        () => stopping,
        (a) => {
          agent = a;
          if (stopping) a.stop(stopping);
        },
      );
    } finally {
      clearInterval(beat);
    }
  })();
  return { claim, handBack: () => stop('handback'), done };
}

async function runTurn(
  claim: TurnClaim,
  ctx: TurnContext,
  events: EventStream,
  stopping: () => StopReason | null,
  started: (a: AgentRun) => void,
): Promise<TurnOutcome> {
  const { run, turn } = claim;
  const step = (text: string, level: 'info' | 'error' = 'info') => events.push({ kind: 'step', text, level });
  step(
    `${turn.resume ? 'Resuming' : 'Starting'} turn ${turn.index} of ${run.kind === 'session' ? 'session' : 'run'} ${run.id} (attempt ${turn.attempt}) with profile ${ctx.profile.name}`,
  );

  let prepared: Prepared;
  try {
    prepared = await ctx.workspaces.prepare(claim);
    step(`Workspace: ${prepared.how}`);
  } catch (e) {
    step(`The workspace could not be prepared: ${(e as Error).message}`, 'error');
    return finish(claim, ctx, events, {
      status: 'failed',
      reason: 'workspace',
      exit_code: null,
      error: (e as Error).message,
      commit_sha: null,
      head_commit: run.head_commit,
    });
  }
  if (stopping() === 'handback') return handBack(claim, ctx, events);
  if (stopping() === 'lease_lost') return 'lease lost';

  const argv = turn.resume ? ctx.profile.resume : ctx.profile.command;
  const parser = new OutputParser(ctx.profile.format);
  step(`Agent: ${argv.join(' ')}`);
  const agent = runAgent({
    argv,
    cwd: prepared.dir,
    env: {
      ...ctx.profile.env,
      TRACELAKE_RUN_ID: run.id,
      TRACELAKE_TURN_INDEX: String(turn.index),
      TRACELAKE_ATTEMPT: String(turn.attempt),
      TRACELAKE_RESUME: turn.resume ? '1' : '0',
      TRACELAKE_AGENT_STATE: prepared.agentDir,
    },
    prompt: turn.prompt,
    timeoutMs: ctx.profile.timeoutSeconds * 1000,
    maxOutputBytes: ctx.profile.maxOutputBytes,
    maxLineChars: MAX_LINE_CHARS,
    onLine(stream, line) {
      if (stream === 'stderr') return events.push({ kind: 'stderr', text: line });
      for (const parsed of parser.line(line)) {
        if (parsed.kind === 'text') events.push({ kind: 'stdout', text: parsed.text });
        else events.push({ kind: 'agent', event: parsed.event });
      }
    },
    onUnguarded: (reason) => ctx.log.warn({ run_id: run.id, turn_index: turn.index, reason }, UNGUARDED),
  });
  started(agent);
  const exit = await agent.exited;
  if (exit.stoppedFor === 'lease_lost' || stopping() === 'lease_lost') {
    ctx.log.warn({ run_id: run.id, turn_index: turn.index }, 'the lease of this turn was lost: its work is dropped');
    return 'lease lost';
  }
  if (exit.stoppedFor === 'handback') return handBack(claim, ctx, events);
  const end = endOf(exit, ctx.profile);
  step(end.text, end.body.status === 'succeeded' ? 'info' : 'error');

  // Every turn that ran ends with a checkpoint of what it changed, whatever its outcome.
  let commit: string | null = null;
  let head = prepared.commit;
  try {
    commit = await ctx.workspaces.checkpoint(claim, prepared.dir);
    if (commit) head = commit;
    step(commit ? `Checkpoint ${commit} pushed to ${run.work_branch}` : 'Nothing changed: no checkpoint');
  } catch (e) {
    step(`The checkpoint failed: ${(e as Error).message}`, 'error');
    if (end.body.status === 'succeeded')
      return finish(claim, ctx, events, {
        status: 'failed',
        reason: 'checkpoint',
        exit_code: exit.code,
        error: (e as Error).message,
        commit_sha: null,
        head_commit: prepared.commit,
      });
  }
  return finish(claim, ctx, events, { ...end.body, commit_sha: commit, head_commit: head });
}

/** How an agent's exit reads as a turn's end. */
function endOf(
  exit: AgentExit,
  profile: AgentProfile,
): { text: string; body: Omit<CompleteBody, 'commit_sha' | 'head_commit'> } {
  const seconds = (exit.ms / 1000).toFixed(1);
  if (exit.spawnError !== null)
    return {
      text: `The agent could not be started: ${exit.spawnError}`,
      body: { status: 'failed', reason: 'spawn', exit_code: null, error: exit.spawnError },
    };
  if (exit.stoppedFor === 'cancelled')
    return {
      text: `Cancelled after ${seconds} s`,
      body: { status: 'cancelled', reason: 'cancelled', exit_code: exit.code, error: null },
    };
  if (exit.stoppedFor === 'timeout') {
    const error = `The agent ran past its timeout of ${profile.timeoutSeconds} s and was stopped`;
    return { text: error, body: { status: 'failed', reason: 'timeout', exit_code: exit.code, error } };
  }
  if (exit.stoppedFor === 'output_limit') {
    const error = `The agent printed more than ${profile.maxOutputBytes} bytes and was stopped`;
    return { text: error, body: { status: 'failed', reason: 'output_limit', exit_code: exit.code, error } };
  }
  if (exit.code === 0)
    return {
      text: `The agent exited with 0 after ${seconds} s`,
      body: { status: 'succeeded', reason: 'exit', exit_code: 0, error: null },
    };
  const how = exit.code === null ? `was killed by ${exit.signal ?? 'a signal'}` : `exited with ${exit.code}`;
  return {
    text: `The agent ${how} after ${seconds} s`,
    body: { status: 'failed', reason: 'exit', exit_code: exit.code, error: `The agent ${how}` },
  };
}

async function finish(
  claim: TurnClaim,
  ctx: TurnContext,
  events: EventStream,
  body: CompleteBody,
): Promise<TurnOutcome> {
  try {
    await events.flush();
    await ctx.gateway.complete(claim.lease_id, body);
    ctx.log.info(
      {
        run_id: claim.run.id,
        turn_index: claim.turn.index,
        status: body.status,
        reason: body.reason,
        commit: body.commit_sha,
      },
      'turn reported',
    );
    return 'reported';
  } catch (e) {
    if (e instanceof LeaseLost) return 'lease lost';
    throw e;
  }
}

async function handBack(claim: TurnClaim, ctx: TurnContext, events: EventStream): Promise<TurnOutcome> {
  try {
    events.push({ kind: 'step', text: 'The worker is stopping: the turn is handed back to the queue', level: 'info' });
    await events.flush();
    await ctx.gateway.release(claim.lease_id);
    ctx.log.info({ run_id: claim.run.id, turn_index: claim.turn.index }, 'turn handed back');
    return 'handed back';
  } catch (e) {
    if (e instanceof LeaseLost) return 'lease lost';
    throw e;
  }
}

/**
 * The turn's events, numbered and sent in order, a batch at a time: an event waits at most
 * BATCH_WAIT_MS for others to share its request. A failed batch is sent again (the gateway skips
 * the seqs it stored), so none is lost or doubled.
 */
export class EventStream {
  onCancel: () => void = () => undefined;
  onLost: () => void = () => undefined;
  private seq = 0;
  private pending: WorkerEventInput[] = [];
  private timer: NodeJS.Timeout | null = null;
  private sending: Promise<void> = Promise.resolve();
  private lost = false;

  constructor(
    private readonly gateway: GatewayClient,
    private readonly leaseId: string,
  ) {}

  push(e: {
    kind: WorkerEventInput['kind'];
    text?: string;
    level?: 'info' | 'error';
    event?: Record<string, unknown>;
  }): void {
    this.pending.push({
      seq: this.seq++,
      at: new Date().toISOString(),
      kind: e.kind,
      ...(e.text !== undefined ? { text: e.text } : {}),
      ...(e.level ? { level: e.level } : {}),
      ...(e.event ? { event: e.event } : {}),
    });
    if (this.pending.length >= BATCH_EVENTS) void this.send();
    else this.timer ??= setTimeout(() => void this.send(), BATCH_WAIT_MS);
  }

  /** Sends what is pending and waits for every batch to be stored. */
  async flush(): Promise<void> {
    await this.send();
    await this.sending;
    if (this.lost) throw new LeaseLost('lease lost while its events were sent');
  }

  private send(): Promise<void> {
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    const batch = this.pending.splice(0, this.pending.length);
    if (batch.length === 0) return this.sending;
    this.sending = this.sending.then(async () => {
      if (this.lost) return;
      for (let i = 0; i < batch.length; i += 1000) {
        try {
          const answer = await this.gateway.events(this.leaseId, batch.slice(i, i + 1000));
          if (answer.cancel) this.onCancel();
        } catch (e) {
          if (e instanceof LeaseLost) {
            this.lost = true;
            this.onLost();
            return;
          }
          // Given up after the client's retries: these events are not in the thread (the turn goes on).
          process.emitWarning(`worker events could not be sent: ${(e as Error).message}`);
        }
      }
    });
    return this.sending;
  }
}
