/**
 * The Codex reader: a rollout file → one session. A response's items wait for the `token_count` that
 * closes it; usage as ccusage reads it (last usage, else the growth of the total), cached input apart.
 */
import { readFileSync } from 'node:fs';
import t from 'tap';
import { CODEX, readCodex } from '../../../../src/core/agents/readers/codex.js';
import type { TranscriptFile } from '../../../../src/core/agents/readers/claudeCode.js';
import type { AgentEvent } from '../../../../src/core/agents/session.js';

const ID = '019a9f3e-5c2b-7d10-a4e6-3b8c9d0e1f2a';
const PATH = `/c/sessions/2025/11/20/rollout-2025-11-20T10-15-02-${ID}.jsonl`;
const at = (second: number) => new Date(Date.UTC(2025, 10, 20, 10, 0, second)).toISOString();
type Rec = Record<string, unknown>;
const rec = (s: number, type: string, payload: Rec | undefined): Rec => ({ timestamp: at(s), type, payload });
const item = (s: number, payload: Rec) => rec(s, 'response_item', payload);
const event = (s: number, payload: Rec) => rec(s, 'event_msg', payload);
const tokens = (s: number, info: Rec | null, extra: Rec = {}) => event(s, { type: 'token_count', info, ...extra });
const last = (input: number, cached: number, output: number, reasoning = 0) => ({
  last_token_usage: {
    input_tokens: input,
    cached_input_tokens: cached,
    output_tokens: output,
    reasoning_output_tokens: reasoning,
  },
});
const file = (records: Rec[], path = PATH): TranscriptFile => ({
  path,
  text: records.map((r) => JSON.stringify(r)).join('\n') + '\n',
});
const session = (records: Rec[], path = PATH) => readCodex([file(records, path)]).sessions[0]!;
const kinds = (events: readonly AgentEvent[]) => events.map((e) => e.type);

t.test('the fixture', async (t) => {
  const path = new URL(
    `../../../../../test/fixtures/agents/codex/sessions/2025/11/20/rollout-2025-11-20T10-15-02-${ID}.jsonl`,
    import.meta.url,
  ).pathname;
  const r = readCodex([{ path, text: readFileSync(path, 'utf8') }]);
  t.equal(r.sessions.length, 1);
  const s = r.sessions[0]!;
  t.match(s, {
    id: ID,
    agent: { name: CODEX, version: '0.58.0' },
    cwd: '/home/dev/shop',
    startedAt: '2025-11-20T10:15:02.298Z',
    endedAt: null,
  });
  const replies = s.events.filter((e) => e.type === 'assistant_message');
  t.equal(replies.length, 3, 'three responses closed by a token count with usage');
  t.ok(
    replies.every((e) => e.type === 'assistant_message' && e.model === 'gpt-5-codex'),
    'the model of the turn context',
  );
  t.equal(
    s.events.filter((e) => e.type === 'user_message').length,
    1,
    'the typed prompt once; the injected environment context is not a prompt',
  );
  t.match(
    s.events.find((e) => e.type === 'tool_result' && e.isError),
    { callId: 'call_Q2x8mN4pR7tV1wY3zA5bC6dE' },
    'the failing shell call',
  );
});

