/**
 * A session → span records: the root AGENT span, generations with tokens and cost, tool spans that
 * hold their results, nested sub-agents, EVENT rows; ids from the session's names, and a span written
 * only once it is final.
 */
import t from 'tap';
import { sessionSpanId, sessionTraceId } from '../../../src/core/agents/ids.js';
import { mapSession, nsOf, renderContent, unstorableTime } from '../../../src/core/agents/map.js';
import type { AgentEvent, AgentSession } from '../../../src/core/agents/session.js';
import type { CostFn } from '../../../src/core/otlp/fields.js';
import type { SpanRecord } from '../../../src/core/span.js';

const scope = { tenantId: 'ten', appId: 'app' };
const key = (s: AgentSession) => ({ ...scope, agent: s.agent.name, sessionId: s.id });
const at = (second: number) => new Date(Date.UTC(2025, 10, 20, 9, 0, second)).toISOString();
const ns = (second: number) => nsOf(at(second));
const text = (s: string) => ({ type: 'text' as const, text: s });
const png = { type: 'blob' as const, sha256: 'a'.repeat(64), mediaType: 'image/png', bytes: 12 };

/** A session that does a bit of everything, finished or not. */
function session(events: AgentEvent[], extra: Partial<AgentSession> = {}): AgentSession {
  return { id: 'sess-1', agent: { name: 'claude-code', version: '2.0.42' }, startedAt: at(0), events, ...extra };
}

const EVENTS: AgentEvent[] = [
  { id: 'u1', timestamp: at(1), type: 'user_message', content: [text('fix the cart'), png] },
  { id: 'r1', timestamp: at(2), type: 'reasoning', text: 'look at totals' },
  {
    id: 'a1',
    timestamp: at(3),
    type: 'assistant_message',
    model: 'claude-sonnet-4-5',
    content: [text('reading')],
    usage: { inputTokens: 10, outputTokens: 20, cacheReadTokens: 100, cacheCreationTokens: 5, reasoningTokens: 3 },
    stopReason: 'tool_use',
  },
  {
    id: 'c1',
    timestamp: at(3),
    type: 'tool_call',
    callId: 'call-read',
    name: 'Read',
    input: { file_path: '/cart.ts' },
  },
  { id: 'c2', timestamp: at(3), type: 'tool_call', callId: 'call-bash', name: 'Bash', input: 'npm test' },
  { id: 'x1', timestamp: at(4), type: 'tool_result', callId: 'call-read', content: [text('export const total = 1;')] },
  {
    id: 'x2',
    timestamp: at(6),
    type: 'tool_result',
    callId: 'call-bash',
    content: [text(`FAIL ${'y'.repeat(600)}\nsecond line`)],
    isError: true,
  },
  { id: 'a2', timestamp: at(7), type: 'assistant_message', model: 'claude-sonnet-4-5', content: [], usage: null },
  { id: 'c3', timestamp: at(8), type: 'tool_call', callId: 'call-task', name: 'Task', input: { prompt: 'explore' } },
  {
    id: 'sa',
    timestamp: at(9),
    type: 'subagent_start',
    agentId: 'agent-1',
    name: 'Explore',
    prompt: 'explore',
    callId: 'call-task',
  },
  { id: 'sa-u', parentId: 'sa', timestamp: at(9), type: 'user_message', content: [text('explore')] },
  {
    id: 'sa-a',
    parentId: 'sa',
    timestamp: at(11),
    type: 'assistant_message',
    model: 'claude-haiku-4-5',
    content: [text('found it')],
    usage: { inputTokens: 1, outputTokens: 2 },
  },
  { id: 'sa-c', parentId: 'sa', timestamp: at(12), type: 'tool_call', callId: 'call-grep', name: 'Grep' },
  { id: 'sa-x', parentId: 'sa', timestamp: at(13), type: 'tool_result', callId: 'call-grep', content: [] },
  { id: 'se', timestamp: at(14), type: 'subagent_end', agentId: 'agent-1', result: 'it is rounding' },
  { id: 'x3', timestamp: at(14), type: 'tool_result', callId: 'call-task', content: [text('it is rounding')] },
  {
    id: 'o1',
    timestamp: at(15),
    type: 'tool_result',
    callId: 'call-unknown',
    content: [text('orphan')],
    isError: true,
  },
  { id: 'o2', timestamp: at(15), type: 'tool_result', callId: 'call-unknown-2', content: [] },
  { id: 'sys', timestamp: at(16), type: 'system', kind: 'compaction', text: 'summary of before' },
  { id: 'sys2', timestamp: at(16), type: 'system', kind: 'info' },
  { id: 'r2', timestamp: at(17), type: 'reasoning', text: '' },
  { id: 'c4', timestamp: at(18), type: 'tool_call', callId: 'call-pending', name: 'Edit', input: { path: '/cart.ts' } },
];

