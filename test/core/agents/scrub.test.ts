/**
 * The scrubbing corpus: real-shaped secrets of every kind the issue names are replaced by a marker
 * naming the kind, and look-alikes that are no secrets survive untouched.
 */
import { performance } from 'node:perf_hooks';
import t from 'tap';
import {
  isTextMedia,
  kindOf,
  marker,
  MAX_INPUT_DEPTH,
  nestingDepth,
  scrubSession,
  scrubSessions,
  scrubTexts,
  TOO_DEEP,
} from '../../../src/core/agents/scrub.js';
import type { AgentSession } from '../../../src/core/agents/session.js';

const r = (n: number, alphabet = 'aB3dE5fG7hJ9kL2mN4pQ6rS8tV1wX0yZ') =>
  Array.from({ length: n }, (_, i) => alphabet[(i * 7 + 3) % alphabet.length]).join('');

/** [text, the kind it must be redacted as, the secret part that must be gone]. */
const SECRETS: [string, string, string][] = [
  [`key: sk-proj-${r(74)}T3BlbkFJ${r(74)}`, 'openai_api_key', 'T3BlbkFJ'],
  [`ANTHROPIC: sk-ant-api03-${r(93)}AA`, 'anthropic_api_key', 'sk-ant-api03'],
  [`google maps AIza${r(35)} in the page`, 'google_api_key', 'AIza'],
  ['creds AKIAZ7QW3XK5PLM2NB4R in the log', 'aws_credentials', 'AKIAZ7QW3XK5PLM2NB4R'],
  [`token ghp_${r(36)} here`, 'github_token', 'ghp_'],
  [`fine-grained github_pat_11ABCDEFG0${r(12)}_${r(59)}`, 'github_token', 'github_pat_'],
  [`gitlab glpat-${r(20)} ok`, 'gitlab_token', 'glpat-'],
  [`slack xoxb-123456789012-1234567890123-${r(24)}`, 'slack_token', 'xoxb-'],
  [`stripe sk_live_${r(24)} and rk_test_${r(24)}`, 'stripe_key', 'sk_live_'],
  [`ours sk_service_${r(43)}`, 'tracelake_key', 'sk_service_'],
  [
    '-----BEGIN OPENSSH PRIVATE KEY-----\nb3BlbnNzaC1rZXktdjEAAAAABG5vbmUAAAAEbm9uZQAAAAAAAAABAAAAMwAAAAtzc2gtZW\nQyNTUxOQAAACB4pXqFOsEDZQ5hOVG3qGdX2O6bXr4d1qbYfJ2kY3nMZAAAAJgAAAAAAAAA\n-----END OPENSSH PRIVATE KEY-----',
    'private_key',
    'b3BlbnNzaC1rZXktdjEAAAAABG5vbmUAAAAEbm9uZQ',
  ],
  [
    '[default]\naws_secret_access_key = Xb7kQ2mN9pR4tV6wY1zA3cE5gH8jL0nP2rT4vX6z',
    'aws_credentials',
    'Y1zA3cE5gH8jL0nP2rT4vX6z',
  ],
  [
    'curl -H "Authorization: Bearer abc123def456ghi789" https://api.example.com',
    'authorization_header',
    'abc123def456ghi789',
  ],
  ['x-api-key: 9f8e7d6c5b4a39281706', 'api_key_header', '9f8e7d6c5b4a39281706'],
  [
    'jwt eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.eyJzdWIiOiIxMjM0NTY3ODkwIiwibmFtZSI6IkpvaG4ifQ.SflKxwRJSMeKKF2QT4fwpMeJf36POk6yJV_adQssw5c',
    'jwt',
    'SflKxwRJSMeKKF2QT4fwpMeJf36POk6yJV_adQssw5c',
  ],
  ['export DB_PASSWORD=hunter2hunter2', 'secret_assignment', 'hunter2hunter2'],
  [`x-api-key: sk-ant-api03-${r(93)}AA`, 'anthropic_api_key', 'sk-ant-api03'],
  [`GITHUB_TOKEN=ghp_${r(36)}`, 'github_token', 'ghp_'],
  ['postgres://admin:Pa55w0rd!x@db.example.com:5432/app', 'database_url', 'Pa55w0rd'],
];

