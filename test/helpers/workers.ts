/**
 * What the worker tests need: a fake coding agent (a small Node script), real `tracelake worker`
 * processes, and a reader of a run's live stream (server-sent events) to wait on.
 *
 * The fake agent reads its prompt from stdin and acts on words in it:
 *   (any)          writes `notes/turn-<index>.md` holding the prompt, prints a text line, a stderr
 *                  line, an assistant message (gpt-4o, with usage), a tool call and its result;
 *                  a resumed turn first says how many earlier prompts its conversation holds
 *                  (kept in $TRACELAKE_AGENT_STATE, as a real agent keeps its own)
 *   FAIL           exits with 3 after writing its file
 *   HOLD <path>    starts a child that sleeps (its pid in $TRACELAKE_AGENT_STATE/child-pid, beside
 *                  the agent's own), prints `holding`, then waits until <path> exists
 *   FLOOD          prints 1 MiB of lines
 *   TICK <n>       prints `tick <i>` n times, 150 ms apart, before the usual work
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import type { Credentials, TestServer } from './server.js';
import { unhooked } from './unhooked.js';

const CLI = new URL('../../src/cli.js', import.meta.url).pathname;

const FAKE_AGENT = `
import { spawn } from 'node:child_process';
import { appendFileSync, existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
const chunks = [];
for await (const c of process.stdin) chunks.push(c);
const prompt = Buffer.concat(chunks).toString('utf8');
const turn = process.env.TRACELAKE_TURN_INDEX;
const state = process.env.TRACELAKE_AGENT_STATE;
writeFileSync(join(state, 'pid'), String(process.pid));
const conversation = join(state, 'conversation.txt');
const earlier = existsSync(conversation) ? readFileSync(conversation, 'utf8').split('\\n').filter(Boolean).length : 0;
if (process.env.TRACELAKE_RESUME === '1') console.log('resuming a conversation of ' + earlier + ' earlier prompts');
appendFileSync(conversation, prompt.split('\\n')[0] + '\\n');
const event = (e) => console.log(JSON.stringify(e));
const tick = /TICK (\\d+)/.exec(prompt);
if (tick) for (let i = 1; i <= Number(tick[1]); i++) { console.log('tick ' + i); await new Promise((r) => setTimeout(r, 150)); }
if (prompt.includes('FLOOD')) { const line = 'x'.repeat(1023); for (let i = 0; i < 1024; i++) console.log(line); }
const hold = /HOLD (\\S+)/.exec(prompt);
if (hold) {
  // A child of its own, as real agents start shells and tools: stopping the agent must stop it too.
  const sleeper = spawn(process.execPath, ['-e', 'setInterval(() => {}, 1000)'], { stdio: 'ignore' });
  writeFileSync(join(state, 'child-pid'), String(sleeper.pid));
  console.log('holding');
  await new Promise((resolve) => {
    const t = setInterval(() => {
      if (existsSync(hold[1])) { clearInterval(t); resolve(); }
    }, 50);
  });
  sleeper.kill();
}
console.log('working on turn ' + turn);
console.error('a line on stderr');
event({ type: 'assistant_message', model: 'gpt-4o', content: [{ type: 'text', text: 'I will write the note for turn ' + turn + '.' }], usage: { inputTokens: 1200, outputTokens: 300 } });
event({ type: 'tool_call', callId: 'call-1', name: 'Write', input: { file_path: 'notes/turn-' + turn + '.md' } });
mkdirSync('notes', { recursive: true });
writeFileSync(join('notes', 'turn-' + turn + '.md'), prompt);
event({ type: 'tool_result', callId: 'call-1', content: [{ type: 'text', text: 'written' }] });
event({ type: 'assistant_message', model: 'gpt-4o', content: [{ type: 'text', text: 'Done.' }], usage: { inputTokens: 1600, outputTokens: 50 } });
if (prompt.includes('FAIL')) { console.error('failing on purpose'); process.exit(3); }
`;

/** Writes the fake agent and a profiles file naming it (`fake`, and `fake-short`: 2 s, 4 KiB of output). */
export function fakeAgentProfiles(dir: string): string {
  const agent = join(dir, 'fake-agent.mjs');
  writeFileSync(agent, FAKE_AGENT);
  const command = [process.execPath, agent];
  const profiles = join(dir, 'profiles.json');
  writeFileSync(
    profiles,
    JSON.stringify({
      profiles: {
        fake: { command, format: 'events', timeout_seconds: 120 },
        'fake-short': { command, format: 'events', timeout_seconds: 2, max_output_bytes: 4096 },
      },
    }),
  );
  return profiles;
}

/**
 * Whether process `pid` runs. A zombie (ended, not yet reaped) does not: an orphan's new parent
 * may be slow to reap it, or never do. Linux: reads /proc.
 */
export function running(pid: number): boolean {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    // The state follows the command's closing parenthesis and a space.
    return stat[stat.lastIndexOf(')') + 2] !== 'Z';
  } catch {
    return false;
  }
}

/**
 * The pids the fake agent of run `runId` wrote in its state directory under a worker's `workDir`:
 * its own, and (once it holds) its child's.
 */
export function agentPids(workDir: string, runId: string): { agent: number; child: number } {
  const state = join(workDir, 'runs', runId, 'agent');
  return {
    agent: Number(readFileSync(join(state, 'pid'), 'utf8')),
    child: Number(readFileSync(join(state, 'child-pid'), 'utf8')),
  };
}

