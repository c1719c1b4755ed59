import t from 'tap';
import {
  runTrace,
  sessionOfRun,
  turnFigures,
  type StoredEvent,
  type TracedRun,
  type TracedTurn,
} from '../../../src/core/workers/thread.js';

const RUN: TracedRun = {
  id: 'run-1',
  agent: 'claude-code',
  title: null,
  createdAt: '2026-11-24T10:00:00.000Z',
  endedAt: null,
  repository: 'acme/shop',
  workBranch: 'tracelake/run-1',
  headCommit: 'c'.repeat(40),
  createdBy: 'key:k1',
};

const turn = (index: number, over: Partial<TracedTurn> = {}): TracedTurn => ({
  index,
  prompt: `Prompt ${index}\nmore`,
  createdAt: `2026-11-24T10:0${index}:00.000Z`,
  status: 'succeeded',
  attempt: 1,
  finishedAt: `2026-11-24T10:0${index}:30.000Z`,
  reason: 'exit',
  error: null,
  commitSha: null,
  ...over,
});

const ev = (turnIndex: number, seq: number, over: Partial<StoredEvent>): StoredEvent => ({
  turnIndex,
  attempt: 1,
  seq,
  at: `2026-11-24T10:0${turnIndex}:0${seq}.000Z`,
  kind: 'agent',
  text: null,
  level: null,
  event: null,
  ...over,
});

t.test('a run as a coding-agent session: ended turns, last attempts, ids of our own', async (t) => {
  const turns = [
    turn(0, { commitSha: 'a'.repeat(40) }),
    turn(1, { status: 'failed', reason: 'timeout', error: 'too slow', attempt: 3 }),
    turn(2, { status: 'running', finishedAt: null }),
  ];
  const events: StoredEvent[] = [
    ev(0, 0, { kind: 'step', text: 'Workspace ready', level: 'info' }),
    ev(0, 1, { kind: 'stdout', text: 'plain output stays out of the trace' }),
    ev(0, 2, { event: { type: 'subagent_start', id: 'sa', agentId: 'x' } }),
    ev(0, 3, {
      event: {
        type: 'tool_call',
        id: 'agent-id',
        parentId: 'sa',
        callId: 'c1',
        name: 'Read',
        timestamp: '2026-11-24T09:59:59.000Z',
      },
    }),
    ev(0, 4, {
      event: { type: 'tool_result', parentId: 'unknown', callId: 'c1', content: [], timestamp: 'not a time' },
    }),
    ev(0, 5, { event: { type: 'system', kind: 'info', parentId: 7 } }),
    ev(0, 6, { event: null }),
    ev(0, 7, { kind: 'step', text: null, level: 'error' }),
    ev(1, 0, { attempt: 2, kind: 'step', text: 'an earlier attempt: not traced', level: 'info' }),
    ev(1, 0, { attempt: 3, event: { type: 'tool_call', callId: 'c1', name: 'Edit' } }),
    ev(2, 0, { kind: 'step', text: 'running: not traced yet', level: 'info' }),
  ];
  const s = sessionOfRun(RUN, turns, events);
  t.match(s, {
    id: 'run-1',
    agent: { name: 'claude-code', version: null },
    startedAt: RUN.createdAt,
    endedAt: null,
    title: 'Prompt 0',
    cwd: null,
    userId: 'key:k1',
  });
  t.same(s.git, { repository: 'acme/shop', branch: 'tracelake/run-1', commit: 'c'.repeat(40) });
  t.same(
    s.events.map((e) => [e.id, e.type, e.parentId ?? null]),
    [
      ['t0.prompt', 'user_message', null],
      ['t0.a1.0', 'system', null],
      ['t0.a1.2', 'subagent_start', null],
      ['t0.a1.3', 'tool_call', 't0.a1.2'],
      ['t0.a1.4', 'tool_result', null],
      ['t0.a1.5', 'system', null],
      ['t0.a1.7', 'system', null],
      ['t0.end', 'system', null],
      ['t1.prompt', 'user_message', null],
      ['t1.attempts', 'system', null],
      ['t1.a3.0', 'tool_call', null],
      ['t1.end', 'system', null],
    ],
  );
  const byId = Object.fromEntries(s.events.map((e) => [e.id, e as unknown as Record<string, unknown>]));
  t.match(byId['t0.prompt'], {
    content: [{ type: 'text', text: 'Prompt 0\nmore' }],
    timestamp: '2026-11-24T10:00:00.000Z',
  });
  t.match(byId['t0.a1.0'], { kind: 'worker', text: 'Workspace ready' });
  t.match(byId['t0.a1.7'], { kind: 'error', text: '' });
  t.match(
    byId['t0.a1.3'],
    { callId: 't0.c1', timestamp: '2026-11-24T09:59:59.000Z' },
    "call ids renamed within the turn; the agent's own time kept",
  );
  t.match(byId['t0.a1.4'], { callId: 't0.c1', timestamp: '2026-11-24T10:00:04.000Z' }, "a bad time is the worker's");
  t.match(byId['t1.a3.0'], { callId: 't1.c1' }, 'the same agent call id in another turn is another call');
  t.match(byId['t0.end'], {
    kind: 'worker',
    text: `turn 0 succeeded; checkpoint ${'a'.repeat(12)}`,
    timestamp: '2026-11-24T10:00:30.000Z',
  });
  t.match(byId['t1.end'], { kind: 'error', text: 'turn 1 failed (timeout): too slow' });
  t.match(byId['t1.attempts'], { text: /^2 earlier attempts of this turn/ });
});