/** Texts that look a little like secrets and must stay exactly as they are. */
const LOOKALIKES = [
  'sk-learn is a Python library; sk-proj is a prefix',
  'the AKIAIOSFODNN7EXAMPLE key from the AWS docs',
  "ghp_ is GitHub's token prefix",
  'MAX_TOKENS=4096 and TOKEN_LIMIT=12',
  'Authorization headers carry credentials',
  'commit 9d3c1b7e2a4f6081c5d7e9f0a1b2c3d4e5f60718',
  'const secret = process.env.SECRET;',
  'sha256 e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855',
  'uuid 3f2a9c1e-7b4d-4e21-9a0c-5d8e6f1b2c34',
  'PORT=3000',
];

t.test('real-shaped secrets are replaced by a marker naming the kind', async (t) => {
  for (const [text, kind, gone] of SECRETS) {
    const findings = {};
    const [clean] = await scrubTexts([text], 'session.txt', findings);
    t.ok(clean!.includes(marker(kind)), `${kind}: ${clean}`);
    t.notOk(clean!.includes(gone), `${kind}: the secret is gone`);
    t.ok((findings as Record<string, number>)[kind]! >= 1);
  }
});

t.test('look-alikes survive', async (t) => {
  const clean = await scrubTexts(LOOKALIKES);
  t.same(clean, LOOKALIKES);
  t.same(await scrubTexts([]), []);
});

t.test('texts are linted together and come back apart, each in place', async (t) => {
  const texts = ['first', `a ghp_${r(36)} b`, '', `x sk_service_${r(43)} y ghp_${r(36)} z`, 'last'];
  const clean = await scrubTexts(texts);
  t.same(clean, [
    'first',
    'a [REDACTED:github_token] b',
    '',
    'x [REDACTED:tracelake_key] y [REDACTED:github_token] z',
    'last',
  ]);
});

t.test('every value of a .env file goes; elsewhere only secret-named ones', async (t) => {
  const env = 'PORT=3000\nexport NODE_ENV=production\n# a comment\nAPI_URL = https://api.example.com\n';
  t.same(await scrubTexts([env], '/home/dev/app/.env.local'), [
    'PORT=[REDACTED:dotenv_value]\nexport NODE_ENV=[REDACTED:dotenv_value]\n# a comment\nAPI_URL = [REDACTED:dotenv_value]\n',
  ]);
  t.same(await scrubTexts([env]), [env]);
});

t.test('kinds and media types', async (t) => {
  t.equal(kindOf('@secretlint/secretlint-rule-github'), 'github_token');
  t.equal(kindOf('@secretlint/secretlint-rule-something-new'), 'something-new');
  t.equal(kindOf('tracelake/jwt'), 'jwt');
  for (const m of [
    'text/plain',
    'text/x-diff; charset=utf-8',
    'application/json',
    'application/vnd.api+json',
    'application/xml',
    'image/svg+xml',
    'application/x-ndjson',
    'application/javascript',
    'application/x-sh',
    'application/yaml',
    'application/x-yaml',
  ])
    t.ok(isTextMedia(m), m);
  for (const m of ['image/png', 'application/pdf', 'application/octet-stream']) t.notOk(isTextMedia(m), m);
});

