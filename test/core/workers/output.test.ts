import t from 'tap';
import { LineSplitter, OutputParser } from '../../../src/core/workers/output.js';

const enc = (s: string) => new TextEncoder().encode(s);

t.test('text: every line is text', async (t) => {
  const p = new OutputParser('text');
  t.same(p.line('{"type":"assistant_message"}'), [{ kind: 'text', text: '{"type":"assistant_message"}' }]);
});

t.test('events: a JSON object whose type is an event type is that event', async (t) => {
  const p = new OutputParser('events');
  t.same(p.line(' {"type":"tool_call","callId":"c","name":"Read"} '), [
    { kind: 'agent', event: { type: 'tool_call', callId: 'c', name: 'Read' } },
  ]);
  t.same(p.line('{"type":"nope"}'), [{ kind: 'text', text: '{"type":"nope"}' }], 'an unknown type stays text');
  t.same(p.line('{not json'), [{ kind: 'text', text: '{not json' }], 'broken JSON stays text');
  t.same(p.line('[1]'), [{ kind: 'text', text: '[1]' }]);
  t.same(p.line('{"a":[1]} trailing'), [{ kind: 'text', text: '{"a":[1]} trailing' }]);
  t.same(p.line('plain words'), [{ kind: 'text', text: 'plain words' }]);
  t.same(
    p.line('{"type":"system","kind":"info","text":"cut \\ud83d"}'),
    [{ kind: 'agent', event: { type: 'system', kind: 'info', text: 'cut \ufffd' } }],
    "half a character in the agent's JSON is mended",
  );
});