const byId = (spans: SpanRecord[], s: AgentSession, role: string, id: string) =>
  spans.find((x) => x.spanId === sessionSpanId(key(s), role, id));

t.test('the root span', async (t) => {
  const s = session(EVENTS, {
    title: 'Fix rounding',
    cwd: '/home/dev/shop',
    git: { repository: 'https://github.com/acme/shop', branch: 'main', commit: null },
    userId: 'dev@acme',
  });
  const spans = mapSession(s, scope);
  const root = spans[0]!;
  t.match(root, {
    traceId: sessionTraceId(key(s)),
    spanId: sessionSpanId(key(s), 'session', ''),
    parentId: null,
    name: 'Fix rounding',
    type: 'SPAN',
    spanKind: 'agent',
    status: 'UNSET',
    startNs: ns(0),
    endNs: ns(18),
    input: JSON.stringify([
      { type: 'text', text: 'fix the cart' },
      { type: 'blob', mediaType: 'image/png', sha256: 'a'.repeat(64), bytes: 12 },
    ]),
    output: null,
    serviceName: 'claude-code',
    sessionId: 'sess-1',
    userId: 'dev@acme',
    runId: null,
    promptName: null,
    tags: ['agent:claude-code'],
  });
  t.same(
    root.metadata,
    {
      agent: 'claude-code',
      agent_version: '2.0.42',
      cwd: '/home/dev/shop',
      git_repository: 'https://github.com/acme/shop',
      git_branch: 'main',
      title: 'Fix rounding',
    },
    'what is unknown is left out',
  );
  t.same(root.resource, { 'service.name': 'claude-code', 'service.version': '2.0.42' });
  t.same(root.scope, { name: 'tracelake.agents', version: '1' });
  for (const span of spans) {
    t.equal(span.traceId, root.traceId);
    t.same([span.sessionId, span.userId, span.serviceName], ['sess-1', 'dev@acme', 'claude-code']);
  }
  t.equal(new Set(spans.map((x) => x.spanId)).size, spans.length, 'span ids are unique');
  t.same(
    Object.keys(spans[0]!),
    Object.keys(spans[spans.length - 1]!),
    'every record has the same fields in the same order',
  );

  const bare = mapSession({ id: 'b', agent: { name: 'codex' }, startedAt: at(5), events: [] }, scope);
  t.equal(bare.length, 1);
  t.match(bare[0], { name: 'codex session', startNs: ns(5), endNs: ns(5), input: null, userId: null });
  t.same(bare[0]!.metadata, { agent: 'codex' });
  t.same(bare[0]!.resource, { 'service.name': 'codex' });
  const ended = mapSession({ id: 'b', agent: { name: 'codex' }, startedAt: at(5), endedAt: at(60), events: [] }, scope);
  t.equal(ended[0]!.endNs, ns(60), 'an ended session ends when it says');
  const clockSkew = mapSession(
    { id: 'b', agent: { name: 'codex' }, startedAt: at(5), endedAt: at(1), events: [] },
    scope,
  );
  t.equal(clockSkew[0]!.endNs, ns(5), 'never before it started');
  const subOnly = mapSession(
    session([
      { id: 'sa', timestamp: at(1), type: 'subagent_start', agentId: 'x' },
      { id: 'in', parentId: 'sa', timestamp: at(2), type: 'user_message', content: [text('nested')] },
    ]),
    scope,
  );
  t.equal(subOnly[0]!.input, null, 'the root input is a top-level prompt only');
});