t.test('a whole session: every text field, tool inputs, and .env files read by a tool', async (t) => {
  const key = `ghp_${r(36)}`;
  const session: AgentSession = {
    id: 's',
    agent: { name: 'claude-code' },
    startedAt: '2025-11-20T09:00:00.000Z',
    title: `about ${key}`,
    git: { repository: `https://x-access-token:${key}@github.com/acme/shop.git` },
    events: [
      {
        id: '1',
        timestamp: '2025-11-20T09:00:00.000Z',
        type: 'user_message',
        content: [
          { type: 'text', text: `use ${key}` },
          { type: 'blob', sha256: 'a'.repeat(64), mediaType: 'image/png', bytes: 1 },
        ],
      },
      {
        id: '2',
        timestamp: '2025-11-20T09:00:01.000Z',
        type: 'assistant_message',
        model: 'm',
        content: [{ type: 'text', text: key }],
      },
      { id: '3', timestamp: '2025-11-20T09:00:01.000Z', type: 'reasoning', text: key },
      {
        id: '4',
        timestamp: '2025-11-20T09:00:01.000Z',
        type: 'tool_call',
        callId: 'c1',
        name: 'Read',
        input: { file_path: '/app/.env', nested: [{ header: `Bearer ${key}` }], n: 1 },
      },
      {
        id: '5',
        timestamp: '2025-11-20T09:00:02.000Z',
        type: 'tool_result',
        callId: 'c1',
        content: [{ type: 'text', text: 'PORT=3000' }],
      },
      {
        id: '6',
        timestamp: '2025-11-20T09:00:02.000Z',
        type: 'tool_call',
        callId: 'c2',
        name: 'apply_patch',
        input: `+ token = "${key}"`,
      },
      {
        id: '7',
        timestamp: '2025-11-20T09:00:02.000Z',
        type: 'tool_result',
        callId: 'c2',
        content: [{ type: 'text', text: 'PORT=3000' }],
      },
      { id: '8', timestamp: '2025-11-20T09:00:03.000Z', type: 'subagent_start', agentId: 'a', prompt: key },
      { id: '9', timestamp: '2025-11-20T09:00:04.000Z', type: 'subagent_end', agentId: 'a', result: key },
      { id: '10', timestamp: '2025-11-20T09:00:05.000Z', type: 'system', kind: 'info', text: key },
      { id: '11', timestamp: '2025-11-20T09:00:05.000Z', type: 'system', kind: 'info' },
      { id: '12', timestamp: '2025-11-20T09:00:05.000Z', type: 'tool_call', callId: 'c3', name: 'TodoRead' },
    ],
  };
  const findings: Record<string, number> = {};
  const clean = await scrubSession(session, findings);
  const text = JSON.stringify(clean);
  t.notOk(text.includes(key), 'no copy of the key is left');
  t.ok(
    findings.github_token! >= 9,
    'each copy counted (the one inside the repository URL is part of a basic-auth URL)',
  );
  t.match(
    clean.events[4],
    { content: [{ text: 'PORT=[REDACTED:dotenv_value]' }] },
    'the result of reading a .env file',
  );
  t.match(clean.events[6], { content: [{ text: 'PORT=3000' }] }, "another tool's output is not a .env file");
  t.equal(JSON.stringify(session).includes(key), true, 'the input is not changed');
  t.same(await scrubSession({ ...session, title: null, git: null, events: [] }), {
    ...session,
    title: null,
    git: null,
    events: [],
  });
});

t.test('many sessions scrubbed in one run: the same as each alone', async (t) => {
  const token = `ghp_${r(36)}`;
  const at = '2025-11-20T09:00:00.000Z';
  // A token split across the end of one session and the start of the next: no secret in either.
  const a: AgentSession = {
    id: 'a',
    agent: { name: 'claude-code' },
    startedAt: at,
    title: `starts ${token.slice(0, 20)}`,
    events: [
      { id: '1', timestamp: at, type: 'user_message', content: [{ type: 'text', text: `key ${token} here` }] },
      { id: '2', timestamp: at, type: 'tool_call', callId: 'c1', name: 'Read', input: { file_path: '.env' } },
      { id: '3', timestamp: at, type: 'tool_result', callId: 'c1', content: [{ type: 'text', text: 'PORT=3000' }] },
      { id: '4', timestamp: at, type: 'reasoning', text: `ends ${token.slice(0, 20)}` },
    ],
  };
  const b: AgentSession = {
    id: 'b',
    agent: { name: 'codex' },
    startedAt: at,
    git: { repository: `${token.slice(20)} ends it`, branch: 'main' },
    events: [
      // The same call id as a's .env read, but this call reads no .env file.
      { id: '1', timestamp: at, type: 'tool_call', callId: 'c1', name: 'shell', input: { command: ['ls'] } },
      { id: '2', timestamp: at, type: 'tool_result', callId: 'c1', content: [{ type: 'text', text: 'PORT=3000' }] },
      { id: '3', timestamp: at, type: 'system', kind: 'info', text: `also ${token}` },
    ],
  };
  const empty: AgentSession = { id: 'e', agent: { name: 'codex' }, startedAt: at, events: [] };
  const alone: Record<string, number> = {};
  const one = [await scrubSession(a, alone), await scrubSession(empty, alone), await scrubSession(b, alone)];
  const together: Record<string, number> = {};
  const all = await scrubSessions([a, empty, b], together);
  t.same(all, one, 'each session as scrubbed alone');
  t.same(together, alone, 'and the same findings');
  t.same(together, { github_token: 2, dotenv_value: 1 });
  t.equal(all[0]!.title, a.title, 'half a token at the end of one session is no secret');
  t.equal(all[0]!.events[3]!.type === 'reasoning' && all[0]!.events[3]!.text, `ends ${token.slice(0, 20)}`);
  t.equal(all[2]!.git!.repository, b.git!.repository, 'nor the other half at the start of the next');
  t.match(all[0]!.events[2], { content: [{ text: 'PORT=[REDACTED:dotenv_value]' }] }, 'a .env read in one session');
  t.match(
    all[2]!.events[1],
    { content: [{ text: 'PORT=3000' }] },
    'does not make the same call id a .env read in another',
  );
  t.same(await scrubSessions([]), []);
});

