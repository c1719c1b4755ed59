/**
 * End to end: `tracelake agents sync` reads realistic Claude Code and Codex transcripts (fixtures:
 * tool use, a sub-agent file, images, cache tokens, a compaction, a malformed, an unknown and a
 * truncated line; a Codex rollout with function calls and token counts) and sends them to a real
 * server; the sessions are read back as sessions, traces and spans. Token totals per session and
 * per model equal ccusage's for the same files (run here as the reference). Syncing twice stores
 * nothing new; appended events store exactly their spans; --watch follows growing files.
 */
import { execFile, spawn } from 'node:child_process';
import { appendFileSync, cpSync, mkdirSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import t from 'tap';
import { call, rootCredentials, serverFor, tempDir, type Credentials, type TestServer } from '../helpers/server.js';
import { unhooked } from '../helpers/unhooked.js';

const CLI = new URL('../../src/cli.js', import.meta.url).pathname;
const FIXTURES = new URL('../../../test/fixtures/agents/', import.meta.url).pathname;
const ROOT = new URL('../../../', import.meta.url).pathname;
const SHOP = '3f2a9c1e-7b4d-4e21-9a0c-5d8e6f1b2c34';
const API = '8c1d2e3f-4a5b-4c6d-8e9f-0a1b2c3d4e5f';
const CODEX = '019a9f3e-5c2b-7d10-a4e6-3b8c9d0e1f2a';
const CODEX_FILE = `codex/sessions/2025/11/20/rollout-2025-11-20T10-15-02-${CODEX}.jsonl`;
const WINDOW = 'start_date=2025-11-01T00:00:00Z&end_date=2025-12-01T00:00:00Z';

interface Run {
  code: number;
  stdout: string;
  stderr: string;
  json: any;
}

function run(file: string, args: string[], env: Record<string, string> = {}): Promise<Run> {
  return new Promise((resolve) => {
    execFile(
      ...unhooked(process.execPath, [file, ...args]),
      { env: { ...process.env, ...env }, maxBuffer: 64 * 1024 * 1024 },
      (error, stdout, stderr) => {
        let json: unknown;
        try {
          json = JSON.parse(stdout);
        } catch {
          json = undefined;
        }
        resolve({ code: error ? Number(error.code) : 0, stdout, stderr, json });
      },
    );
  });
}

/** A home directory with the fixtures where the agents keep them. */
function home(): string {
  const dir = tempDir('tracelake-agents-');
  cpSync(join(FIXTURES, 'claude'), join(dir, '.claude'), { recursive: true });
  cpSync(join(FIXTURES, 'codex'), join(dir, '.codex'), { recursive: true });
  return dir;
}

function sync(server: TestServer, auth: Credentials, dir: string, ...extra: string[]): Promise<Run> {
  return run(
    CLI,
    [
      'agents',
      'sync',
      '--claude-dir',
      join(dir, '.claude'),
      '--codex-dir',
      join(dir, '.codex'),
      '--state',
      join(dir, 'state.json'),
      ...extra,
    ],
    {
      TRACELAKE_URL: server.url,
      TRACELAKE_API_KEY: auth.key,
      TRACELAKE_APP_ID: auth.appId,
    },
  );
}

async function traceOf(server: TestServer, auth: Credentials, sessionId: string) {
  const traces = await call(server, 'GET', `/v1/sessions/${sessionId}/traces`, { auth });
  if (traces.status !== 200 || traces.body.data.length !== 1) throw new Error(`session ${sessionId}: ${traces.text}`);
  const trace = await call(server, 'GET', `/v1/traces/${traces.body.data[0].id}`, { auth });
  return trace.body.data;
}

interface Tokens {
  input: number;
  output: number;
  cacheRead: number;
  cacheCreation: number;
}

/** Token counts of a trace's generations by model, as stored (cache writes from the span attributes). */
async function storedTokens(server: TestServer, auth: Credentials, trace: any): Promise<Record<string, Tokens>> {
  const out: Record<string, Tokens> = {};
  for (const s of trace.spans.filter((s: { type: string }) => s.type === 'GENERATION')) {
    const detail = (await call(server, 'GET', `/v1/traces/${trace.id}/spans/${s.id}`, { auth })).body.data;
    const m = (out[s.model] ??= { input: 0, output: 0, cacheRead: 0, cacheCreation: 0 });
    m.input += s.input_tokens;
    m.output += s.output_tokens;
    m.cacheRead += s.cached_input_tokens;
    m.cacheCreation += detail.attributes['gen_ai.usage.cache_creation_input_tokens'];
  }
  return out;
}

t.test("a sync from the agents' directories, read back and checked against ccusage", async (t) => {
  const server = await serverFor(t);
  const auth = rootCredentials(server);
  const dir = home();
  t.teardown(() => rmSync(dir, { recursive: true, force: true }));

  const first = await sync(server, auth, dir);
  t.equal(first.code, 0, first.stderr);
  t.match(first.json, {
    files: 4,
    sessions: { found: 3, sent: 3, accepted: 3, rejected: 0 },
    tenantTier: 'full',
    rejected: [],
  });
  t.same(
    first.json.skippedLines,
    { unknown: 1, malformed: 1, truncated: 1 },
    'unknown, malformed and truncated lines are skipped and counted',
  );
  t.equal(first.json.blobsStored, 2, 'the two images');
  t.ok(first.json.spanRows > 20);

  const sessions = await call(server, 'GET', `/v1/sessions?${WINDOW}`, { auth });
  t.same(sessions.body.data.map((s: { id: string }) => s.id).sort(), [API, CODEX, SHOP].sort());

  // The Claude Code session: the trace's shape.
  const shop = await traceOf(server, auth, SHOP);
  t.match(shop, {
    name: 'Fix rounding in cart totals',
    session_id: SHOP,
    metadata: { agent: 'claude-code', agent_version: '2.0.42', cwd: '/home/dev/shop', git_branch: 'feature/prices' },
  });
  const spans = shop.spans as any[];
  const byId = new Map(spans.map((s) => [s.id, s]));
  const root = spans.find((s) => s.parent_id === null);
  t.match(root, { type: 'SPAN', span_kind: 'agent', service_name: 'claude-code' });
  t.equal(
    spans.filter((s) => s.type === 'GENERATION').length,
    7,
    'one generation per API response, however many lines it was written in',
  );
  t.same(
    spans
      .filter((s) => s.span_kind === 'tool')
      .map((s) => s.name)
      .sort(),
    ['Bash', 'Edit', 'Grep', 'Read', 'Task'],
  );
  const task = spans.find((s) => s.name === 'Task');
  const subagent = spans.find((s) => s.span_kind === 'agent' && s.parent_id !== null);
  t.equal(subagent.parent_id, task.id, 'the sub-agent is a child of the Task call that launched it');
  t.same(
    spans.filter((s) => s.parent_id === subagent.id && s.type === 'GENERATION').map((s) => s.model),
    ['claude-haiku-4-5-20251001', 'claude-haiku-4-5-20251001'],
    'its generations beneath it',
  );
  t.equal(byId.get(spans.find((s) => s.name === 'Grep').parent_id).id, subagent.id);
  t.equal(spans.find((s) => s.name === 'Edit').status, 'ERROR', 'a tool result marked as an error');
  t.ok(
    spans.some(
      (s) =>
        s.type === 'EVENT' &&
        s.name === 'system: compaction' &&
        /continued from a previous conversation/.test(s.output_preview),
    ),
    'the compaction summary',
  );

  // Secrets are gone from what was stored.
  const bash = spans.find((s) => s.name === 'Bash');
  const bashDetail = (await call(server, 'GET', `/v1/traces/${shop.id}/spans/${bash.id}`, { auth })).body.data;
  t.match(bashDetail.output, /OPENAI_API_KEY=\[REDACTED:openai_api_key\]/);
  t.match(bashDetail.output, /STRIPE_SECRET_KEY=\[REDACTED:stripe_key\]/);
  t.notMatch(bashDetail.output, /sk-proj-|s3cr3t-pw|sk_live_/);
  t.match(bashDetail.output, /^PORT=\[REDACTED:dotenv_value\]$/m, 'every value of a .env file goes');

  // The image the Read tool returned: a blob, put back inline when the span is opened.
  const read = spans.find((s) => s.name === 'Read');
  const readDetail = (await call(server, 'GET', `/v1/traces/${shop.id}/spans/${read.id}`, { auth })).body.data;
  const image = JSON.parse(readDetail.output)[0];
  t.match(image, { type: 'blob', mediaType: 'image/png', base64: /^iVBOR/ });
  const sha = JSON.parse(read.output_preview)[0].sha256;
  const blob = await fetch(`${server.url}/v1/agents/blob/${sha}`, {
    headers: { authorization: `Bearer ${auth.key}`, 'x-service-app-id': auth.appId },
  });
  t.equal(blob.status, 200);
  t.equal(blob.headers.get('content-type'), 'image/png');
  t.equal(Buffer.from(await blob.arrayBuffer()).toString('base64'), image.base64);

  // Token totals per session and per model: what ccusage reports for the same files.
  const claudeRef = await run(join(ROOT, 'node_modules/ccusage/dist/index.js'), ['session', '--json', '--offline'], {
    CLAUDE_CONFIG_DIR: join(dir, '.claude'),
  });
  t.equal(claudeRef.code, 0, claudeRef.stderr);
  const refByProject = new Map(claudeRef.json.sessions.map((s: { sessionId: string }) => [s.sessionId, s]));
  for (const [id, project] of [
    [SHOP, '-home-dev-shop'],
    [API, '-home-dev-api'],
  ] as const) {
    const ref = refByProject.get(project) as any;
    const trace = await traceOf(server, auth, id);
    t.equal(trace.tokens, ref.totalTokens, `${project}: session total`);
    const stored = await storedTokens(server, auth, trace);
    const expected = Object.fromEntries(
      ref.modelBreakdowns.map((m: any) => [
        m.modelName,
        {
          input: m.inputTokens + m.cacheCreationTokens + m.cacheReadTokens,
          output: m.outputTokens,
          cacheRead: m.cacheReadTokens,
          cacheCreation: m.cacheCreationTokens,
        },
      ]),
    );
    t.same(stored, expected, `${project}: per model`);
    for (const m of ref.modelBreakdowns)
      t.match(
        first.json.models[m.modelName],
        {
          inputTokens: m.inputTokens,
          outputTokens: m.outputTokens,
          cacheReadTokens: m.cacheReadTokens,
          cacheCreationTokens: m.cacheCreationTokens,
        },
        `the command's summary for ${m.modelName}`,
      );
  }
  const codexRef = await run(
    join(ROOT, 'node_modules/@ccusage/codex/dist/index.js'),
    ['session', '--json', '--offline'],
    { CODEX_HOME: join(dir, '.codex') },
  );
  t.equal(codexRef.code, 0, codexRef.stderr);
  const codexSession = codexRef.json.sessions.find((s: { sessionId: string }) => s.sessionId.endsWith(CODEX));
  const codexTrace = await traceOf(server, auth, CODEX);
  t.equal(codexTrace.tokens, codexSession.totalTokens, 'codex: session total');
  const codexStored = await storedTokens(server, auth, codexTrace);
  for (const [model, ref] of Object.entries(codexSession.models) as [string, any][]) {
    t.match(
      codexStored[model],
      { input: ref.inputTokens, output: ref.outputTokens, cacheRead: ref.cachedInputTokens },
      `codex: ${model}`,
    );
  }
  t.match(codexTrace, {
    metadata: {
      agent: 'codex',
      agent_version: '0.58.0',
      git_repository: 'git@github.com:acme/shop.git',
      git_commit: '9d3c1b7e2a4f6081c5d7e9f0a1b2c3d4e5f60718',
      git_branch: 'main',
    },
  });
  t.same(
    codexTrace.spans
      .filter((s: { span_kind: string }) => s.span_kind === 'tool')
      .map((s: { name: string; status: string }) => [s.name, s.status]),
    [
      ['shell', 'ERROR'],
      ['apply_patch', 'OK'],
    ],
    'the failing test run is an error (exit code 1)',
  );

  // Filters find the sessions by agent.
  for (const [agent, n] of [
    ['claude-code', 2],
    ['codex', 1],
  ] as const) {
    const found = await call(
      server,
      'GET',
      `/v1/traces?filter=${encodeURIComponent(`service_name = ${agent}`)}&${WINDOW}`,
      { auth },
    );
    t.equal(found.status, 200, found.text);
    t.equal(found.body.data.length, n, `service_name = ${agent}`);
  }

  // Idempotence: again from the state file (nothing sent), then without it (sent, nothing stored).
  const again = await sync(server, auth, dir);
  t.match(again.json, { sessions: { found: 0, sent: 0 }, spanRows: 0 }, 'unchanged files are not even read');
  rmSync(join(dir, 'state.json'));
  const fresh = await sync(server, auth, dir);
  t.match(
    fresh.json,
    { sessions: { sent: 3, accepted: 3 }, spanRows: 0, blobsStored: 0 },
    'a full re-sync stores nothing twice',
  );
  t.equal((await traceOf(server, auth, SHOP)).spans.length, spans.length);

  // Appending: the truncated last line is completed, and the agent answers; exactly those spans.
  const shopFile = join(dir, `.claude/projects/-home-dev-shop/${SHOP}.jsonl`);
  appendFileSync(
    shopFile,
    'sts"},"uuid":"c0000000-0000-4000-8000-000000000016","timestamp":"2025-11-20T09:07:00.000Z"}\n',
  );
  appendFileSync(
    shopFile,
    `${JSON.stringify({ parentUuid: 'c0000000-0000-4000-8000-000000000016', isSidechain: false, userType: 'external', cwd: '/home/dev/shop', sessionId: SHOP, version: '2.0.42', gitBranch: 'feature/prices', type: 'assistant', uuid: 'c0000000-0000-4000-8000-000000000017', timestamp: '2025-11-20T09:07:09.000Z', requestId: 'req_011CVa1b2c3d4e5f6g7h8i9q', message: { id: 'msg_01AbCdEfGhIjKlMnOpQrSt06', type: 'message', role: 'assistant', model: 'claude-sonnet-4-5-20250929', content: [{ type: 'text', text: 'All 12 tests pass.' }], stop_reason: 'end_turn', usage: { input_tokens: 5, output_tokens: 9, cache_read_input_tokens: 19360, cache_creation_input_tokens: 120 } } })}\n`,
  );
  const grown = await sync(server, auth, dir);
  t.match(
    grown.json,
    { sessions: { found: 1, sent: 1, accepted: 1 }, spanRows: 2, skippedLines: { truncated: 0 } },
    'the user message and the answer',
  );
  const after = await traceOf(server, auth, SHOP);
  t.equal(after.spans.length, spans.length + 2);
  t.equal(after.tokens, shop.tokens + 5 + 9 + 19360 + 120, 'the trace summary follows the session');
  t.equal(after.end, '2025-11-20T09:07:09.000Z');
});

t.test('a session the server rejects is not in the summary: its tokens count once, as stored', async (t) => {
  const server = await serverFor(t);
  const auth = rootCredentials(server);
  const dir = home();
  t.teardown(() => rmSync(dir, { recursive: true, force: true }));
  // A copy of the Codex rollout under another day: the same session read twice, so one batch holds
  // it twice and the server stores the first and rejects the second.
  const copy = join(dir, '.codex/sessions/2025/11/21');
  mkdirSync(copy, { recursive: true });
  cpSync(
    join(dir, '.codex', CODEX_FILE.slice('codex/'.length)),
    join(copy, `rollout-2025-11-21T08-00-00-${CODEX}.jsonl`),
  );
  const empty = join(dir, 'no-claude');
  const r = await run(
    CLI,
    ['agents', 'sync', '--claude-dir', empty, '--codex-dir', join(dir, '.codex'), '--state', join(dir, 'state.json')],
    { TRACELAKE_URL: server.url, TRACELAKE_API_KEY: auth.key, TRACELAKE_APP_ID: auth.appId },
  );
  t.equal(r.code, 0, r.stderr);
  t.match(r.json, {
    sessions: { found: 2, sent: 2, accepted: 1, rejected: 1 },
    rejected: [{ id: CODEX, reason: /the same session is in the batch twice/ }],
  });
  const trace = await traceOf(server, auth, CODEX);
  const stored = await storedTokens(server, auth, trace);
  t.same(Object.keys(r.json.models).sort(), Object.keys(stored).sort(), 'the models stored');
  for (const [model, s] of Object.entries(stored)) {
    const m = r.json.models[model];
    t.same(
      {
        input: m.inputTokens + m.cacheReadTokens + m.cacheCreationTokens,
        output: m.outputTokens,
        cacheRead: m.cacheReadTokens,
      },
      { input: s.input, output: s.output, cacheRead: s.cacheRead },
      `${model}: the summary's tokens are the stored ones`,
    );
  }
  // The session alone (its file named, a fresh state): the events and usage of one copy.
  const once = await run(
    CLI,
    ['agents', 'sync', join(dir, '.codex', CODEX_FILE.slice('codex/'.length)), '--state', join(dir, 'once.json')],
    { TRACELAKE_URL: server.url, TRACELAKE_API_KEY: auth.key, TRACELAKE_APP_ID: auth.appId },
  );
  t.match(once.json, { sessions: { sent: 1, accepted: 1, rejected: 0 } }, once.stderr);
  t.equal(r.json.events, once.json.events, 'the events of the session stored, once');
  t.same(r.json.models, once.json.models, 'the usage of the session stored, once');
});

t.test('--watch follows a growing rollout', async (t) => {
  const server = await serverFor(t);
  const auth = rootCredentials(server);
  const dir = home();
  t.teardown(() => rmSync(dir, { recursive: true, force: true }));
  const child = spawn(
    ...unhooked(process.execPath, [
      CLI,
      'agents',
      'sync',
      '--watch',
      '--interval',
      '0.1',
      '--claude-dir',
      join(dir, '.claude'),
      '--codex-dir',
      join(dir, '.codex'),
      '--state',
      join(dir, 'state.json'),
    ]),
    {
      env: { ...process.env, TRACELAKE_URL: server.url, TRACELAKE_API_KEY: auth.key, TRACELAKE_APP_ID: auth.appId },
      stdio: ['ignore', 'pipe', 'pipe'],
    },
  );
  const exited = new Promise<number | null>((resolve) => child.on('close', resolve));
  t.teardown(() => void child.kill('SIGKILL'));
  const rounds: any[] = [];
  const waiters: (() => void)[] = [];
  let buffer = '';
  child.stdout.on('data', (d: Buffer) => {
    buffer += d.toString();
    for (let nl = buffer.indexOf('\n'); nl >= 0; nl = buffer.indexOf('\n')) {
      rounds.push(JSON.parse(buffer.slice(0, nl)));
      buffer = buffer.slice(nl + 1);
      for (const w of waiters.splice(0)) w();
    }
  });
  const round = async (n: number) => {
    while (rounds.length < n) await new Promise<void>((w) => waiters.push(w));
    return rounds[n - 1];
  };
  t.match(await round(1), { sessions: { sent: 3, accepted: 3 } }, 'the first round sends everything');
  const before = await traceOf(server, auth, CODEX);
  const file = join(dir, '.codex', CODEX_FILE.slice('codex/'.length));
  const line = (type: string, payload: unknown, at: string) => `${JSON.stringify({ timestamp: at, type, payload })}\n`;
  appendFileSync(
    file,
    line(
      'event_msg',
      { type: 'user_message', message: 'Now run the whole suite.', images: [] },
      '2025-11-20T10:16:10.000Z',
    ) +
      line(
        'response_item',
        { type: 'message', role: 'assistant', content: [{ type: 'output_text', text: 'All 12 tests pass.' }] },
        '2025-11-20T10:16:30.000Z',
      ) +
      line(
        'event_msg',
        {
          type: 'token_count',
          info: {
            last_token_usage: {
              input_tokens: 8300,
              cached_input_tokens: 8064,
              output_tokens: 20,
              reasoning_output_tokens: 0,
              total_tokens: 8320,
            },
          },
        },
        '2025-11-20T10:16:30.100Z',
      ),
  );
  t.match(await round(2), { sessions: { sent: 1, accepted: 1 }, spanRows: 2 }, 'the growth is sent as it happens');
  const after = await traceOf(server, auth, CODEX);
  t.equal(after.tokens, before.tokens + 8320);
  child.kill('SIGTERM');
  t.equal(await exited, 0, 'SIGTERM ends the watch cleanly');
  t.ok(JSON.parse(readFileSync(join(dir, 'state.json'), 'utf8')).version === 1);
});

t.test('usage errors exit 2; a server that cannot be reached exits 1', async (t) => {
  const help = await run(CLI, ['agents', 'sync', '--help']);
  t.equal(help.code, 0);
  t.match(help.stdout, /Usage: tracelake agents sync/);
  const noKey = await run(CLI, ['agents', 'sync'], { TRACELAKE_API_KEY: '', TRACELAKE_APP_ID: '' });
  t.equal(noKey.code, 2);
  t.match(noKey.stderr, /no API key/);
  const unknown = await run(CLI, ['agents', 'push']);
  t.equal(unknown.code, 2);
  const dir = home();
  t.teardown(() => rmSync(dir, { recursive: true, force: true }));
  const down = await run(CLI, [
    'agents',
    'sync',
    '--url',
    'http://127.0.0.1:9',
    '--key',
    'sk_service_x',
    '--app',
    '00000000-0000-4000-8000-000000000000',
    '--claude-dir',
    join(dir, '.claude'),
    '--codex-dir',
    join(dir, '.codex'),
    '--state',
    join(dir, 's.json'),
  ]);
  t.equal(down.code, 1);
  t.match(down.stderr, /cannot reach/);
});
