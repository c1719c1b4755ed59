/**
 * The Claude Code reader: records → one agent-neutral session per sessionId. Lines are built here
 * one behaviour at a time (the fixtures under test/fixtures/agents are read too, for their totals).
 */
import { readFileSync } from 'node:fs';
import t from 'tap';
import { BlobBag } from '../../../../src/core/agents/readers/blobBag.js';
import { CLAUDE_CODE, readClaudeCode, type TranscriptFile } from '../../../../src/core/agents/readers/claudeCode.js';
import type { AgentEvent } from '../../../../src/core/agents/session.js';

const at = (second: number) => new Date(Date.UTC(2025, 10, 20, 9, 0, second)).toISOString();
const SID = 'sess-1';
type Rec = Record<string, unknown>;
/** A line of session SID at second `s`. */
const line = (s: number, o: Rec): Rec => ({ sessionId: SID, timestamp: at(s), ...o });
const user = (s: number, uuid: string, content: unknown, extra: Rec = {}) =>
  line(s, { type: 'user', uuid, message: { role: 'user', content }, ...extra });
const assistant = (s: number, uuid: string, message: Rec, extra: Rec = {}) =>
  line(s, {
    type: 'assistant',
    uuid,
    requestId: 'req-1',
    message: { id: 'msg-1', model: 'claude-sonnet-4-5', ...message },
    ...extra,
  });
const file = (path: string, ...records: Rec[]): TranscriptFile => ({
  path,
  text: records.map((r) => JSON.stringify(r)).join('\n') + '\n',
});
const read = (...records: Rec[]) => readClaudeCode([file('/p/s.jsonl', ...records)]);
const only = (...records: Rec[]) => {
  const r = read(...records);
  return r.sessions[0]!;
};
const types = (events: readonly AgentEvent[]) => events.map((e) => e.type);

t.test('the fixtures', async (t) => {
  const dir = new URL('../../../../../test/fixtures/agents/claude/projects/', import.meta.url).pathname;
  const paths = [
    '-home-dev-shop/3f2a9c1e-7b4d-4e21-9a0c-5d8e6f1b2c34.jsonl',
    '-home-dev-shop/agent-a1b2c3d4.jsonl',
    '-home-dev-api/8c1d2e3f-4a5b-4c6d-8e9f-0a1b2c3d4e5f.jsonl',
  ];
  const r = readClaudeCode(paths.map((p) => ({ path: dir + p, text: readFileSync(dir + p, 'utf8') })));
  t.same(
    r.sessions.map((s) => s.id),
    ['3f2a9c1e-7b4d-4e21-9a0c-5d8e6f1b2c34', '8c1d2e3f-4a5b-4c6d-8e9f-0a1b2c3d4e5f'],
    'one session per id, the earliest first; the sub-agent file joins its parent',
  );
  const shop = r.sessions[0]!;
  t.match(shop, {
    agent: { name: CLAUDE_CODE, version: '2.0.42' },
    title: 'Fix rounding in cart totals',
    cwd: '/home/dev/shop',
    git: { repository: null, branch: 'feature/prices', commit: null },
    endedAt: null,
  });
  t.equal(r.stats.malformed + r.stats.truncated, 2, 'the broken line and the unfinished last one');
  t.equal(r.stats.unknown, 1, 'the record type from the future');
  const start = shop.events.find((e) => e.type === 'subagent_start');
  t.match(
    start,
    { agentId: 'a1b2c3d4', callId: 'toolu_01Task0000000000000003' },
    'the sub-agent is linked to its Task call',
  );
  t.ok(shop.events.filter((e) => e.parentId === start!.id).length >= 4, 'with its events under it');
  t.equal(r.blobs.blobs.size > 0, true, 'the images became blobs');
});

t.test('records the reader skips or counts', async (t) => {
  const r = read(
    line(0, { type: 'file-history-snapshot', uuid: 'f' }),
    line(0, { type: 'queue-operation' }),
    line(0, { type: 'x-new' }),
    { type: 7, sessionId: SID, timestamp: at(0) },
    user(1, 'no-session', 'hi', { sessionId: undefined }),
    user(1, 'no-time', 'hi', { timestamp: 'whenever' }),
    { type: 'summary', summary: 'no leaf' },
    { type: 'summary', leafUuid: 'u1' },
  );
  t.same(r.sessions, [], 'no session has an event');
  t.same(r.stats, { lines: 8, unknown: 2, malformed: 0, truncated: 0 });
  t.same(readClaudeCode([]).sessions, []);
});

