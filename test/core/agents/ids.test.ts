/**
 * Session trace and span ids: the same names give the same ids (a re-read transcript is recognised),
 * any part that differs gives other ids, and the parts cannot run into each other.
 */
import { createHash } from 'node:crypto';
import t from 'tap';
import { sessionSpanId, sessionTraceId, type SessionKey } from '../../../src/core/agents/ids.js';

const key: SessionKey = { tenantId: 't1', appId: 'a1', agent: 'claude-code', sessionId: 's1' };

t.test('stable, and of the right form', async (t) => {
  t.match(sessionTraceId(key), /^[0-9a-f]{32}$/);
  t.match(sessionSpanId(key, 'event', 'e1'), /^[0-9a-f]{16}$/);
  t.equal(sessionTraceId({ ...key }), sessionTraceId(key), 'the same session read twice');
  t.equal(sessionSpanId({ ...key }, 'event', 'e1'), sessionSpanId(key, 'event', 'e1'));
  // The digest of the parts, each followed by NUL: what a stored span id was made from stays readable.
  const expected = createHash('sha256')
    .update('trace\u0000t1\u0000a1\u0000claude-code\u0000s1\u0000')
    .digest('hex')
    .slice(0, 32);
  t.equal(sessionTraceId(key), expected);
});

t.test('every part of the key counts', async (t) => {
  const trace = new Set(
    [
      key,
      { ...key, tenantId: 't2' },
      { ...key, appId: 'a2' },
      { ...key, agent: 'codex' },
      { ...key, sessionId: 's2' },
    ].map(sessionTraceId),
  );
  t.equal(trace.size, 5, 'five keys, five trace ids');
  const spans = new Set([
    sessionSpanId(key, 'event', 'e1'),
    sessionSpanId(key, 'event', 'e2'),
    sessionSpanId(key, 'tool', 'e1'),
    sessionSpanId({ ...key, sessionId: 's2' }, 'event', 'e1'),
    sessionSpanId({ ...key, tenantId: 't2' }, 'event', 'e1'),
  ]);
  t.equal(spans.size, 5, 'role, event and session each change the span id');
  t.not(sessionTraceId(key).slice(0, 16), sessionSpanId(key, '', ''), 'a span id is not the trace id cut short');
});

t.test('parts do not run into each other', async (t) => {
  t.not(sessionTraceId({ ...key, appId: 'ab', agent: 'c' }), sessionTraceId({ ...key, appId: 'a', agent: 'bc' }));
  t.not(sessionSpanId(key, 'toolx', 'y'), sessionSpanId(key, 'tool', 'xy'));
});