t.test('session metadata', async (t) => {
  const s = session([
    rec(1, 'session_meta', { git: {} }),
    rec(1, 'session_meta', {
      id: 'meta-id',
      timestamp: at(0),
      cli_version: '0.60.1',
      cwd: '/w',
      git: { repository_url: 'https://github.com/a/b', branch: 'main', commit_hash: 'abc' },
    }),
    rec(2, 'session_meta', { id: '', cwd: '', git: { branch: 'dev' } }),
    rec(2, 'session_meta', { git: null }),
    rec(2, 'turn_context', { model: 'gpt-5-codex' }),
    rec(2, 'turn_context', { cwd: '/w' }),
    event(3, { type: 'user_message', message: 'hi' }),
    tokens(4, last(1, 0, 1)),
  ]);
  t.match(
    s,
    {
      id: 'meta-id',
      agent: { name: 'codex', version: '0.60.1' },
      startedAt: at(0),
      cwd: '/w',
      git: { repository: null, branch: 'dev', commit: null },
    },
    'later meta lines add to earlier ones; git is the latest one',
  );
  t.match(
    s.events[1],
    { type: 'assistant_message', model: 'gpt-5-codex' },
    'a turn context naming no model keeps the one before',
  );
  const fromPath = session([event(3, { type: 'user_message', message: 'hi' })]);
  t.match(
    fromPath,
    { id: ID, startedAt: at(3), cwd: null, git: null, agent: { version: null } },
    'no meta line: the id from the file name, the start from the first line',
  );
  t.same(
    readCodex([file([event(3, { type: 'user_message', message: 'hi' })], '/c/other.jsonl')]).sessions,
    [],
    'no id anywhere: no session',
  );
  t.same(readCodex([file([rec(1, 'session_meta', { id: 'x' })])]).sessions, [], 'no events: no session');
  const timed = session([{ type: 'event_msg', payload: { type: 'user_message', message: 'x', timestamp: at(9) } }]);
  t.equal(timed.events[0]!.timestamp, at(9), "the payload's timestamp when the line has none");
});

t.test('lines the reader skips or counts', async (t) => {
  const r = readCodex([
    file([
      rec(1, 'ghost_snapshot', {}),
      { timestamp: at(1), type: 3 },
      { type: 'event_msg', payload: { type: 'user_message', message: 'no time' } },
      rec(2, 'event_msg', undefined),
      rec(2, 'event_msg', { type: 'agent_reasoning', text: 'shown elsewhere' }),
      event(3, { type: 'user_message', message: '', images: [1, 'data:image/png;base64,', 'http://x/y.png'] }),
      item(4, { type: 'web_search_call' }),
      item(4, { type: 'function_call', name: 'shell' }),
      item(4, { type: 'function_call_output', output: 'no call id' }),
      event(5, { type: 'user_message', message: 'kept' }),
    ]),
  ]);
  t.equal(r.stats.unknown, 2);
  t.same(
    kinds(r.sessions[0]!.events),
    ['user_message'],
    'only the prompt with text; items without a call id are dropped',
  );
});

t.test('prompts: typed ones, or user items in versions that log none', async (t) => {
  const png = Buffer.from('png bytes').toString('base64');
  const typed = session([
    item(1, { type: 'message', role: 'user', content: [{ type: 'input_text', text: '<environment_context>' }] }),
    event(2, { type: 'user_message', message: 'look at this', images: [`data:image/png;base64,${png}`] }),
    event(3, { type: 'user_message', images: [`data:image/jpeg;base64,${png}`] }),
  ]);
  t.same(kinds(typed.events), ['user_message', 'user_message'], 'the injected context is not a prompt');
  t.match(typed.events[0], {
    id: 'l2',
    content: [
      { type: 'text', text: 'look at this' },
      { type: 'blob', mediaType: 'image/png', bytes: 9 },
    ],
  });
  t.match(
    typed.events[1],
    { id: 'l3', content: [{ type: 'blob', mediaType: 'image/jpeg' }] },
    'an image alone is a prompt',
  );
  const old = session([
    item(1, {
      type: 'message',
      role: 'user',
      content: [
        { type: 'input_text', text: 'fix it' },
        null,
        { type: 'input_text', text: '' },
        { type: 'input_image', image_url: `data:image/gif;base64,${png}` },
        { type: 'input_image', image_url: 'http://x' },
        { type: 'input_image' },
        { type: 'refusal' },
      ],
    }),
    item(2, { type: 'message', role: 'user', content: 'not a list' }),
  ]);
  t.match(old.events, [
    {
      type: 'user_message',
      content: [
        { type: 'text', text: 'fix it' },
        { type: 'blob', mediaType: 'image/gif' },
      ],
    },
    { type: 'user_message', content: [] },
  ]);
  t.equal((old.events[0] as { content: unknown[] }).content.length, 2);
});