t.test('sessions: one per id, earliest first, metadata from their lines', async (t) => {
  const r = readClaudeCode([
    file('/p/later.jsonl', user(9, 'b1', 'second session', { sessionId: 'later' })),
    file(
      '/p/s.jsonl',
      user(2, 'u1', 'hello', { version: '2.0.1', cwd: '/a' }),
      user(3, 'u2', 'more', { version: '2.0.2', gitBranch: 'main' }),
      user(4, 'u3', 'last', { cwd: '' }),
    ),
    file(
      '/p/sum.jsonl',
      { type: 'summary', summary: 'Old title', leafUuid: 'u1' },
      { type: 'summary', summary: 'A title', leafUuid: 'u2' },
    ),
  ]);
  t.same(
    r.sessions.map((s) => s.id),
    [SID, 'later'],
  );
  const s = r.sessions[0]!;
  t.match(
    s,
    {
      agent: { name: 'claude-code', version: '2.0.2' },
      cwd: '/a',
      git: { branch: 'main' },
      title: 'A title',
      startedAt: at(2),
    },
    'the latest of each that was written (an empty cwd is none); the title of the last message a summary covers',
  );
  t.same(
    s.events.map((e) => e.id),
    ['u1', 'u2', 'u3'],
  );
  t.match(r.sessions[1], { git: null, title: null, cwd: null, agent: { version: null } });
});

t.test('user lines', async (t) => {
  const s = only(
    user(1, 'u1', [
      { type: 'text', text: 'look' },
      null,
      {
        type: 'image',
        source: { type: 'base64', media_type: 'image/png', data: Buffer.from('png!').toString('base64') },
      },
      { type: 'image', source: { type: 'base64', data: Buffer.from('raw').toString('base64') } },
      { type: 'image', source: { type: 'url', url: 'http://x' } },
      { type: 'image', source: { type: 'base64', data: '' } },
      { type: 'text', text: '' },
      { type: 'document' },
    ]),
    user(2, 'u2', 'plain text'),
    user(3, 'u3', [
      { type: 'tool_result', tool_use_id: 'call-1', content: 'ok', is_error: true },
      { type: 'tool_result', content: 'no id' },
    ]),
    user(4, 'u4', [
      {
        type: 'tool_result',
        tool_use_id: 'call-2',
        content: [
          { type: 'text', text: 'a' },
          { type: 'image', source: { type: 'base64', media_type: 'image/jpeg', data: 'anBn' } },
        ],
      },
      { type: 'text', text: 'and a note' },
    ]),
    user(5, 'u5', [
      { type: 'tool_result', tool_use_id: 'call-3', content: { weird: true } },
      { type: 'tool_result', tool_use_id: 'call-4', content: '' },
    ]),
    user(6, 'u6', { not: 'content' }),
    user(7, 'u7', 'Caveat: injected context', { isMeta: true }),
    user(
      8,
      'u8',
      [
        { type: 'text', text: 'meta' },
        { type: 'image', source: { type: 'base64', media_type: 'image/gif', data: 'Z2lm' } },
      ],
      { isMeta: true },
    ),
    user(9, 'u9', 'the summary of what came before', { isCompactSummary: true }),
    user(10, 'u10', [{ type: 'text', text: 'part one' }, { type: 'text', text: 'part two' }, { type: 'image' }], {
      isCompactSummary: true,
    }),
    user(11, 'u11', { x: 1 }, { isCompactSummary: true }),
    user(12, 'u12', [{ type: 'image' }], { isCompactSummary: true }),
    line(13, { type: 'user', uuid: 'u13' }),
  );
  t.same(types(s.events), [
    'user_message',
    'user_message',
    'tool_result',
    'tool_result',
    'user_message',
    'tool_result',
    'tool_result',
    'system',
    'system',
    'system',
    'system',
    'system',
    'system',
  ]);
  const [u1, u2, r1, r2, note, r3, r4, meta, meta2, c1, c2, c3, c4] = s.events as any[];
  t.match(u1.content, [
    { type: 'text', text: 'look' },
    { type: 'blob', mediaType: 'image/png', bytes: 4 },
    { type: 'blob', mediaType: 'application/octet-stream', bytes: 3 },
  ]);
  t.equal(u1.content.length, 3, 'empty text, images not in base64 and unknown blocks are dropped');
  t.same(u2, { id: 'u2', timestamp: at(2), type: 'user_message', content: [{ type: 'text', text: 'plain text' }] });
  t.same(
    r1,
    {
      id: 'u3:call-1',
      timestamp: at(3),
      type: 'tool_result',
      callId: 'call-1',
      content: [{ type: 'text', text: 'ok' }],
      isError: true,
    },
    'a result without a call id is dropped',
  );
  t.match(r2, {
    id: 'u4:call-2',
    isError: false,
    content: [
      { type: 'text', text: 'a' },
      { type: 'blob', mediaType: 'image/jpeg' },
    ],
  });
  t.same(note.content, [{ type: 'text', text: 'and a note' }], 'text next to results is a message of its own');
  t.same(r3.content, [], 'content of no known shape');
  t.same(r4.content, [], 'empty text');
  t.same([meta.kind, meta.text], ['info', 'Caveat: injected context'], 'meta lines are notices, not prompts');
  t.equal(meta2.text, 'meta\n', 'a blob in a notice shows as nothing');
  t.same([c1.kind, c1.text], ['compaction', 'the summary of what came before']);
  t.equal(c2.text, 'part one\n\npart two');
  t.equal(c3.text, null);
  t.equal(c4.text, null, 'no text blocks, no text');
  t.equal(s.startedAt, at(1));
  t.equal(
    read(line(1, { type: 'user', uuid: 'x', message: { content: [] } })).sessions.length,
    0,
    'a user line with nothing in it adds nothing',
  );
});