t.test('titles', async (t) => {
  t.equal(sessionOfRun({ ...RUN, title: 'Fix the cart' }, [turn(0)], []).title, 'Fix the cart');
  t.equal(
    sessionOfRun(RUN, [turn(0, { finishedAt: null, status: 'running' })], []).title,
    'Prompt 0',
    'from the first turn while none has ended',
  );
  t.equal(sessionOfRun(RUN, [], []).title, null, 'no turn, no title');
  t.equal(sessionOfRun(RUN, [turn(0, { prompt: '\nsecond line' })], []).title, null, 'an empty first line is no title');
  t.equal(sessionOfRun(RUN, [turn(0, { prompt: 'x'.repeat(2000) })], []).title!.length, 1024);
  t.equal(
    sessionOfRun(RUN, [turn(0, { prompt: `${'x'.repeat(1023)}😀` })], []).title,
    'x'.repeat(1023),
    'not half an emoji',
  );
  const one = sessionOfRun(RUN, [turn(0, { attempt: 2 })], []);
  t.match(
    one.events.find((e) => e.id === 't0.attempts'),
    { text: /^1 earlier attempt of this turn/ },
  );
  t.match(sessionOfRun(RUN, [turn(0, { reason: null, status: 'cancelled' })], []).events.at(-1), {
    kind: 'error',
    text: 'turn 0 cancelled',
  });
});

t.test('figures of an attempt', async (t) => {
  const events: StoredEvent[] = [
    ev(0, 0, {
      event: {
        type: 'assistant_message',
        model: 'gpt-4o',
        content: [],
        usage: { inputTokens: 100, outputTokens: 10, cacheReadTokens: 50, cacheCreationTokens: 5 },
      },
    }),
    ev(0, 1, {
      event: { type: 'assistant_message', model: 'other', content: [], usage: { inputTokens: 1, outputTokens: 2 } },
    }),
    ev(0, 2, { event: { type: 'tool_call', callId: 'c', name: 'Read' } }),
    ev(0, 3, { event: { type: 'tool_call', callId: 'd', name: 'Edit' } }),
    ev(0, 4, { kind: 'stdout', text: 'x' }),
    ev(0, 5, { event: null }),
  ];
  t.same(turnFigures(events), { costUsd: 0, inputTokens: 156, outputTokens: 12, toolCalls: 2 }, 'without prices');
  const priced = turnFigures(events, (model, usage) =>
    model === 'gpt-4o' ? (usage.inputTokens ?? 0) / 1000 : undefined,
  );
  t.same(
    priced,
    { costUsd: 0.155, inputTokens: 156, outputTokens: 12, toolCalls: 2 },
    "the price table's cost over the whole prompt",
  );
  t.same(turnFigures([]), { costUsd: 0, inputTokens: 0, outputTokens: 0, toolCalls: 0 });
});

t.test('a run traced: its session, and figures of ended turns without any, from their last attempts', async (t) => {
  const turns = [
    { ...turn(0), figured: true },
    { ...turn(1, { attempt: 2 }), figured: false },
    { ...turn(2, { status: 'running', finishedAt: null }), figured: false },
    { ...turn(3), figured: false },
  ];
  const usage = (inputTokens: number) => ({
    type: 'assistant_message',
    model: 'gpt-4o',
    content: [],
    usage: { inputTokens, outputTokens: 1 },
  });
  const events: StoredEvent[] = [
    ev(0, 0, { event: usage(1) }),
    ev(1, 0, { attempt: 1, event: usage(1000) }),
    ev(1, 0, { attempt: 2, event: usage(20) }),
    ev(1, 1, { attempt: 2, event: { type: 'tool_call', callId: 'c', name: 'Read' } }),
    ev(2, 0, { event: usage(300) }),
  ];
  const traced = runTrace(RUN, turns, events, (model, u) =>
    model === 'gpt-4o' ? (u.inputTokens ?? 0) / 100 : undefined,
  );
  t.same(
    traced.figures,
    [
      { turnIndex: 1, costUsd: 0.2, inputTokens: 20, outputTokens: 1, toolCalls: 1 },
      { turnIndex: 3, costUsd: 0, inputTokens: 0, outputTokens: 0, toolCalls: 0 },
    ],
    'turn 0 has figures, turn 2 runs; turn 1 from its second attempt; turn 3 had no events',
  );
  t.same(
    traced.session!.events.map((e) => e.id),
    [
      't0.prompt',
      't0.a1.0',
      't0.end',
      't1.prompt',
      't1.attempts',
      't1.a2.0',
      't1.a2.1',
      't1.end',
      't3.prompt',
      't3.end',
    ],
    "the session: ended turns, each with its last attempt's events",
  );
  const none = runTrace(
    RUN,
    [{ ...turn(0, { status: 'running', finishedAt: null }), figured: false }],
    [ev(0, 0, { event: usage(5) })],
  );
  t.same(none, { session: null, figures: [] }, 'nothing ended: nothing to trace or figure');
});
