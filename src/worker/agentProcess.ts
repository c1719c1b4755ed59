/**
 * Runs an agent command for one turn: the prompt on its stdin, the workspace as its working
 * directory, stdout and stderr split into lines as they come. The agent gets a process group of its
 * own, so stopping it (timeout, output cap, cancel, a worker stopping) stops what it started too:
 * SIGTERM to the group, SIGKILL after a grace. A guard stops the group the same way if the worker
 * dies without doing it (`guardGroup`).
 */
import { spawn } from 'node:child_process';
import type { Socket } from 'node:net';
import { LineSplitter } from '../core/workers/output.js';

export type StopReason = 'timeout' | 'output_limit' | 'cancelled' | 'handback' | 'lease_lost';

export interface AgentExit {
  /** The exit code; null when a signal ended it or it never started. */
  code: number | null;
  signal: string | null;
  /** Why the worker stopped it; null when it ended on its own. */
  stoppedFor: StopReason | null;
  /** It could not be started (e.g. the program is not installed). */
  spawnError: string | null;
  outputBytes: number;
  ms: number;
}

export interface AgentRun {
  pid: number | undefined;
  /** Stops the agent; the first reason given is the one reported. */
  stop(reason: StopReason): void;
  exited: Promise<AgentExit>;
}

export interface AgentSpec {
  argv: string[];
  cwd: string;
  env: Record<string, string>;
  prompt: string;
  timeoutMs: number;
  maxOutputBytes: number;
  /** Longest line kept; a longer one is cut into pieces. */
  maxLineChars: number;
  onLine(stream: 'stdout' | 'stderr', line: string): void;
  /** The guard could not be started (no `sh`): the agent runs, but nothing stops it if the worker dies. */
  onUnguarded?(reason: string): void;
}

/** What a worker logs when an agent's guard could not be started (`AgentSpec.onUnguarded`). */
export const UNGUARDED =
  'the agent runs without its guard (is sh installed?): if this worker dies, nothing stops the agent';

/** How long a stopped agent has between SIGTERM and SIGKILL. */
const KILL_GRACE_MS = 3000;

export function runAgent(spec: AgentSpec): AgentRun {
  const started = performance.now();
  const [program, ...args] = spec.argv;
  const child = spawn(program!, args, {
    cwd: spec.cwd,
    env: { ...process.env, ...spec.env },
    stdio: ['pipe', 'pipe', 'pipe'],
    detached: true,
  });
  const guard = child.pid === undefined ? null : guardGroup(child.pid, (reason) => spec.onUnguarded?.(reason));
  let stoppedFor: StopReason | null = null;
  let spawnError: string | null = null;
  let outputBytes = 0;
  let killTimer: NodeJS.Timeout | null = null;

  const signalGroup = (signal: NodeJS.Signals) => {
    if (child.pid === undefined) return;
    try {
      process.kill(-child.pid, signal);
    } catch {
      // the group is gone already
    }
  };
  const stop = (reason: StopReason) => {
    if (stoppedFor !== null || child.exitCode !== null || child.signalCode !== null) return;
    stoppedFor = reason;
    signalGroup('SIGTERM');
    killTimer = setTimeout(() => signalGroup('SIGKILL'), KILL_GRACE_MS);
  };
  const timeout = setTimeout(() => stop('timeout'), spec.timeoutMs);

  const read = (stream: 'stdout' | 'stderr') => {
    const splitter = new LineSplitter(spec.maxLineChars);
    const source = child[stream]!;
    source.on('data', (chunk: Buffer) => {
      if (stoppedFor === 'output_limit') return;
      outputBytes += chunk.byteLength;
      if (outputBytes > spec.maxOutputBytes) {
        // What fits under the cap is kept; the rest, and everything after, is not.
        const room = chunk.byteLength - (outputBytes - spec.maxOutputBytes);
        for (const line of splitter.push(chunk.subarray(0, Math.max(0, room)))) spec.onLine(stream, line);
        stop('output_limit');
        return;
      }
      for (const line of splitter.push(chunk)) spec.onLine(stream, line);
    });
    return new Promise<void>((resolve) =>
      source.on('close', () => {
        for (const line of splitter.end()) spec.onLine(stream, line);
        resolve();
      }),
    );
  };
  const streams = Promise.all([read('stdout'), read('stderr')]);
  // An agent that does not read its stdin (or exits early) must not fail the turn with EPIPE.
  child.stdin!.on('error', () => undefined);
  child.stdin!.end(spec.prompt);

  const exited = new Promise<AgentExit>((resolve) => {
    let settled = false;
    const finish = (code: number | null, signal: string | null) => {
      if (settled) return;
      settled = true;
      clearTimeout(timeout);
      if (killTimer) clearTimeout(killTimer);
      // Whatever the agent started is stopped with it.
      signalGroup('SIGKILL');
      guard?.dismiss();
      resolve({ code, signal, stoppedFor, spawnError, outputBytes, ms: performance.now() - started });
    };
    child.on('error', (e) => {
      spawnError = e.message;
      finish(null, null);
    });
    child.on('exit', (code, signal) => {
      // The pipes may hold the last lines: wait for them (bounded: a grandchild may keep them open).
      const drained = setTimeout(() => finish(code, signal), KILL_GRACE_MS);
      void streams.then(() => {
        clearTimeout(drained);
        finish(code, signal);
      });
    });
  });
  return { pid: child.pid, stop, exited };
}

/**
 * Stops process group `pgid` (SIGTERM, SIGKILL after the grace) if this process dies first — killed
 * with SIGKILL, or crashed — so an agent never runs on unsupervised, spending tokens on work the
 * next attempt discards. A `sh` waits on a pipe only this process holds open; the kernel closes it
 * when this process ends, however it ends, and the wait returns. Dismissed (killed) once the agent
 * has ended, before its group id can be reused. Without a `sh` the agent runs unguarded, as it
 * did before the guard, and `unguarded` is told why.
 */
function guardGroup(pgid: number, unguarded: (reason: string) => void): { dismiss(): void } {
  // dash takes `kill -TERM -<pgid>` (not `kill -s TERM` nor `--` before a group); bash takes both.
  const script = 'read -r _; kill -TERM "-$1" 2>/dev/null; sleep "$2"; kill -KILL "-$1" 2>/dev/null';
  const guard = spawn('sh', ['-c', script, 'tracelake-agent-guard', String(pgid), String(KILL_GRACE_MS / 1000)], {
    stdio: ['pipe', 'ignore', 'ignore'],
    // Its own group: a Ctrl-C meant for the worker does not end the guard first.
    detached: true,
  });
  guard.on('error', (e) => unguarded(e.message));
  guard.stdin?.on('error', () => undefined);
  // The worker's event loop does not wait on its guards.
  guard.unref();
  (guard.stdin as Socket | null)?.unref();
  return {
    dismiss() {
      guard.kill('SIGKILL');
      guard.stdin?.destroy();
    },
  };
}
