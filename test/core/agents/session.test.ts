/**
 * The session shape, version 1: the readers' output is what the contract's validators accept, and the
 * limits the typia tags set are enforced.
 */
import t from 'tap';
import { validateAgentSession } from '../../../src/contract/agents.js';
import { SESSION_SCHEMA_VERSION, type AgentSession } from '../../../src/core/agents/session.js';

const session: AgentSession = {
  id: 's',
  agent: { name: 'claude-code', version: '2.0.42' },
  startedAt: '2025-11-20T09:00:00.000Z',
  events: [
    {
      id: 'u',
      timestamp: '2025-11-20T09:00:00.000Z',
      type: 'user_message',
      content: [
        { type: 'text', text: 'hi' },
        { type: 'blob', sha256: 'a'.repeat(64), mediaType: 'image/png', bytes: 3 },
      ],
    },
    {
      id: 'a',
      timestamp: '2025-11-20T09:00:01.000Z',
      type: 'assistant_message',
      model: 'm',
      content: [],
      usage: { inputTokens: 1, outputTokens: 2, cacheReadTokens: 3 },
    },
  ],
};

t.test('version 1', async (t) => {
  t.equal(SESSION_SCHEMA_VERSION, 1);
  t.equal(validateAgentSession(session).success, true);
});

t.test('the tags are the limits', async (t) => {
  const bad: [string, unknown][] = [
    ['an empty id', { ...session, id: '' }],
    ['an agent name with capitals', { ...session, agent: { name: 'Claude' } }],
    ['a timestamp that is none', { ...session, startedAt: 'yesterday' }],
    [
      'a negative token count',
      { ...session, events: [{ ...session.events[1]!, usage: { inputTokens: -1, outputTokens: 0 } }] },
    ],
    [
      'a blob hash that is not SHA-256 hex',
      {
        ...session,
        events: [
          {
            ...session.events[0]!,
            content: [{ type: 'blob', sha256: 'A'.repeat(64), mediaType: 'image/png', bytes: 3 }],
          },
        ],
      },
    ],
    ['an unknown event type', { ...session, events: [{ id: 'x', timestamp: session.startedAt, type: 'telepathy' }] }],
    ['an unknown property', { ...session, colour: 'blue' }],
  ];
  for (const [what, value] of bad) t.equal(validateAgentSession(value).success, false, what);
});