export interface LogLine {
  level: string;
  msg: string;
  [k: string]: unknown;
}

export interface TestWorker {
  child: ChildProcess;
  logs: LogLine[];
  stderr(): string;
  waitForLog(match: (l: LogLine) => boolean, ms?: number): Promise<LogLine>;
  /** Resolves with the exit code (null after a signal). */
  exited: Promise<number | null>;
}

const workers = new Set<ChildProcess>();
process.on('exit', () => {
  for (const w of workers) w.kill('SIGKILL');
});

export function startWorker(
  server: TestServer,
  key: Credentials,
  o: {
    name: string;
    gitRoot: string;
    profiles: string;
    workDir: string;
    args?: string[];
    env?: Record<string, string>;
  },
): TestWorker {
  const child = spawn(
    ...unhooked(process.execPath, [
      CLI,
      'worker',
      '--url',
      server.url,
      '--key',
      key.key,
      '--app',
      key.appId,
      '--git-root',
      o.gitRoot,
      '--profiles',
      o.profiles,
      '--work-dir',
      o.workDir,
      '--name',
      o.name,
      '--poll-seconds',
      '5',
      ...(o.args ?? []),
    ]),
    { stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env, TRACELAKE_API_KEY: '', TRACELAKE_URL: '', ...o.env } },
  );
  workers.add(child);
  const logs: LogLine[] = [];
  const waiters = new Set<(l: LogLine) => void>();
  let stderr = '';
  child.stderr!.on('data', (d: Buffer) => (stderr += d.toString()));
  createInterface({ input: child.stdout! }).on('line', (line) => {
    let entry: LogLine;
    try {
      entry = JSON.parse(line) as LogLine;
    } catch {
      return;
    }
    logs.push(entry);
    for (const w of waiters) w(entry);
  });
  const exited = new Promise<number | null>((resolve) =>
    child.on('close', (code) => {
      workers.delete(child);
      resolve(code);
    }),
  );
  return {
    child,
    logs,
    stderr: () => stderr,
    exited,
    waitForLog(match, ms = 30_000) {
      const seen = logs.find(match);
      if (seen) return Promise.resolve(seen);
      return new Promise((resolve, reject) => {
        const timer = setTimeout(() => {
          waiters.delete(wake);
          reject(new Error(`worker ${o.name}: no matching log line in ${ms} ms; stderr: ${stderr}`));
        }, ms);
        const wake = (l: LogLine) => {
          if (!match(l)) return;
          clearTimeout(timer);
          waiters.delete(wake);
          resolve(l);
        };
        waiters.add(wake);
      });
    },
  };
}

export interface RunWatch {
  /** Resolves with the first `run` event `match` accepts (the run as it stands, turns included). */
  untilRun(match: (run: any) => boolean, ms?: number): Promise<any>;
  /** Resolves once an event `match` accepts has arrived. */
  untilEvent(match: (event: any) => boolean, ms?: number): Promise<any>;
  events: any[];
  runs: any[];
  close(): void;
}

/** Opens a run's live stream (`GET /v1/workers/runs/{id}/stream`) and keeps what it says. */
export async function watchRun(server: TestServer, auth: Credentials, runId: string): Promise<RunWatch> {
  const abort = new AbortController();
  const res = await fetch(`${server.url}/v1/workers/runs/${runId}/stream`, {
    headers: { authorization: `Bearer ${auth.key}`, 'x-service-app-id': auth.appId },
    signal: abort.signal,
  });
  if (res.status !== 200) throw new Error(`stream: ${res.status} ${await res.text()}`);
  const events: any[] = [];
  const runs: any[] = [];
  const waiters = new Set<() => void>();
  void (async () => {
    const reader = res.body!.getReader();
    const decoder = new TextDecoder();
    let buffer = '';
    try {
      for (;;) {
        const { value, done } = await reader.read();
        if (done) break;
        buffer += decoder.decode(value, { stream: true });
        let end: number;
        while ((end = buffer.indexOf('\n\n')) >= 0) {
          const block = buffer.slice(0, end);
          buffer = buffer.slice(end + 2);
          const name = /^event: (.*)$/m.exec(block)?.[1];
          const data = /^data: (.*)$/m.exec(block)?.[1];
          if (!name || data === undefined) continue;
          if (name === 'events') events.push(...JSON.parse(data));
          if (name === 'run') runs.push(JSON.parse(data));
          for (const w of waiters) w();
        }
      }
    } catch {
      // closed
    }
  })();
  const until = <T>(find: () => T | undefined, what: string, ms: number) => {
    const now = find();
    if (now !== undefined) return Promise.resolve(now);
    return new Promise<T>((resolve, reject) => {
      const timer = setTimeout(() => {
        waiters.delete(wake);
        reject(
          new Error(`run ${runId}: no ${what} in ${ms} ms; last run: ${JSON.stringify(runs.at(-1))?.slice(0, 2000)}`),
        );
      }, ms);
      const wake = () => {
        const found = find();
        if (found === undefined) return;
        clearTimeout(timer);
        waiters.delete(wake);
        resolve(found);
      };
      waiters.add(wake);
    });
  };
  return {
    events,
    runs,
    untilRun: (match, ms = 60_000) => until(() => [...runs].reverse().find(match), 'matching run', ms),
    untilEvent: (match, ms = 60_000) => until(() => events.find(match), 'matching event', ms),
    close: () => abort.abort(),
  };
}