t.test('generations', async (t) => {
  const s = session(EVENTS);
  const costOf: CostFn = (model, u) =>
    model === 'claude-haiku-4-5' ? undefined : u.inputTokens! + u.outputTokens! * 10 + u.cachedInputTokens! / 100;
  const spans = mapSession(s, scope, { costOf });
  const a1 = byId(spans, s, 'generation', 'a1')!;
  t.match(a1, {
    parentId: sessionSpanId(key(s), 'session', ''),
    name: 'claude-sonnet-4-5',
    type: 'GENERATION',
    spanKind: 'llm',
    status: 'OK',
    model: 'claude-sonnet-4-5',
    startNs: ns(2),
    endNs: ns(3),
    inputTokens: 115,
    outputTokens: 20,
    cachedInputTokens: 100,
    tokens: 135,
    cost: 115 + 200 + 1,
    input: JSON.stringify([
      {
        role: 'user',
        content: JSON.stringify([
          { type: 'text', text: 'fix the cart' },
          { type: 'blob', mediaType: 'image/png', sha256: 'a'.repeat(64), bytes: 12 },
        ]),
      },
    ]),
    output: JSON.stringify({
      role: 'assistant',
      content: 'reading',
      tool_calls: [
        { id: 'call-read', name: 'Read' },
        { id: 'call-bash', name: 'Bash' },
      ],
    }),
  });
  t.same(a1.attributes, {
    'gen_ai.usage.input_tokens': 115,
    'gen_ai.usage.output_tokens': 20,
    'gen_ai.usage.cache_read_input_tokens': 100,
    'gen_ai.usage.cache_creation_input_tokens': 5,
    'gen_ai.usage.reasoning_tokens': 3,
    'gen_ai.response.finish_reason': 'tool_use',
  });
  const a2 = byId(spans, s, 'generation', 'a2')!;
  t.match(a2, {
    startNs: ns(6),
    endNs: ns(7),
    inputTokens: null,
    outputTokens: null,
    cachedInputTokens: null,
    tokens: null,
    cost: null,
  });
  t.equal(
    a2.output,
    JSON.stringify({
      role: 'assistant',
      content: null,
      tool_calls: [
        { id: 'call-task', name: 'Task' },
        { id: 'call-pending', name: 'Edit' },
      ],
    }),
    'no text, the calls that followed it in its thread',
  );
  t.equal(
    a2.input,
    JSON.stringify([
      { role: 'tool', tool_call_id: 'call-read' },
      { role: 'tool', tool_call_id: 'call-bash' },
    ]),
    'what came in since the last message',
  );
  t.same(a2.attributes, {}, 'no usage, no usage attributes');
  const nested = byId(spans, s, 'generation', 'sa-a')!;
  t.match(
    nested,
    {
      parentId: sessionSpanId(key(s), 'agent', 'sa'),
      startNs: ns(9),
      endNs: ns(11),
      cost: null,
      inputTokens: 1,
      cachedInputTokens: 0,
    },
    'in its sub-agent; a model without a price has no cost',
  );
  t.equal(
    nested.output,
    JSON.stringify({ role: 'assistant', content: 'found it', tool_calls: [{ id: 'call-grep', name: 'Grep' }] }),
    'the calls of its own thread only',
  );
  t.equal(byId(mapSession(s, scope), s, 'generation', 'a1')!.cost, null, 'no price table, no cost');

  const back = session([
    { id: 'u', timestamp: at(5), type: 'user_message', content: [text('hi')] },
    { id: 'a', timestamp: at(4), type: 'assistant_message', model: 'm', content: [text('out of order')] },
  ]);
  t.match(
    byId(mapSession(back, scope), back, 'generation', 'a'),
    { startNs: ns(4), endNs: ns(4), input: JSON.stringify([{ role: 'user', content: 'hi' }]) },
    'a clock that went back: no negative duration',
  );
  const first = session([{ id: 'a', timestamp: at(4), type: 'assistant_message', model: 'm', content: [] }]);
  t.match(
    byId(mapSession(first, scope), first, 'generation', 'a'),
    { startNs: ns(0), input: null, output: null },
    'the first message runs from the session start',
  );
});