t.test('claude stream-json: messages become events, usage once per response', async (t) => {
  const p = new OutputParser('claude-stream-json');
  t.same(p.line(JSON.stringify({ type: 'system', subtype: 'init', session_id: 's1', model: 'claude-sonnet-4-5' })), [
    { kind: 'agent', event: { type: 'system', kind: 'info', text: 'claude session s1 (claude-sonnet-4-5)' } },
  ]);
  t.same(p.line(JSON.stringify({ type: 'system', subtype: 'init' })), [
    { kind: 'agent', event: { type: 'system', kind: 'info', text: 'claude session ? (model not said)' } },
  ]);
  t.same(
    p.line(JSON.stringify({ type: 'system', subtype: 'other' })),
    [{ kind: 'text', text: '{"type":"system","subtype":"other"}' }],
    'other system lines stay text',
  );

  const usage = { input_tokens: 10, output_tokens: 5, cache_read_input_tokens: 100, cache_creation_input_tokens: 2.5 };
  const first = p.line(
    JSON.stringify({
      type: 'assistant',
      message: {
        id: 'msg_1',
        model: 'claude-sonnet-4-5',
        stop_reason: 'tool_use',
        usage,
        content: [
          { type: 'thinking', thinking: 'hmm' },
          { type: 'text', text: 'Reading.' },
          { type: 'tool_use', id: 'tu1', name: 'Read', input: { file: 'a' } },
          { type: 'tool_use', id: 'tu2', name: 'Ls' },
          { type: 'tool_use', id: 'bad' },
          'junk',
          null,
        ],
      },
    }),
  );
  t.same(first, [
    { kind: 'agent', event: { type: 'reasoning', text: 'hmm' } },
    {
      kind: 'agent',
      event: {
        type: 'assistant_message',
        model: 'claude-sonnet-4-5',
        content: [{ type: 'text', text: 'Reading.' }],
        usage: { inputTokens: 10, outputTokens: 5, cacheReadTokens: 100, cacheCreationTokens: 0 },
        stopReason: 'tool_use',
      },
    },
    { kind: 'agent', event: { type: 'tool_call', callId: 'tu1', name: 'Read', input: { file: 'a' } } },
    { kind: 'agent', event: { type: 'tool_call', callId: 'tu2', name: 'Ls', input: null } },
  ]);
  const again = p.line(
    JSON.stringify({
      type: 'assistant',
      message: { id: 'msg_1', model: 'claude-sonnet-4-5', usage, content: [{ type: 'text', text: 'more' }] },
    }),
  );
  t.same(
    again,
    [
      {
        kind: 'agent',
        event: { type: 'assistant_message', model: 'claude-sonnet-4-5', content: [{ type: 'text', text: 'more' }] },
      },
    ],
    'the same response: its usage is not counted twice',
  );
  t.same(
    p.line(JSON.stringify({ type: 'assistant', message: { content: 'not a list' } })),
    [{ kind: 'agent', event: { type: 'assistant_message', model: 'unknown', content: [] } }],
    'no id, no model, no usage',
  );
  t.same(
    p.line(JSON.stringify({ type: 'assistant', message: { usage, content: [] } }))[0],
    {
      kind: 'agent',
      event: {
        type: 'assistant_message',
        model: 'unknown',
        content: [],
        usage: { inputTokens: 10, outputTokens: 5, cacheReadTokens: 100, cacheCreationTokens: 0 },
      },
    },
    'without an id, its usage counts',
  );
  t.same(
    p.line(JSON.stringify({ type: 'assistant' })),
    [{ kind: 'text', text: '{"type":"assistant"}' }],
    'an assistant line without a message stays text',
  );

  t.same(
    p.line(
      JSON.stringify({
        type: 'user',
        message: {
          content: [
            { type: 'tool_result', tool_use_id: 'tu1', content: 'file text', is_error: false },
            {
              type: 'tool_result',
              tool_use_id: 'tu2',
              content: [{ type: 'text', text: 'a' }, { type: 'image' }, {}, 7],
              is_error: true,
            },
            { type: 'tool_result', tool_use_id: 'tu3', content: { odd: true } },
            { type: 'tool_result' },
          ],
        },
      }),
    ),
    [
      {
        kind: 'agent',
        event: { type: 'tool_result', callId: 'tu1', content: [{ type: 'text', text: 'file text' }], isError: false },
      },
      {
        kind: 'agent',
        event: {
          type: 'tool_result',
          callId: 'tu2',
          content: [{ type: 'text', text: 'a\n[image]\n[part]\n' }],
          isError: true,
        },
      },
      {
        kind: 'agent',
        event: { type: 'tool_result', callId: 'tu3', content: [{ type: 'text', text: '' }], isError: false },
      },
    ],
  );
  t.same(
    p.line(JSON.stringify({ type: 'user', message: { content: 'the prompt echoed' } })),
    [],
    'the prompt echoed back is dropped (the worker reports the prompt)',
  );
  t.same(p.line(JSON.stringify({ type: 'user', message: { content: [{ type: 'text', text: 'x' }] } })), []);

  t.same(p.line(JSON.stringify({ type: 'result', subtype: 'success', num_turns: 3, total_cost_usd: 0.12 })), [
    { kind: 'agent', event: { type: 'system', kind: 'info', text: 'claude success: 3 turns, its cost $0.12' } },
  ]);
  t.same(p.line(JSON.stringify({ type: 'result', is_error: true, result: 'quota' })), [
    { kind: 'agent', event: { type: 'system', kind: 'error', text: 'claude result: 0 turns: quota' } },
  ]);
  t.same(p.line(JSON.stringify({ type: 'result', is_error: true })), [
    { kind: 'agent', event: { type: 'system', kind: 'error', text: 'claude result: 0 turns' } },
  ]);
  t.same(p.line('not json at all'), [{ kind: 'text', text: 'not json at all' }]);
  t.same(p.line('{"type":"something_new"}'), [{ kind: 'text', text: '{"type":"something_new"}' }]);
});

t.test('lines from chunks', async (t) => {
  const s = new LineSplitter(8);
  t.same(s.push(enc('ab\ncd\r\nef')), ['ab', 'cd']);
  t.same(s.push(enc('gh\n')), ['efgh']);
  t.same(s.push(enc('0123456789abc')), ['01234567'], 'a line longer than the cap is cut there');
  t.same(s.push(enc('\n')), ['89abc']);
  t.same(s.push(enc('123456789\n')), ['12345678', '9'], 'a newline past the cap: cut, then the rest');
  const euro = enc('€');
  t.same(s.push(euro.subarray(0, 1)), []);
  t.same(s.push(euro.subarray(1)), [], 'a character split between chunks waits for its rest');
  t.same(s.end(), ['€']);
  t.same(s.end(), [], 'nothing left');
  const smile = '😀'; // two UTF-16 units
  t.same(
    new LineSplitter(8).push(enc(`1234567${smile}89\n`)),
    ['1234567', `${smile}89`],
    'a cut never splits a character: it moves before it',
  );
  t.same(new LineSplitter(1).push(enc(`${smile}a\n`)), [smile, 'a'], 'a cap too small for a pair takes it whole');
  const d = new LineSplitter();
  t.same(d.push(enc('x\r')), []);
  t.same(d.end(), ['x'], 'the last line without its newline');
});
