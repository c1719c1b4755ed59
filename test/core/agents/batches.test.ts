/** Sessions into sync requests: bounded in sessions and bytes, each with the blobs it names, once. */
import t from 'tap';
import { batchesOf, type SyncItem } from '../../../src/core/agents/batches.js';
import type { AgentBlob, AgentSession } from '../../../src/core/agents/session.js';

const session = (id: string, text = 'x'): AgentSession => ({
  id,
  agent: { name: 'codex' },
  startedAt: '2025-11-20T09:00:00.000Z',
  events: [{ id: 'e', timestamp: '2025-11-20T09:00:00.000Z', type: 'user_message', content: [{ type: 'text', text }] }],
});
const blob = (c: string): AgentBlob => ({ sha256: c.repeat(64), mediaType: 'image/png', bytes: 3, data: 'AAAA' });
const size = (v: unknown) => Buffer.byteLength(JSON.stringify(v), 'utf8') + 1;
const ids = (batches: { sessions: AgentSession[] }[]) => batches.map((b) => b.sessions.map((s) => s.id));

t.test('nothing to send, no request', async (t) => {
  t.same(batchesOf([], 1 << 20, 100), []);
});

t.test('at most maxSessions a request, in order', async (t) => {
  const items: SyncItem[] = ['a', 'b', 'c', 'd', 'e'].map((id) => ({ session: session(id), blobs: [] }));
  t.same(ids(batchesOf(items, 1 << 20, 2)), [['a', 'b'], ['c', 'd'], ['e']]);
  t.same(ids(batchesOf(items, 1 << 20, 100)), [['a', 'b', 'c', 'd', 'e']]);
});

t.test('about maxBytes a request; the size counts the JSON of sessions and blobs', async (t) => {
  const items: SyncItem[] = ['a', 'b', 'c'].map((id) => ({
    session: session(id),
    blobs: [blob(id === 'b' ? 'b' : 'a')],
  }));
  const one = size(items[0]!.session) + size(items[0]!.blobs[0]);
  const [first] = batchesOf(items.slice(0, 1), 1 << 20, 100);
  t.equal(first!.bytes, 64 + one, 'the envelope, the session and its blob');
  // Room for two sessions with their blobs and the envelope, not three.
  const batches = batchesOf(items, 64 + 2 * one + 1, 100);
  t.same(ids(batches), [['a', 'b'], ['c']]);
  t.same(
    batches.map((b) => b.blobs.map((x) => x.sha256[0])),
    [['a', 'b'], ['a']],
    'a blob goes again with the next request that needs it',
  );
  t.ok(batches.every((b) => b.bytes <= 64 + 2 * one + 1));
});

t.test('a blob named twice in one request is sent once, and counted once', async (t) => {
  const shared = blob('c');
  const items: SyncItem[] = [
    { session: session('a'), blobs: [shared] },
    { session: session('b'), blobs: [shared, shared] },
  ];
  const [only, ...rest] = batchesOf(items, 1 << 20, 100);
  t.same(rest, []);
  t.equal(only!.blobs.length, 1);
  t.equal(only!.bytes, 64 + size(items[0]!.session) + size(items[1]!.session) + size(shared));
});

t.test('a session larger than the bound goes alone', async (t) => {
  const items: SyncItem[] = [
    { session: session('small'), blobs: [] },
    { session: session('big', 'y'.repeat(5000)), blobs: [] },
    { session: session('after'), blobs: [] },
  ];
  const batches = batchesOf(items, 1024, 100);
  t.same(ids(batches), [['small'], ['big'], ['after']]);
  t.ok(batches[1]!.bytes > 1024, 'over the bound, since it cannot be split');
});