t.test('an error line is cut before half a character', async (t) => {
  const s = session([
    { id: 'c', timestamp: at(1), type: 'tool_call', callId: 'call-x', name: 'Bash', input: 'x' },
    {
      id: 'r',
      timestamp: at(2),
      type: 'tool_result',
      callId: 'call-x',
      content: [text(`${'y'.repeat(499)}😀 more`)],
      isError: true,
    },
  ]);
  t.equal(byId(mapSession(s, scope), s, 'tool', 'call-x')!.statusMessage, 'y'.repeat(499));
});

t.test('tool calls hold their results', async (t) => {
  const s = session(EVENTS);
  const spans = mapSession(s, scope);
  const read = byId(spans, s, 'tool', 'call-read')!;
  t.match(read, {
    parentId: sessionSpanId(key(s), 'session', ''),
    name: 'Read',
    type: 'SPAN',
    spanKind: 'tool',
    status: 'OK',
    statusMessage: null,
    startNs: ns(3),
    endNs: ns(4),
    input: '{"file_path":"/cart.ts"}',
    output: 'export const total = 1;',
  });
  t.same(read.attributes, { 'gen_ai.tool.name': 'Read', 'gen_ai.tool.call.id': 'call-read' });
  const bash = byId(spans, s, 'tool', 'call-bash')!;
  t.match(
    bash,
    { status: 'ERROR', input: 'npm test', statusMessage: `FAIL ${'y'.repeat(495)}`, endNs: ns(6) },
    'free-form input as text; the error is the first line, at most 500 characters',
  );
  const grep = byId(spans, s, 'tool', 'call-grep')!;
  t.match(
    grep,
    { parentId: sessionSpanId(key(s), 'agent', 'sa'), status: 'OK', input: null, output: null },
    'no input, empty result',
  );
  t.equal(byId(spans, s, 'tool', 'call-pending'), undefined, 'a call whose result may still come is not written yet');
  t.equal(byId(spans, s, 'event', 'x1'), undefined, 'a result is part of its call, no row of its own');
  const silentFailure = session([
    { id: 'c', timestamp: at(1), type: 'tool_call', callId: 'c', name: 'Bash', input: 'false' },
    { id: 'x', timestamp: at(2), type: 'tool_result', callId: 'c', content: [], isError: true },
    { id: 'c2', timestamp: at(3), type: 'tool_call', callId: 'c2', name: 'Bash', input: 'ls /nope' },
    {
      id: 'x2',
      timestamp: at(4),
      type: 'tool_result',
      callId: 'c2',
      content: [text('ls: /nope: No such file\nexit 1')],
      isError: true,
    },
  ]);
  t.match(
    byId(mapSession(silentFailure, scope), silentFailure, 'tool', 'c'),
    { status: 'ERROR', statusMessage: null, output: null },
    'an error that said nothing',
  );
  t.match(
    byId(mapSession(silentFailure, scope), silentFailure, 'tool', 'c2'),
    { status: 'ERROR', statusMessage: 'ls: /nope: No such file' },
    'the first line of the error',
  );

  const endedSpans = mapSession({ ...s, endedAt: at(30) }, scope);
  t.match(
    byId(endedSpans, s, 'tool', 'call-pending'),
    { status: 'UNSET', statusMessage: null, startNs: ns(18), endNs: ns(18), output: null },
    'once the session ended it is written without a result',
  );

  const abandoned = session([
    ...EVENTS,
    { id: 'u2', timestamp: at(19), type: 'user_message', content: [text('never mind')] },
  ]);
  t.match(
    byId(mapSession(abandoned, scope), abandoned, 'tool', 'call-pending'),
    { status: 'UNSET', output: null },
    'the user spoke after it: the call was abandoned',
  );
  const early = session([
    { id: 'r', timestamp: at(5), type: 'tool_call', callId: 'c', name: 'Read' },
    { id: 'x', timestamp: at(4), type: 'tool_result', callId: 'c', content: [] },
  ]);
  t.match(
    byId(mapSession(early, scope), early, 'tool', 'c'),
    { startNs: ns(5), endNs: ns(5) },
    'a result stamped before its call ends the span where it starts',
  );
});