t.test('assistant lines: one response across its lines, counted once', async (t) => {
  const usage = { input_tokens: 3, output_tokens: 40, cache_read_input_tokens: 1000, cache_creation_input_tokens: 20 };
  const s = only(
    assistant(1, 'a1', { content: [{ type: 'thinking', thinking: 'plan' }], usage, stop_reason: 'tool_use' }),
    assistant(2, 'a2', {
      content: [
        { type: 'text', text: 'reading' },
        null,
        { type: 'text', text: '' },
        { type: 'thinking', thinking: '' },
      ],
      usage,
    }),
    assistant(3, 'a3', {
      content: [
        { type: 'tool_use', id: 'call-1', name: 'Read', input: { file_path: '/x' } },
        { type: 'tool_use', id: 'call-2', name: 'TodoRead' },
        { type: 'tool_use', id: 'call-3' },
        { type: 'server_tool_use' },
      ],
      usage,
    }),
    assistant(4, 'a4', { id: 'msg-2', model: undefined, content: 'not blocks' }, { requestId: undefined }),
    assistant(5, 'a5', { id: undefined, content: [{ type: 'text', text: 'no id' }], usage: { output_tokens: -1 } }),
    line(6, { type: 'assistant', uuid: 'a6' }),
  );
  t.same(types(s.events), [
    'assistant_message',
    'reasoning',
    'tool_call',
    'tool_call',
    'assistant_message',
    'assistant_message',
  ]);
  const [m1, think, call1, call2, m2, m3] = s.events as any[];
  t.same(
    m1,
    {
      id: 'msg-1',
      timestamp: at(1),
      type: 'assistant_message',
      model: 'claude-sonnet-4-5',
      content: [{ type: 'text', text: 'reading' }],
      usage: { inputTokens: 3, outputTokens: 40, cacheReadTokens: 1000, cacheCreationTokens: 20 },
      stopReason: 'tool_use',
    },
    'the lines of one response are one message, its usage once',
  );
  t.same(think, { id: 'a1:thinking', timestamp: at(1), type: 'reasoning', text: 'plan' });
  t.same(call1, {
    id: 'a3:call-1',
    timestamp: at(3),
    type: 'tool_call',
    callId: 'call-1',
    name: 'Read',
    input: { file_path: '/x' },
  });
  t.same(call2.input, null, 'a call without input; one without a name is dropped');
  t.match(m2, { id: 'msg-2', model: 'unknown', content: [], usage: null, stopReason: null });
  t.match(
    m3,
    {
      id: 'a5',
      content: [{ type: 'text', text: 'no id' }],
      usage: { inputTokens: 0, outputTokens: 0, cacheReadTokens: 0, cacheCreationTokens: 0 },
    },
    'no message id: the line is the response; counts that are no counts are 0',
  );
});