t.test('tool inputs are scrubbed to MAX_INPUT_DEPTH levels; deeper ones are not kept', async (t) => {
  const key = `ghp_${r(36)}`;
  // nested(n): n wrapping objects around {token}, n + 1 levels.
  const nested = (n: number): unknown => (n === 0 ? { token: key } : { next: nested(n - 1) });
  const at = '2025-11-20T09:00:00.000Z';
  const s: AgentSession = {
    id: 's',
    agent: { name: 'claude-code' },
    startedAt: at,
    events: [
      { id: '1', timestamp: at, type: 'tool_call', callId: 'c', name: 'x', input: { a: { b: [{ token: key }] } } },
      { id: '2', timestamp: at, type: 'tool_call', callId: 'd', name: 'x', input: nested(MAX_INPUT_DEPTH - 1) },
      { id: '3', timestamp: at, type: 'tool_call', callId: 'e', name: 'x', input: nested(MAX_INPUT_DEPTH) },
    ],
  };
  const clean = await scrubSession(s);
  const input = (i: number) => JSON.stringify((clean.events[i] as { input: unknown }).input);
  t.equal(input(0), JSON.stringify({ a: { b: [{ token: marker('github_token') }] } }));
  t.notOk(input(1).includes(key), `the ${MAX_INPUT_DEPTH}th level is scrubbed`);
  t.ok(input(1).includes(marker('github_token')));
  t.notOk(input(2).includes(key), 'past it nothing unscrubbed is kept');
  t.ok(input(2).includes(JSON.stringify(TOO_DEEP)), 'the level past the limit is replaced');
  t.equal(nestingDepth(nested(MAX_INPUT_DEPTH - 1), MAX_INPUT_DEPTH), MAX_INPUT_DEPTH);
  t.ok(nestingDepth(nested(MAX_INPUT_DEPTH), MAX_INPUT_DEPTH) > MAX_INPUT_DEPTH);
  t.ok(nestingDepth(nested(10_000), MAX_INPUT_DEPTH) > MAX_INPUT_DEPTH, 'counting stops past the limit');
  t.equal(nestingDepth('x', 3), 0);
  t.equal(nestingDepth([], 3), 1);
  t.equal(nestingDepth({ a: [1, { b: null }] }, 3), 3);
});

t.test('the engine leaves no performance marks behind', async (t) => {
  // secretlint's profiler marked every rule's start and end and kept them all: a long-lived worker
  // slowed down with every request (native-bench/agents-sync). Nothing may pile up.
  const before = performance.getEntriesByType('mark').length;
  for (let i = 0; i < 3; i++) await scrubTexts([`run ${i} ghp_${r(36)}`]);
  t.equal(performance.getEntriesByType('mark').length, before);
  t.equal(before, 0);
});