t.test('a response: its items after the message that carries its usage', async (t) => {
  const s = session([
    rec(0, 'turn_context', { model: 'gpt-5-codex' }),
    item(1, {
      type: 'reasoning',
      summary: [
        { type: 'summary_text', text: 'one' },
        null,
        { type: 'summary_text' },
        { type: 'summary_text', text: 'two' },
      ],
    }),
    item(2, { type: 'function_call', call_id: 'c1', name: 'shell', arguments: '{"command":["ls"]}' }),
    item(2, { type: 'custom_tool_call', call_id: 'c2', name: 'apply_patch', input: '*** Begin Patch' }),
    item(2, { type: 'local_shell_call', call_id: 'c3', action: { type: 'exec', command: ['pwd'] } }),
    item(2, { type: 'function_call', call_id: 'c4', arguments: '{not json' }),
    item(2, { type: 'function_call', call_id: 'c5', name: 'noop' }),
    item(3, { type: 'message', role: 'assistant', content: [{ type: 'output_text', text: 'running' }] }),
    item(3, { type: 'reasoning', summary: 'not a list' }),
    tokens(4, last(1000, 800, 50, 20)),
    item(5, { type: 'function_call_output', call_id: 'c1', output: '{"output":"a.txt","metadata":{"exit_code":0}}' }),
    item(5, { type: 'function_call_output', call_id: 'c4', output: '{"output":"boom","metadata":{"exit_code":2}}' }),
    item(5, { type: 'custom_tool_call_output', call_id: 'c2', output: 'Success. Updated' }),
    item(5, { type: 'function_call_output', call_id: 'c3', output: { exit: 'object' } }),
    item(5, { type: 'function_call_output', call_id: 'c5', output: '' }),
    item(5, { type: 'function_call_output', call_id: 'c6', output: 42 }),
    item(5, { type: 'function_call_output', call_id: 'c7', output: '{"output":"","metadata":{"exit_code":"1"}}' }),
  ]);
  t.same(kinds(s.events), [
    'assistant_message',
    'reasoning',
    'tool_call',
    'tool_call',
    'tool_call',
    'tool_call',
    'tool_call',
    ...Array(7).fill('tool_result'),
  ]);
  t.same(
    s.events[0],
    {
      id: 'l2:response',
      timestamp: at(1),
      type: 'assistant_message',
      model: 'gpt-5-codex',
      content: [{ type: 'text', text: 'running' }],
      usage: { inputTokens: 200, outputTokens: 50, cacheReadTokens: 800, cacheCreationTokens: 0, reasoningTokens: 20 },
    },
    'it starts with its first item; cached input apart from the rest',
  );
  t.same(s.events[1], { id: 'l2', timestamp: at(1), type: 'reasoning', text: 'one\n\ntwo' });
  const calls = s.events.slice(2, 7) as Extract<AgentEvent, { type: 'tool_call' }>[];
  t.same(
    calls.map((c) => [c.callId, c.name, c.input]),
    [
      ['c1', 'shell', { command: ['ls'] }],
      ['c2', 'apply_patch', '*** Begin Patch'],
      ['c3', 'local_shell', { type: 'exec', command: ['pwd'] }],
      ['c4', 'tool', '{not json'],
      ['c5', 'noop', null],
    ],
    'arguments parsed when they are JSON; a call without a name',
  );
  const results = s.events.slice(7) as Extract<AgentEvent, { type: 'tool_result' }>[];
  t.same(
    results.map((r) => [r.callId, r.content, r.isError]),
    [
      ['c1', [{ type: 'text', text: 'a.txt' }], false],
      ['c4', [{ type: 'text', text: 'boom' }], true],
      ['c2', [{ type: 'text', text: 'Success. Updated' }], false],
      ['c3', [{ type: 'text', text: '{"exit":"object"}' }], false],
      ['c5', [], false],
      ['c6', [{ type: 'text', text: '42' }], false],
      ['c7', [], false],
    ],
    'shell output and exit code; other output as text',
  );
});