t.test('a response copied into a resumed session counts where it first appeared', async (t) => {
  const usage = { input_tokens: 1, output_tokens: 2 };
  const r = readClaudeCode([
    file(
      '/p/first.jsonl',
      assistant(1, 'a1', { usage, content: [{ type: 'text', text: 'x' }] }, { sessionId: 'first' }),
    ),
    file(
      '/p/resumed.jsonl',
      assistant(5, 'b1', { id: 'msg-b', usage, content: [{ type: 'text', text: 'x' }] }, { sessionId: 'resumed' }),
      assistant(6, 'a1', { usage, content: [] }, { sessionId: 'resumed' }),
      assistant(6, 'a1', { usage, content: [] }, { sessionId: 'resumed' }),
    ),
  ]);
  t.same(
    r.sessions.map((s) => s.id),
    ['first', 'resumed'],
  );
  t.match(r.sessions[0]!.events[0], { usage: { inputTokens: 1, outputTokens: 2 } });
  t.match(r.sessions[1]!.events[0], { id: 'msg-b', usage: { inputTokens: 1, outputTokens: 2 } });
  t.match(r.sessions[1]!.events[1], { id: 'msg-1', usage: null }, 'the same message and request again: no usage');
  t.equal(r.sessions[1]!.events.length, 2, 'a line repeated by uuid is read once');
  const noUuid = readClaudeCode([
    file('/p/n.jsonl', user(1, undefined as unknown as string, 'one'), user(2, undefined as unknown as string, 'two')),
  ]);
  t.same(
    noUuid.sessions[0]!.events.map((e) => e.id),
    ['/p/n.jsonl:1', '/p/n.jsonl:2'],
    'lines without a uuid are named by file and line',
  );
});

t.test('system lines', async (t) => {
  const s = only(
    line(1, { type: 'system', uuid: 's1', subtype: 'compact_boundary', content: 'Conversation compacted' }),
    line(2, { type: 'system', uuid: 's2', subtype: 'api_error' }),
    line(3, { type: 'system', uuid: 's3', content: 'note' }),
  );
  t.same(
    s.events.map((e) => [e.type === 'system' && e.kind, e.type === 'system' && e.text]),
    [
      ['compaction', 'Conversation compacted'],
      ['api_error', null],
      ['info', 'note'],
    ],
  );
});

