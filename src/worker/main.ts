/**
 * `tracelake worker`: runs up to `--concurrency` turns at once, each slot long-polling the gateway
 * for a turn of the profiles it serves (or, with `--eval-command`, an eval run: worker/evalRun.ts),
 * running it (worker/turn.ts) and asking again. A stop
 * (SIGTERM, SIGINT) ends the claims at once, lets running turns finish for `--grace-seconds`, then
 * hands them back to the queue, so another worker takes them and no turn is lost.
 */
import { resolve } from 'node:path';
import type { AgentProfile } from '../core/workers/profiles.js';
import type { WorkerOptions } from '../core/workers/workerArgs.js';
import { LocalGitProvider } from '../git/local.js';
import { GatewayClient, GatewayError } from './client.js';
import type { EvalClaim } from '../store/workers/evalLeases.js';
import type { TurnClaim } from '../store/workers/leases.js';
import { startEvalRun, type RunningEval } from './evalRun.js';
import { startTurn, type RunningTurn, type TurnLog } from './turn.js';
import { Workspaces } from './workspace.js';

export interface WorkerIo {
  /** One JSON line per thing that happened (stdout). */
  log(level: 'info' | 'warn' | 'error', fields: Record<string, unknown>, msg: string): void;
}

/** Pause before claiming again after the gateway could not be reached or refused. */
const CLAIM_BACKOFF_MS = 2000;

export async function runWorker(
  o: WorkerOptions,
  profiles: Record<string, AgentProfile>,
  io: WorkerIo,
  stop: AbortSignal,
): Promise<void> {
  const gateway = new GatewayClient({ url: o.url, key: o.key, appId: o.appId });
  const git = new LocalGitProvider(resolve(o.gitRoot));
  const workspaces = new Workspaces(resolve(o.workDir), git);
  const log: TurnLog = { info: (f, m) => io.log('info', f, m), warn: (f, m) => io.log('warn', f, m) };
  const names = Object.keys(profiles);
  const running = new Set<RunningTurn | RunningEval>();
  const claims = new AbortController();
  let fatal: Error | null = null;

  const onStop = () => {
    claims.abort();
    io.log(
      'info',
      { running: running.size, grace_seconds: o.graceSeconds },
      'stopping: no more claims; running turns finish or are handed back',
    );
    const timer = setTimeout(() => {
      for (const turn of running) turn.handBack();
    }, o.graceSeconds * 1000);
    timer.unref();
  };
  if (stop.aborted) return;
  stop.addEventListener('abort', onStop, { once: true });

  io.log(
    'info',
    {
      worker: o.name,
      url: o.url,
      profiles: names,
      concurrency: o.concurrency,
      work_dir: resolve(o.workDir),
      evals: o.evalCommand !== null,
    },
    'worker started',
  );
  const runEvalClaim = async (claim: EvalClaim) => {
    const run = claim.eval_run;
    io.log('info', { eval_run_id: run.id, experiment: run.experiment, suite: run.suite }, 'eval run claimed');
    const evalRun = startEvalRun(claim, {
      gateway,
      git,
      workDir: resolve(o.workDir),
      command: o.evalCommand!,
      timeoutSeconds: o.evalTimeoutSeconds,
      maxOutputBytes: o.evalMaxOutputBytes,
      url: o.url,
      appId: o.appId,
      log,
    });
    running.add(evalRun);
    try {
      const outcome = await evalRun.done;
      if (outcome !== 'reported') io.log('info', { eval_run_id: run.id, outcome }, `eval run ${outcome}`);
    } catch (e) {
      io.log(
        'error',
        { eval_run_id: run.id, err: (e as Error).message },
        'the eval run could not be reported: its lease will expire and it will fail',
      );
    } finally {
      running.delete(evalRun);
    }
  };
  const slot = async () => {
    while (!claims.signal.aborted && fatal === null) {
      let claim: TurnClaim | EvalClaim | null;
      try {
        claim = await gateway.claim(o.name, names, o.pollSeconds, claims.signal, o.evalCommand !== null);
      } catch (e) {
        if (claims.signal.aborted) return;
        if (e instanceof GatewayError && (e.status === 401 || e.status === 403)) {
          fatal = new Error(`the server refused this worker's key: ${e.message}`);
          claims.abort();
          return;
        }
        io.log('warn', { err: (e as Error).message }, 'could not claim work; trying again');
        await new Promise((r) => setTimeout(r, CLAIM_BACKOFF_MS));
        continue;
      }
      if (!claim) continue;
      if (claim.kind === 'eval') {
        await runEvalClaim(claim);
        continue;
      }
      const profile = profiles[claim.run.profile]!;
      io.log(
        'info',
        { run_id: claim.run.id, turn_index: claim.turn.index, attempt: claim.turn.attempt, profile: profile.name },
        'turn claimed',
      );
      const turn = startTurn(claim, { gateway, workspaces, profile, log });
      running.add(turn);
      try {
        const outcome = await turn.done;
        if (outcome !== 'reported')
          io.log('info', { run_id: claim.run.id, turn_index: claim.turn.index, outcome }, `turn ${outcome}`);
      } catch (e) {
        io.log(
          'error',
          { run_id: claim.run.id, turn_index: claim.turn.index, err: (e as Error).message },
          'the turn could not be reported: its lease will expire and it will be tried again',
        );
      } finally {
        running.delete(turn);
      }
    }
  };
  await Promise.all(Array.from({ length: o.concurrency }, slot));
  stop.removeEventListener('abort', onStop);
  if (fatal) throw fatal;
  io.log('info', {}, 'worker stopped');
}