t.test('usage: the last one, else the growth of the total; a response still being written waits', async (t) => {
  const total = (input: number, cached: number, output: number) => ({
    total_token_usage: { input_tokens: input, cache_read_input_tokens: cached, output_tokens: output },
  });
  const s = session([
    item(1, { type: 'message', role: 'assistant', content: [{ type: 'output_text', text: 'a' }] }),
    tokens(2, total(100, 10, 5), { model: 'gpt-5.1' }),
    item(3, { type: 'message', role: 'assistant', content: [{ type: 'output_text', text: 'b' }] }),
    tokens(4, { ...total(250, 60, 9), model_name: 'o3' }),
    tokens(5, total(250, 60, 9)),
    tokens(6, null),
    tokens(7, { last_token_usage: 'none' }),
    tokens(8, { ...total(240, 0, 9), model: 'gpt-5-mini' }),
    item(9, { type: 'message', role: 'assistant', content: [{ type: 'output_text', text: 'c' }] }),
    tokens(10, last(0, 0, 0)),
    item(11, { type: 'message', role: 'assistant', content: [{ type: 'output_text', text: 'in progress' }] }),
    item(11, { type: 'function_call', call_id: 'later', name: 'shell' }),
  ]);
  const replies = s.events as Extract<AgentEvent, { type: 'assistant_message' }>[];
  t.same(
    replies.map((e) => [e.model, e.usage, e.content.map((c) => c.type === 'text' && c.text).join()]),
    [
      [
        'gpt-5.1',
        { inputTokens: 90, outputTokens: 5, cacheReadTokens: 10, cacheCreationTokens: 0, reasoningTokens: 0 },
        'a',
      ],
      [
        'o3',
        { inputTokens: 100, outputTokens: 4, cacheReadTokens: 50, cacheCreationTokens: 0, reasoningTokens: 0 },
        'b',
      ],
    ],
    'the model named with the usage; no usage change, no response; a total that shrank (a new context) gives nothing negative',
  );
  t.equal(
    replies.length,
    2,
    'a response with all-zero usage is not one; items of an unfinished response wait for the next read',
  );
  const noModel = session([item(1, { type: 'message', role: 'assistant', content: [] }), tokens(2, last(5, 50, 1))]);
  t.match(
    noModel.events[0],
    { model: 'gpt-5', timestamp: at(1), usage: { inputTokens: 0, cacheReadTokens: 5, outputTokens: 1 } },
    'early versions name no model; cached input is never more than the input',
  );
  const bare = session([tokens(2, last(5, 0, 1))]);
  t.match(
    bare.events[0],
    { id: 'l1:response', timestamp: at(2), content: [] },
    'usage without items: the response is the count itself',
  );
});

t.test('compactions', async (t) => {
  const s = session([rec(1, 'compacted', { message: 'summary so far' }), rec(2, 'compacted', {})]);
  t.same(s.events, [
    { id: 'l1', timestamp: at(1), type: 'system', kind: 'compaction', text: 'summary so far' },
    { id: 'l2', timestamp: at(2), type: 'system', kind: 'compaction', text: null },
  ]);
});

t.test('several files', async (t) => {
  const other = `/c/rollout-2025-11-20T11-00-00-${ID.replace('019a', '029a')}.jsonl`;
  const r = readCodex([
    file([event(1, { type: 'user_message', message: 'a' })]),
    file([], other),
    file([event(2, { type: 'user_message', message: 'b' })], other),
  ]);
  t.same(
    r.sessions.map((s) => s.id),
    [ID, ID.replace('019a', '029a')],
    'an empty file gives no session',
  );
  t.same(readCodex([]).sessions, []);
});