t.test('sub-agents nest under their start, linked to the Task call', async (t) => {
  const task = (s: number, uuid: string, id: string, prompt: string, type = 'Explore') =>
    assistant(s, uuid, {
      id: `m-${uuid}`,
      content: [{ type: 'tool_use', id, name: 'Task', input: { prompt, subagent_type: type } }],
    });
  const side = (s: number, o: Rec) => ({ ...o, timestamp: at(s), isSidechain: true });
  const s = only(
    user(0, 'u0', 'go'),
    task(1, 'm1', 'call-a', 'find A'),
    task(1, 'm2', 'call-b', 'find B', ''),
    task(1, 'm3', 'call-c', 'find C'),
    // Sub-agent A names itself (agent files of current versions); its result names it too.
    side(2, user(0, 'a-1', 'find A', { agentId: 'agent-a' })),
    side(3, assistant(0, 'a-2', { id: 'ma', content: [{ type: 'text', text: 'A is here' }] }, { agentId: 'agent-a' })),
    user(4, 'r-a', [{ type: 'tool_result', tool_use_id: 'call-a', content: [{ type: 'text', text: 'A is here' }] }], {
      toolUseResult: { agentId: 'agent-a' },
    }),
    // Sub-agent B: older lines without agentId, chained by parentUuid; linked by its prompt.
    side(5, user(0, 'b-1', [{ type: 'text', text: 'find B' }])),
    side(6, assistant(0, 'b-2', { id: 'mb', content: [{ type: 'text', text: 'B found' }] }, { parentUuid: 'b-1' })),
    user(7, 'r-b', [
      {
        type: 'tool_result',
        tool_use_id: 'call-b',
        content: [
          { type: 'text', text: 'B' },
          { type: 'text', text: 'done' },
        ],
      },
    ]),
    // Sub-agent C is linked by prompt, but its Task's result was never written.
    side(8, user(0, 'c-1', 'find C', { agentId: 'agent-c' })),
    // A result naming an agent of which no line was read.
    user(9, 'r-x', [{ type: 'tool_result', tool_use_id: 'call-x', content: 'x' }], {
      toolUseResult: { agentId: 'agent-gone' },
    }),
    // A sidechain line that adds nothing leaves an empty thread behind, which is skipped.
    side(10, line(0, { type: 'assistant', uuid: 'e-1', agentId: 'agent-empty' })),
  );
  const byId = new Map(s.events.map((e) => [e.id, e]));
  t.match(byId.get('subagent:agent-a'), {
    type: 'subagent_start',
    agentId: 'agent-a',
    callId: 'call-a',
    name: 'Explore',
    prompt: 'find A',
    timestamp: at(2),
  });
  t.match(byId.get('ma'), { parentId: 'subagent:agent-a' });
  t.match(
    byId.get('r-a:call-a:end'),
    { type: 'subagent_end', agentId: 'agent-a', result: 'A is here' },
    'ended by the result that names it',
  );
  const bStart = [...byId.values()].find((e) => e.type === 'subagent_start' && e.callId === 'call-b');
  t.match(
    bStart,
    { agentId: 'chain-b-1', name: null, prompt: 'find B' },
    'an older chain is named by its first line; no sub-agent type, no name',
  );
  t.match(byId.get('mb'), { parentId: bStart!.id }, "the chain's later lines join it");
  t.match(
    byId.get('r-b:call-b:end'),
    { type: 'subagent_end', agentId: 'chain-b-1', result: 'B\n\ndone', timestamp: at(7) },
    "linked by prompt: ended by its Task's result",
  );
  const ends = s.events.filter((e) => e.type === 'subagent_end');
  t.same(
    ends.map((e) => e.type === 'subagent_end' && e.agentId),
    ['agent-a', 'chain-b-1'],
    'C never ended; the end of an agent never read is dropped',
  );
  t.match(byId.get('subagent:agent-c'), { callId: 'call-c' });
  t.notOk(byId.has('subagent:agent-empty'), 'a sub-agent without events is left out');
  const times = s.events.map((e) => e.timestamp);
  t.same(times, [...times].sort(), 'all in time order');
  t.equal(
    s.events.indexOf(byId.get('r-a:call-a')!) + 1,
    s.events.indexOf(byId.get('r-a:call-a:end')!),
    'an end right after its result',
  );

  const quiet = only(
    task(1, 'm1', 'call-q', 'draw'),
    side(2, user(0, 'q-1', 'draw', { agentId: 'q' })),
    user(3, 'r-q', [
      {
        type: 'tool_result',
        tool_use_id: 'call-q',
        content: [{ type: 'image', source: { type: 'base64', media_type: 'image/png', data: 'cG5n' } }],
      },
    ]),
  );
  t.match(
    quiet.events.find((e) => e.type === 'subagent_end'),
    { id: 'r-q:call-q:end', result: null },
    'a Task result without text ends its sub-agent with no result',
  );
  const unlinked = only(user(0, 'u0', 'go'), side(1, user(0, 'z-1', 'on its own', { agentId: 'z' })));
  t.match(
    unlinked.events[1],
    { type: 'subagent_start', callId: null, name: null, prompt: 'on its own' },
    'no Task call names its prompt',
  );
  const silent = only(
    side(1, assistant(0, 'q-1', { content: [{ type: 'text', text: 'no prompt' }] }, { agentId: 'q' })),
    task(2, 'm', 'call-q', 'x'),
  );
  t.match(
    silent.events[0],
    { type: 'subagent_start', prompt: null, callId: null },
    'a sub-agent that had no prompt is matched to no call',
  );
  t.match(silent.events[0], { timestamp: at(1) });
  const tie = only(user(5, 'main', 'same second'), side(5, user(0, 't-1', 'also', { agentId: 't' })));
  t.same(
    tie.events.map((e) => e.id),
    ['main', 'subagent:t', 't-1'],
    'at the same time the main thread comes first',
  );
  const emptyOnly = read(side(3, line(0, { type: 'assistant', uuid: 'e-1', agentId: 'e' })));
  t.match(
    emptyOnly.sessions[0],
    { startedAt: at(3), events: [] },
    'only an empty sub-agent: started when its line was written',
  );
});

t.test('blobs go in the bag given', async (t) => {
  const bag = new BlobBag();
  const r = readClaudeCode(
    [
      file(
        '/p/s.jsonl',
        user(1, 'u', [{ type: 'image', source: { type: 'base64', media_type: 'image/png', data: 'cG5n' } }]),
      ),
    ],
    bag,
  );
  t.equal(r.blobs, bag);
  t.equal(bag.blobs.size, 1);
  t.same(
    bag.of((r.sessions[0]!.events[0] as unknown as { content: never[] }).content).map((b) => b.data),
    ['cG5n'],
  );
});
