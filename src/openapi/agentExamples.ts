/**
 * The example of `POST /v1/agents/sync`'s note (http/routes/agents.ts), kept apart for size: the
 * session shape is ours (core/agents/session.ts, docs/agents.md) and the spec shows none,
 * so the reference carries one full session with every kind of event, a nested sub-agent and a
 * blob. test/unit/openapi/reference.test.ts runs the example through the route's own checks
 * (ingest/agentsBatch.ts): it must be accepted whole.
 */
import type { Catalog } from '../contract/catalog.js';

export const SESSION_ID = '3f2a9c1e-7b4d-4e21-9a0c-5d8e6f1b2c34';
/** A 1×1 PNG's first 29 bytes, as the user pasted it: its SHA-256, size and base64. */
export const SCREENSHOT = {
  sha256: '71fde3856a298a052c6edb5155638d8422114e55bf0e28374d90dea8be99ef6c',
  bytes: 29,
  data: 'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAA=',
};

/** One session of Claude Code: a question with a screenshot, a sub-agent sent to search, its answer, a compaction. */
export const SESSION_EXAMPLE: Catalog['AgentSyncRequest']['sessions'][number] = {
  id: SESSION_ID,
  agent: { name: 'claude-code', version: '2.0.42' },
  startedAt: '2026-11-20T09:00:00.000Z',
  endedAt: '2026-11-20T09:06:12.500Z',
  title: 'Fix rounding in cart totals',
  cwd: '/home/dev/shop',
  git: {
    repository: 'git@github.com:acme/shop.git',
    branch: 'feature/prices',
    commit: '9fceb02d0ae598e95dc970b74767f19372d61af8',
  },
  userId: 'dev@acme.example',
  events: [
    {
      id: 'u1',
      timestamp: '2026-11-20T09:00:00.000Z',
      type: 'user_message',
      content: [
        { type: 'text', text: 'The cart total is off by a cent; screenshot attached.' },
        { type: 'blob', sha256: SCREENSHOT.sha256, mediaType: 'image/png', bytes: SCREENSHOT.bytes, name: 'cart.png' },
      ],
    },
    {
      id: 'msg_01',
      timestamp: '2026-11-20T09:00:05.310Z',
      type: 'assistant_message',
      model: 'claude-sonnet-4-5-20250929',
      content: [{ type: 'text', text: 'Let me find where prices are rounded.' }],
      usage: { inputTokens: 3, outputTokens: 48, cacheReadTokens: 0, cacheCreationTokens: 14520 },
      stopReason: 'tool_use',
    },
    {
      id: 't1',
      timestamp: '2026-11-20T09:00:06.002Z',
      type: 'tool_call',
      callId: 'toolu_01',
      name: 'Task',
      input: { description: 'Find rounding', prompt: 'Find where prices are rounded.' },
    },
    {
      id: 's1',
      timestamp: '2026-11-20T09:00:06.100Z',
      type: 'subagent_start',
      agentId: 'a1b2c3d4',
      name: 'Explore',
      prompt: 'Find where prices are rounded.',
      callId: 'toolu_01',
    },
    {
      id: 's1-r',
      parentId: 's1',
      timestamp: '2026-11-20T09:00:08.400Z',
      type: 'reasoning',
      text: 'Grep for Math.round first.',
    },
    {
      id: 's1-t',
      parentId: 's1',
      timestamp: '2026-11-20T09:00:09.000Z',
      type: 'tool_call',
      callId: 'toolu_02',
      name: 'Grep',
      input: { pattern: 'Math.round', path: 'src' },
    },
    {
      id: 's1-tr',
      parentId: 's1',
      timestamp: '2026-11-20T09:00:09.800Z',
      type: 'tool_result',
      callId: 'toolu_02',
      content: [{ type: 'text', text: 'src/cart/total.ts:42:  return Math.round(total * 100) / 100;' }],
      isError: false,
    },
    {
      id: 's1-end',
      timestamp: '2026-11-20T09:00:41.700Z',
      type: 'subagent_end',
      agentId: 'a1b2c3d4',
      result: 'src/cart/total.ts:42 rounds each line, not the total.',
    },
    {
      id: 'r1',
      timestamp: '2026-11-20T09:00:41.700Z',
      type: 'tool_result',
      callId: 'toolu_01',
      content: [{ type: 'text', text: 'src/cart/total.ts:42 rounds each line, not the total.' }],
    },
    {
      id: 'c1',
      timestamp: '2026-11-20T09:05:00.000Z',
      type: 'system',
      kind: 'compaction',
      text: 'Summary of the conversation so far: the rounding is in src/cart/total.ts.',
    },
    {
      id: 'msg_02',
      timestamp: '2026-11-20T09:06:12.500Z',
      type: 'assistant_message',
      model: 'claude-sonnet-4-5-20250929',
      content: [{ type: 'text', text: 'Fixed: the total is rounded once, after the sum.' }],
      usage: { inputTokens: 12, outputTokens: 96, cacheReadTokens: 14520, cacheCreationTokens: 0, reasoningTokens: 20 },
      stopReason: 'end_turn',
    },
  ],
};
