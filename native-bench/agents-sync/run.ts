/**
 * `tracelake agents sync` over a directory of 1,000 sessions (default; `--sessions N`): 80% Claude
 * Code sessions (each with a sub-agent file, images, tool calls) and 20% Codex rollouts, made from
 * the test fixtures with fresh ids. Measures sessions/s and events/s through the command and a real
 * server (read, convert, scrub, send, map, store, commit), against a reference in the same run: the
 * same files read and converted by the readers alone, in this process. The server logs the steps of
 * each sync request at debug level (prepare: check, clamp, scrub; the store's known spans; the
 * worker: map, admission, log fsync; the wait until committed): their sums are printed too.
 * `--cpu-prof DIR` writes the server's CPU profiles (main thread and workers) there.
 *
 *   npm run build && node dist/native-bench/agents-sync/run.js [--sessions 1000] [--cpu-prof DIR]
 */
import { execFile } from 'node:child_process';
import { mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { readClaudeCode } from '../../src/core/agents/readers/claudeCode.js';
import { readCodex } from '../../src/core/agents/readers/codex.js';
import { rootCredentials, startServer, tempDir } from '../../test/helpers/server.js';

const ROOT = new URL('../../../', import.meta.url).pathname;
const FIXTURES = join(ROOT, 'test/fixtures/agents');
const CLI = new URL('../../src/cli.js', import.meta.url).pathname;
const SHOP = '3f2a9c1e-7b4d-4e21-9a0c-5d8e6f1b2c34';
const CODEX = '019a9f3e-5c2b-7d10-a4e6-3b8c9d0e1f2a';

const flag = (name: string) => {
  const at = process.argv.indexOf(name);
  return at > 0 ? process.argv[at + 1] : undefined;
};
const sessions = Number(flag('--sessions') ?? 1000);
const profileDir = flag('--cpu-prof');

const main = readFileSync(join(FIXTURES, `claude/projects/-home-dev-shop/${SHOP}.jsonl`), 'utf8');
const side = readFileSync(join(FIXTURES, 'claude/projects/-home-dev-shop/agent-a1b2c3d4.jsonl'), 'utf8');
const rollout = readFileSync(
  join(FIXTURES, `codex/sessions/2025/11/20/rollout-2025-11-20T10-15-02-${CODEX}.jsonl`),
  'utf8',
);

/** A copy of a fixture with every id made unique to copy `i`. */
function fresh(text: string, i: number): string {
  const hex = i.toString(16).padStart(8, '0');
  return text
    .replaceAll(SHOP, `${hex}-7b4d-4e21-9a0c-5d8e6f1b2c34`)
    .replaceAll(CODEX, `${hex}-5c2b-7d10-a4e6-3b8c9d0e1f2a`)
    .replaceAll('c0000000-0000-4000-8000-', `c${hex.slice(1)}-0000-4000-8000-`)
    .replaceAll('d0000000-0000-4000-8000-', `d${hex.slice(1)}-0000-4000-8000-`)
    .replaceAll('msg_01', `msg_${hex}_`)
    .replaceAll('req_011', `req_${hex}_`)
    .replaceAll('a1b2c3d4', `a${hex.slice(1)}`);
}

const home = tempDir('tracelake-bench-agents-');
const claudeN = Math.round(sessions * 0.8);
for (let i = 0; i < sessions; i++) {
  if (i < claudeN) {
    const dir = join(home, '.claude/projects', `-home-dev-project-${Math.floor(i / 20)}`);
    mkdirSync(dir, { recursive: true });
    writeFileSync(join(dir, `${fresh(SHOP, i)}.jsonl`), fresh(main, i));
    writeFileSync(join(dir, `agent-a${i.toString(16).padStart(8, '0').slice(1)}.jsonl`), fresh(side, i));
  } else {
    const dir = join(home, '.codex/sessions/2025/11/20');
    mkdirSync(dir, { recursive: true });
    writeFileSync(join(dir, `rollout-2025-11-20T10-15-02-${fresh(CODEX, i)}.jsonl`), fresh(rollout, i));
  }
}

// Reference: the readers alone over the same files.
const t0 = performance.now();
const { readdirSync } = await import('node:fs');
const files = readdirSync(home, { recursive: true, withFileTypes: true })
  .filter((e) => e.isFile() && e.name.endsWith('.jsonl'))
  .map((e) => join(e.parentPath, e.name));
const text = (f: string) => ({ path: f, text: readFileSync(f, 'utf8') });
const claude = readClaudeCode(files.filter((f) => !f.includes('rollout-')).map(text));
const codex = readCodex(files.filter((f) => f.includes('rollout-')).map(text));
const readMs = performance.now() - t0;
const read = [...claude.sessions, ...codex.sessions];
const events = read.reduce((n, s) => n + s.events.length, 0);

const server = await startServer({
  env: { TRACELAKE_LOG_LEVEL: 'debug' },
  ...(profileDir
    ? {
        command: [
          process.execPath,
          '--cpu-prof',
          `--cpu-prof-dir=${profileDir}`,
          new URL('../../src/main.js', import.meta.url).pathname,
        ],
      }
    : {}),
});
const auth = rootCredentials(server);
const t1 = performance.now();
const out = await new Promise<string>((resolve, reject) =>
  execFile(
    process.execPath,
    [
      CLI,
      'agents',
      'sync',
      '--claude-dir',
      join(home, '.claude'),
      '--codex-dir',
      join(home, '.codex'),
      '--state',
      join(home, 'state.json'),
      '--no-progress',
    ],
    {
      env: { ...process.env, TRACELAKE_URL: server.url, TRACELAKE_API_KEY: auth.key, TRACELAKE_APP_ID: auth.appId },
      maxBuffer: 1 << 26,
    },
    (e, stdout, stderr) => (e ? reject(new Error(stderr)) : resolve(stdout)),
  ),
);
const syncMs = performance.now() - t1;
const summary = JSON.parse(out);
const t2 = performance.now();
const again = JSON.parse(
  await new Promise<string>((resolve, reject) =>
    execFile(
      process.execPath,
      [
        CLI,
        'agents',
        'sync',
        '--claude-dir',
        join(home, '.claude'),
        '--codex-dir',
        join(home, '.codex'),
        '--state',
        join(home, 'state.json'),
        '--no-progress',
      ],
      { env: { ...process.env, TRACELAKE_URL: server.url, TRACELAKE_API_KEY: auth.key, TRACELAKE_APP_ID: auth.appId } },
      (e, stdout, stderr) => (e ? reject(new Error(stderr)) : resolve(stdout)),
    ),
  ),
);
const noopMs = performance.now() - t2;
const steps = server.logs.filter((l) => l.msg === 'agents sync steps');
const stepMs = (key: string) => Math.round(steps.reduce((n, l) => n + (l[key] as number), 0));
// SIGTERM: the server drains and exits, which is when it writes its CPU profiles.
await server.stop('SIGTERM');
rmSync(server.dataDir, { recursive: true, force: true });
rmSync(home, { recursive: true, force: true });

const rate = (n: number, ms: number) => Math.round((n / ms) * 1000);
console.log(
  JSON.stringify(
    {
      sessions: read.length,
      events,
      reference_read_convert: {
        ms: Math.round(readMs),
        sessions_per_s: rate(read.length, readMs),
        events_per_s: rate(events, readMs),
      },
      sync_through_server: {
        ms: Math.round(syncMs),
        sessions_per_s: rate(summary.sessions.accepted, syncMs),
        events_per_s: rate(summary.events, syncMs),
        requests: summary.requests,
        span_rows: summary.spanRows,
        mb_sent: +(summary.bytes / 1e6).toFixed(1),
        rejected: summary.sessions.rejected,
      },
      ratio_sync_to_reference: +(readMs / syncMs).toFixed(3),
      server_steps_ms: {
        requests: steps.length,
        prepare: stepMs('prepareMs'),
        known_spans: stepMs('knownMs'),
        ack: stepMs('ackMs'),
        visible_wait: stepMs('visibleWaitMs'),
      },
      second_run_nothing_changed: { ms: Math.round(noopMs), sent: again.sessions.sent },
    },
    null,
    2,
  ),
);