t.test('sub-agents nest under the call that launched them', async (t) => {
  const s = session(EVENTS);
  const spans = mapSession(s, scope);
  const agent = byId(spans, s, 'agent', 'sa')!;
  t.match(agent, {
    parentId: sessionSpanId(key(s), 'tool', 'call-task'),
    name: 'subagent Explore',
    type: 'SPAN',
    spanKind: 'agent',
    startNs: ns(9),
    endNs: ns(14),
    input: 'explore',
    output: 'it is rounding',
  });
  t.same(agent.attributes, { 'gen_ai.agent.id': 'agent-1', 'gen_ai.agent.name': 'Explore' });
  t.match(byId(spans, s, 'event', 'sa-u'), { parentId: agent.spanId, input: 'explore' }, 'its events beneath it');

  const plain = session([
    { id: 'sa', timestamp: at(2), type: 'subagent_start', agentId: 'agent-9', callId: 'no-such-call' },
    { id: 'in', parentId: 'sa', timestamp: at(4), type: 'user_message', content: [] },
    { id: 'end', timestamp: at(6), type: 'subagent_end', agentId: 'agent-9' },
  ]);
  const p = byId(mapSession(plain, scope), plain, 'agent', 'sa')!;
  t.match(
    p,
    {
      parentId: sessionSpanId(key(plain), 'session', ''),
      name: 'subagent agent-9',
      endNs: ns(6),
      input: null,
      output: null,
    },
    'no known launcher: under its thread; named by its id',
  );
  t.same(p.attributes, { 'gen_ai.agent.id': 'agent-9' });

  const open = session(plain.events.slice(0, 2));
  t.equal(byId(mapSession(open, scope), open, 'agent', 'sa'), undefined, 'not ended yet: not written');
  t.match(
    byId(mapSession({ ...open, endedAt: at(30) }, scope), open, 'agent', 'sa'),
    { endNs: ns(4) },
    'the session ended: it ends with its last event',
  );
  const lone = session(plain.events.slice(0, 1), { endedAt: at(30) });
  t.match(
    byId(mapSession(lone, scope), lone, 'agent', 'sa'),
    { startNs: ns(2), endNs: ns(2) },
    'no events of its own: it ends where it starts',
  );
  const left = session([...open.events, { id: 'u', timestamp: at(8), type: 'user_message', content: [text('stop')] }]);
  t.match(
    byId(mapSession(left, scope), left, 'agent', 'sa'),
    { endNs: ns(4) },
    'the user went on without it: written as it is',
  );
});

t.test('events', async (t) => {
  const s = session(EVENTS);
  const spans = mapSession(s, scope);
  const ev = (id: string) => byId(spans, s, 'event', id)!;
  t.match(ev('u1'), {
    name: 'user message',
    type: 'EVENT',
    spanKind: 'function',
    startNs: ns(1),
    endNs: ns(1),
    status: 'UNSET',
    output: null,
  });
  t.match(ev('r1'), { name: 'reasoning', output: 'look at totals', input: null });
  t.match(ev('r2'), { name: 'reasoning', output: null }, 'reasoning kept out by the tier');
  t.match(ev('o1'), { name: 'tool result', status: 'ERROR', output: 'orphan' }, 'a result without its call');
  t.match(ev('o2'), { status: 'UNSET', output: null });
  t.match(ev('sys'), { name: 'system: compaction', output: 'summary of before' });
  t.match(ev('sys2'), { name: 'system: info', output: null });
  t.same(ev('sys').metadata, {});
  t.same(ev('sys').attributes, {});
  t.equal(byId(spans, s, 'event', 'se'), undefined, 'a sub-agent end is part of its span');
});

