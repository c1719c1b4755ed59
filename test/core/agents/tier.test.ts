/** The plan's tier ceiling applied to a session: what each tier keeps of each kind of event. */
import t from 'tap';
import { AGENT_TIERS, clampSession, isAgentTier, keepsBlob } from '../../../src/core/agents/tier.js';
import type { AgentEvent, AgentSession } from '../../../src/core/agents/session.js';

const at = '2025-11-20T09:00:00.000Z';
const image = { type: 'blob' as const, sha256: 'a'.repeat(64), mediaType: 'image/png', bytes: 2000, name: 'shot.png' };
const small = { type: 'blob' as const, sha256: 'b'.repeat(64), mediaType: 'text/plain', bytes: 10 };
const events: AgentEvent[] = [
  { id: '1', timestamp: at, type: 'user_message', content: [{ type: 'text', text: 'look' }, image] },
  {
    id: '2',
    timestamp: at,
    type: 'assistant_message',
    model: 'm',
    content: [{ type: 'text', text: 'ok' }, small],
    usage: { inputTokens: 1, outputTokens: 2 },
  },
  { id: '3', timestamp: at, type: 'reasoning', text: 'hmm' },
  { id: '4', timestamp: at, type: 'tool_call', callId: 'c', name: 'Read', input: { path: '/x' } },
  { id: '5', timestamp: at, type: 'tool_result', callId: 'c', content: [image], isError: false },
  { id: '6', timestamp: at, type: 'subagent_start', agentId: 'a', prompt: 'go', name: 'explore' },
  { id: '7', timestamp: at, type: 'subagent_end', agentId: 'a', result: 'done', parentId: null },
  { id: '8', timestamp: at, type: 'system', kind: 'compaction', text: 'summary' },
];
const session: AgentSession = {
  id: 's',
  agent: { name: 'claude-code' },
  startedAt: at,
  title: 'a title',
  cwd: '/home',
  events,
};
const frozen = JSON.stringify(session);

t.test('tiers', async (t) => {
  for (const tier of AGENT_TIERS) t.ok(isAgentTier(tier), tier);
  for (const v of ['everything', '', null, 1, undefined]) t.notOk(isAgentTier(v), String(v));
});

t.test('full keeps everything', async (t) => {
  t.equal(clampSession(session, { tier: 'full', blobCapBytes: 10 }), session);
  t.ok(keepsBlob({ tier: 'full', blobCapBytes: 10 }, 1e9), 'the cap is for the transcripts tier');
});

t.test('metrics keeps counts, names and times, no content', async (t) => {
  const m = clampSession(session, { tier: 'metrics', blobCapBytes: null });
  t.notOk('title' in m, 'no title');
  t.equal(m.cwd, '/home');
  t.same(m.events, [
    { id: '1', timestamp: at, type: 'user_message', content: [] },
    {
      id: '2',
      timestamp: at,
      type: 'assistant_message',
      model: 'm',
      content: [],
      usage: { inputTokens: 1, outputTokens: 2 },
    },
    { id: '3', timestamp: at, type: 'reasoning', text: '' },
    { id: '4', timestamp: at, type: 'tool_call', callId: 'c', name: 'Read' },
    { id: '5', timestamp: at, type: 'tool_result', callId: 'c', content: [], isError: false },
    { id: '6', timestamp: at, type: 'subagent_start', agentId: 'a', prompt: null, name: 'explore' },
    { id: '7', timestamp: at, type: 'subagent_end', agentId: 'a', result: null, parentId: null },
    { id: '8', timestamp: at, type: 'system', kind: 'compaction', text: null },
  ]);
  t.notOk('input' in m.events[3]!, 'the tool input is gone, not null');
  t.notOk(keepsBlob({ tier: 'metrics', blobCapBytes: null }, 0), 'no blob at all');
  t.equal(JSON.stringify(session), frozen, 'the input is not changed');
});

t.test('transcripts keep content; blobs over the cap become a note', async (t) => {
  const capped = clampSession(session, { tier: 'transcripts', blobCapBytes: 1000 });
  t.equal(capped.title, 'a title');
  const note = { type: 'text', text: "[blob not kept: image/png, 2000 bytes, over this plan's 1000-byte cap]" };
  t.same((capped.events[0] as { content: unknown }).content, [{ type: 'text', text: 'look' }, note]);
  t.same(
    (capped.events[1] as { content: unknown }).content,
    [{ type: 'text', text: 'ok' }, small],
    'a blob under the cap stays',
  );
  t.same((capped.events[4] as { content: unknown }).content, [note]);
  t.same(capped.events.slice(2, 4), events.slice(2, 4), 'events without content are as they were');
  t.same(capped.events.slice(5), events.slice(5));
  t.same(
    clampSession(session, { tier: 'transcripts', blobCapBytes: 2000 }).events,
    events,
    'a blob of exactly the cap stays',
  );
  t.same(clampSession(session, { tier: 'transcripts', blobCapBytes: null }).events, events, 'no cap');
  t.ok(keepsBlob({ tier: 'transcripts', blobCapBytes: 1000 }, 1000));
  t.notOk(keepsBlob({ tier: 'transcripts', blobCapBytes: 1000 }, 1001));
  t.ok(keepsBlob({ tier: 'transcripts', blobCapBytes: null }, 1e9));
  t.equal(JSON.stringify(session), frozen, 'the input is not changed');
});
