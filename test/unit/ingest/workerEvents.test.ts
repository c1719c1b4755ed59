/** src/ingest/workerEvents.ts: a worker's events body → the batch the store inserts, each agent event stamped and checked. */
import t from 'tap';
import { prepareWorkerEvents, type StoredEventRow } from '../../../src/ingest/workerEvents.js';

const AT = '2026-11-27T10:00:00.000Z';
const AT_MS = Date.parse(AT);
const bytes = (value: unknown) => Buffer.from(JSON.stringify(value));
/** The rows of a body's batch. */
const rowsOf = (value: unknown) =>
  JSON.parse(prepareWorkerEvents(bytes(value), 'application/json').batch) as StoredEventRow[];

t.test('output lines and steps are kept as text, with their level', async (t) => {
  const rows = rowsOf({
    events: [
      { seq: 0, at: AT, kind: 'stdout', text: 'hello' },
      { seq: 1, at: AT, kind: 'stderr' },
      { seq: 2, at: AT, kind: 'step', text: 'clone' },
      { seq: 3, at: AT, kind: 'step', text: 'push', level: 'error' },
      { seq: 4, at: AT, kind: 'stdout', text: 'x', level: 'error' },
    ],
  });
  t.strictSame(rows, [
    { seq: 0, at_ms: AT_MS, kind: 'stdout', text: 'hello', level: null, event: null },
    { seq: 1, at_ms: AT_MS, kind: 'stderr', text: '', level: null, event: null },
    { seq: 2, at_ms: AT_MS, kind: 'step', text: 'clone', level: 'info', event: null },
    { seq: 3, at_ms: AT_MS, kind: 'step', text: 'push', level: 'error', event: null },
    { seq: 4, at_ms: AT_MS, kind: 'stdout', text: 'x', level: null, event: null },
  ]);
});

t.test('an agent event is stamped and pruned to the session contract', async (t) => {
  const message = {
    type: 'assistant_message',
    model: 'gpt-4o',
    content: [{ type: 'text', text: 'done' }],
    usage: { inputTokens: 12, outputTokens: 3 },
  };
  const rows = rowsOf({
    events: [
      { seq: 7, at: AT, kind: 'agent', event: { ...message, shoeSize: 44 } },
      {
        seq: 8,
        at: AT,
        kind: 'agent',
        event: { ...message, id: 'm1', parentId: 'e7', timestamp: '2026-11-27T09:59:59.000Z' },
      },
      { seq: 9, at: AT, kind: 'agent', event: { ...message, id: '' } },
    ],
  });
  t.equal(rows.length, 3);
  t.strictSame(
    rows.map((r) => [r.seq, r.kind, r.text, r.level]),
    [
      [7, 'agent', null, null],
      [8, 'agent', null, null],
      [9, 'agent', null, null],
    ],
  );
  const events = rows.map((r) => JSON.parse(r.event!) as Record<string, unknown>);
  t.strictSame(
    events[0],
    { ...message, id: 'e7', parentId: null, timestamp: AT },
    'id from the seq, no parent, the time it was seen; an unknown field dropped',
  );
  t.match(
    events[1],
    { id: 'm1', parentId: 'e7', timestamp: '2026-11-27T09:59:59.000Z' },
    'what the agent stamped itself is kept',
  );
  t.equal(events[2]!.id, 'e9', 'an empty id is replaced');
});

t.test('an agent event the contract refuses is kept as an output line, cut at 64 KiB', async (t) => {
  const odd = { type: 'telepathy', note: 'n' };
  const long = { type: 'user_message', content: 'x'.repeat(70_000) };
  const rows = rowsOf({
    events: [
      { seq: 0, at: AT, kind: 'agent', event: odd },
      { seq: 1, at: AT, kind: 'agent' },
      { seq: 2, at: AT, kind: 'agent', event: long },
    ],
  });
  t.strictSame(
    rows[0],
    { seq: 0, at_ms: AT_MS, kind: 'stdout', text: JSON.stringify(odd), level: null, event: null },
    'the event as sent, unstamped',
  );
  t.strictSame(
    rows[1],
    { seq: 1, at_ms: AT_MS, kind: 'stdout', text: '{}', level: null, event: null },
    'an agent line without an event',
  );
  t.equal(rows[2]!.kind, 'stdout');
  t.equal(rows[2]!.text, JSON.stringify(long).slice(0, 65536), 'cut at 64 KiB');
  // The cut falls inside an emoji: it moves before it (half a character is text DuckDB cannot read back).
  const straddling = { type: 'telepathy', note: `${'x'.repeat(65535 - '{"type":"telepathy","note":"'.length)}😀 tail` };
  const [cut] = rowsOf({ events: [{ seq: 3, at: AT, kind: 'agent', event: straddling }] });
  t.equal(cut!.text, JSON.stringify(straddling).slice(0, 65535), 'one unit short of 64 KiB');
  t.ok(cut!.text!.isWellFormed());
});

t.test("a body that is not a WorkerEventsBody is the router's 400", async (t) => {
  const prepare = (raw: Buffer | null, type?: string) => () => prepareWorkerEvents(raw, type);
  t.throws(prepare(null), { code: 'invalid_request_body', fields: { details: { body: /expected/ } } }, 'no body');
  t.throws(
    prepare(bytes({ events: [] })),
    { code: 'invalid_request_body', fields: { details: { events: /MinItems/ } } },
    'no events',
  );
  t.throws(prepare(bytes({ events: [{ seq: -1, at: 'now', kind: 'shout' }] })), {
    code: 'invalid_request_body',
    fields: { details: { 'events[0].seq': /uint32/, 'events[0].at': /date-time/, 'events[0].kind': /expected/ } },
  });
  t.throws(prepare(Buffer.from('{"events":'), 'application/json'), {
    code: 'invalid_request_body',
    fields: { details: { body: /not valid JSON/ } },
  });
  t.throws(prepare(bytes({ events: [{ seq: 0, at: AT, kind: 'stdout', text: 'x' }] }), 'text/plain'), {
    code: 'unsupported_media_type',
  });
  t.throws(
    prepare(Buffer.from('{"events":[{"seq":0,"at":"2026-11-27T10:00:00Z","kind":"stdout","text":"\\ud800"}]}')),
    { code: 'invalid_request_body', fields: { details: { 'events[0].text': /lone surrogate/ } } },
  );
});