t.test('a grown session: the same spans again, and the new ones', async (t) => {
  const part = mapSession(session(EVENTS.slice(0, 8)), scope);
  const whole = mapSession(session(EVENTS), scope);
  const ids = new Set(whole.map((x) => x.spanId));
  t.ok(
    part.every((x) => ids.has(x.spanId)),
    'every span of the first read is in the second',
  );
  t.ok(whole.length > part.length);
  t.same(mapSession(session(EVENTS), scope), whole, 'the same session maps the same');
  t.not(
    mapSession(session(EVENTS), { tenantId: 'other', appId: 'app' })[0]!.traceId,
    whole[0]!.traceId,
    'another tenant, another trace',
  );
});

t.test('content as span text', async (t) => {
  t.equal(renderContent([]), null);
  t.equal(renderContent([text('a'), text('b')]), 'a\n\nb');
  const textBlob = {
    type: 'blob' as const,
    sha256: 'b'.repeat(64),
    mediaType: 'text/plain',
    bytes: 4,
    name: 'log.txt',
  };
  t.equal(
    renderContent([text('a'), textBlob], new Map([['b'.repeat(64), 'blob text']])),
    'a\n\nblob text',
    'a text blob of the request, as its text',
  );
  t.equal(
    renderContent([text('a'), textBlob, png]),
    JSON.stringify([
      { type: 'text', text: 'a' },
      { type: 'blob', mediaType: 'text/plain', sha256: 'b'.repeat(64), bytes: 4, name: 'log.txt' },
      { type: 'blob', mediaType: 'image/png', sha256: 'a'.repeat(64), bytes: 12 },
    ]),
    'media references otherwise',
  );
  t.equal(
    renderContent([png], new Map([['b'.repeat(64), 'x']])),
    JSON.stringify([{ type: 'blob', mediaType: 'image/png', sha256: 'a'.repeat(64), bytes: 12 }]),
  );
  t.equal(nsOf('2025-11-20T09:00:01.250Z'), 1763629201250000000n);
});

t.test('times no span can hold are found (64-bit nanoseconds end in 2262; the epoch is a missing time)', async (t) => {
  t.equal(unstorableTime(session(EVENTS, { endedAt: at(20) })), null, 'a session of today');
  t.equal(
    unstorableTime(session([], { startedAt: '2262-04-11T23:47:16.854Z' })),
    null,
    'the last millisecond that fits',
  );
  t.equal(unstorableTime(session([], { startedAt: '1970-01-01T00:00:00.001Z' })), null, 'the first');
  t.same(unstorableTime(session([], { startedAt: '2262-04-11T23:47:16.855Z' })), {
    where: 'startedAt',
    value: '2262-04-11T23:47:16.855Z',
  });
  t.same(unstorableTime(session([], { startedAt: '1970-01-01T00:00:00Z' })), {
    where: 'startedAt',
    value: '1970-01-01T00:00:00Z',
  });
  t.same(unstorableTime(session([], { startedAt: '1969-12-31T23:59:59Z' })), {
    where: 'startedAt',
    value: '1969-12-31T23:59:59Z',
  });
  t.same(unstorableTime(session([], { endedAt: '9999-12-31T23:59:59.999Z' })), {
    where: 'endedAt',
    value: '9999-12-31T23:59:59.999Z',
  });
  const late = [...EVENTS.slice(0, 3), { ...EVENTS[3]!, timestamp: '9999-12-31T23:59:59.999Z' }];
  t.same(unstorableTime(session(late)), { where: 'events[3].timestamp', value: '9999-12-31T23:59:59.999Z' });
});
