/** Usage per model (the sync command's summary, compared with ccusage) and the session fingerprint. */
import t from 'tap';
import type { CostFn } from '../../../src/core/otlp/fields.js';
import { fingerprint, usageByModel } from '../../../src/core/agents/usage.js';
import type { AgentEvent, AgentSession } from '../../../src/core/agents/session.js';

const at = '2025-11-20T09:00:00.000Z';
const session = (id: string, events: AgentEvent[], endedAt: string | null = null): AgentSession => ({
  id,
  agent: { name: 'claude-code' },
  startedAt: at,
  endedAt,
  events,
});
const reply = (
  id: string,
  model: string,
  usage: { inputTokens: number; outputTokens: number; cacheReadTokens?: number; cacheCreationTokens?: number } | null,
): AgentEvent => ({
  id,
  timestamp: at,
  type: 'assistant_message',
  model,
  content: [],
  usage,
});

const sessions = [
  session('a', [
    { id: 'u', timestamp: at, type: 'user_message', content: [{ type: 'text', text: 'hi' }] },
    reply('1', 'opus', { inputTokens: 10, outputTokens: 20, cacheReadTokens: 1000, cacheCreationTokens: 300 }),
    reply('2', 'opus', { inputTokens: 5, outputTokens: 7 }),
    reply('3', 'haiku', null),
  ]),
  session('b', [
    reply('1', 'haiku', { inputTokens: 1, outputTokens: 2, cacheReadTokens: 3 }),
    reply('2', 'free-model', { inputTokens: 4, outputTokens: 4 }),
  ]),
];

t.test('tokens add up per model; no usage, no row', async (t) => {
  const u = usageByModel(sessions);
  t.same(
    Object.keys(u).sort(),
    ['free-model', 'haiku', 'opus'],
    'haiku is there for the message that reported usage only',
  );
  t.same(u.opus, { inputTokens: 15, outputTokens: 27, cacheReadTokens: 1000, cacheCreationTokens: 300, cost: 0 });
  t.same(u.haiku, { inputTokens: 1, outputTokens: 2, cacheReadTokens: 3, cacheCreationTokens: 0, cost: 0 });
  t.same(usageByModel([]), {});
});

t.test('cost from the price table: the whole prompt, cache reads named', async (t) => {
  const asked: unknown[] = [];
  const costOf: CostFn = (model, usage) => {
    asked.push([model, usage]);
    return model === 'free-model' ? undefined : usage.inputTokens! * 0.001 + usage.outputTokens! * 0.002;
  };
  const u = usageByModel(sessions, costOf);
  t.same(
    asked[0],
    ['opus', { inputTokens: 1310, outputTokens: 20, cachedInputTokens: 1000 }],
    'input counts cache reads and writes as the price table expects',
  );
  t.equal(u.opus!.cost, 1.369, '1.35 + 0.019, rounded as money (never 1.3690000000000002)');
  t.equal(u['free-model']!.cost, 0, 'a model without a price costs 0');
});

t.test('usage adds into what is given', async (t) => {
  const into = usageByModel([sessions[1]!]);
  const total = usageByModel([sessions[1]!], undefined, into);
  t.equal(total, into, 'the same object');
  t.same(total.haiku, { inputTokens: 2, outputTokens: 4, cacheReadTokens: 6, cacheCreationTokens: 0, cost: 0 });
});

t.test('the fingerprint changes when a session grows or ends', async (t) => {
  const s = sessions[0]!;
  t.equal(fingerprint(s), '4/3/open');
  t.equal(fingerprint(session('e', [])), '0//open', 'no events yet');
  t.equal(fingerprint({ ...s, endedAt: at }), '4/3/ended');
  t.not(fingerprint({ ...s, events: [...s.events, reply('4', 'opus', null)] }), fingerprint(s));
  t.equal(
    fingerprint({ ...s, events: s.events.map((e) => ({ ...e })) }),
    fingerprint(s),
    'the same session read again',
  );
});
