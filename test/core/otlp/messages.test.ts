import t from 'tap';
import { emptyMap, type JsonMap } from '../../../src/core/otlp/attributes.js';
import { collectMessages } from '../../../src/core/otlp/messages.js';
import type { JsonValue } from '../../../src/core/span.js';

function map(entries: [string, JsonValue][]): JsonMap {
  const out = emptyMap();
  for (const [k, v] of entries) out[k] = v;
  return out;
}

t.test('OpenLLMetry prompt attributes become an array of messages in numeric order', async (t) => {
  const entries: [string, JsonValue][] = [];
  for (let i = 0; i < 12; i++) {
    entries.push(
      [`gen_ai.prompt.${i}.role`, i % 2 ? 'assistant' : 'user'],
      [`gen_ai.prompt.${i}.content`, `turn ${i}`],
    );
  }
  entries.push(['gen_ai.completion.0.content', 'not a prompt'], ['gen_ai.request.model', 'gpt-4o']);
  const found = collectMessages(map(entries), 'gen_ai.prompt.');
  t.ok(found);
  const messages = JSON.parse(found!.text) as { role: string; content: string }[];
  t.equal(messages.length, 12);
  t.same(
    messages.map((m) => m.content),
    Array.from({ length: 12 }, (_, i) => `turn ${i}`),
    'index 10 comes after 9, not after 1',
  );
  t.same(messages[1], { role: 'assistant', content: 'turn 1' });
  t.equal(found!.keys.length, 24);
  t.notOk(found!.keys.includes('gen_ai.completion.0.content'));
});

t.test('gaps close; nested indexes become arrays; mixed keys stay objects', async (t) => {
  const found = collectMessages(
    map([
      ['gen_ai.completion.3.role', 'assistant'],
      ['gen_ai.completion.0.role', 'assistant'],
      ['gen_ai.completion.0.finish_reason', 'tool_calls'],
      ['gen_ai.completion.0.tool_calls.1.name', 'get_time'],
      ['gen_ai.completion.0.tool_calls.0.name', 'get_weather'],
      ['gen_ai.completion.0.tool_calls.0.arguments', '{"city":"Oslo"}'],
      ['gen_ai.completion.3.content.0', 'a'],
      ['gen_ai.completion.3.content.type', 'text'],
    ]),
    'gen_ai.completion.',
  );
  t.same(JSON.parse(found!.text), [
    {
      role: 'assistant',
      finish_reason: 'tool_calls',
      tool_calls: [{ name: 'get_weather', arguments: '{"city":"Oslo"}' }, { name: 'get_time' }],
    },
    { role: 'assistant', content: { 0: 'a', type: 'text' } },
  ]);
});

t.test('OpenInference messages lose their `message` wrapper segment', async (t) => {
  const found = collectMessages(
    map([
      ['llm.input_messages.0.message.role', 'system'],
      ['llm.input_messages.0.message.content', 'You are terse.'],
      ['llm.input_messages.1.message.role', 'assistant'],
      ['llm.input_messages.1.message.tool_calls.0.tool_call.function.name', 'search'],
      ['llm.input_messages.1.message.tool_calls.0.tool_call.function.arguments', '{"q":"otlp"}'],
      ['llm.input_messages.2.message', 'no path after the wrapper'],
    ]),
    'llm.input_messages.',
    'message',
  );
  t.same(JSON.parse(found!.text), [
    { role: 'system', content: 'You are terse.' },
    { role: 'assistant', tool_calls: [{ tool_call: { function: { name: 'search', arguments: '{"q":"otlp"}' } } }] },
  ]);
  t.notOk(found!.keys.includes('llm.input_messages.2.message'));
});

t.test('keys without an index and a path are not messages', async (t) => {
  const attrs = map([
    ['gen_ai.prompt', 'plain prompt'],
    ['gen_ai.prompt.0', 'no path'],
    ['gen_ai.prompt.first.role', 'user'],
    ['gen_ai.prompt.01.role', 'user'],
    ['gen_ai.prompt.1234567890.role', 'user'],
  ]);
  t.equal(collectMessages(attrs, 'gen_ai.prompt.'), undefined);
  t.equal(collectMessages(emptyMap(), 'gen_ai.prompt.'), undefined);
});

t.test('a key that would overwrite or enter another value is left out', async (t) => {
  const structured = emptyMap();
  structured.text = 'hi';
  const found = collectMessages(
    map([
      ['gen_ai.prompt.0.content', 'plain'],
      ['gen_ai.prompt.0.content.text', 'under a value'],
      ['gen_ai.prompt.1.parts.type', 'text'],
      ['gen_ai.prompt.1.parts', 'over a path'],
      ['gen_ai.prompt.2.content', structured],
      ['gen_ai.prompt.2.content.text', 'inside a client value'],
      ['gen_ai.prompt.3.message.role', 'user'],
      ['gen_ai.prompt.3.role', 'tool'],
    ]),
    'gen_ai.prompt.',
  );
  t.same(JSON.parse(found!.text), [
    { content: 'plain' },
    { parts: { type: 'text' } },
    { content: { text: 'hi' } },
    { message: { role: 'user' }, role: 'tool' },
  ]);
  t.same(found!.keys, [
    'gen_ai.prompt.0.content',
    'gen_ai.prompt.1.parts.type',
    'gen_ai.prompt.2.content',
    'gen_ai.prompt.3.message.role',
    'gen_ai.prompt.3.role',
  ]);
  t.same(Object.keys(structured), ['text'], 'the client value is not modified');
});

t.test('very long paths are bounded; __proto__ segments stay data', async (t) => {
  const long = Array.from({ length: 30 }, (_, i) => `s${i}`).join('.');
  const found = collectMessages(
    map([
      [`gen_ai.prompt.0.${long}`, 'deep'],
      ['gen_ai.prompt.1.__proto__.polluted', true],
    ]),
    'gen_ai.prompt.',
  );
  const [first, second] = JSON.parse(found!.text) as [Record<string, unknown>, Record<string, unknown>];
  let node: unknown = first;
  const path: string[] = [];
  while (typeof node === 'object' && node !== null) {
    const [key] = Object.keys(node);
    path.push(key!);
    node = (node as Record<string, unknown>)[key!];
  }
  t.equal(path.length, 15, 'index + 15 segments = the 16-segment bound');
  t.equal(path[14], Array.from({ length: 16 }, (_, i) => `s${i + 14}`).join('.'));
  t.equal(node, 'deep');
  t.same(Object.keys(second), ['__proto__']);
  t.equal(({} as Record<string, unknown>).polluted, undefined);
});

t.test('a key sharing the first and last character of the prefix is no match', async (t) => {
  const attrs = map([
    ['gen_ai.xxxxxx.0.role', 'user'],
    ['gen_ai.prompt.0.role', 'user'],
  ]);
  const found = collectMessages(attrs, 'gen_ai.prompt.');
  t.same(found, { text: '[{"role":"user"}]', keys: ['gen_ai.prompt.0.role'] });
});

t.test('an empty prefix reads every key as an indexed message', async (t) => {
  const found = collectMessages(
    map([
      ['1.role', 'assistant'],
      ['0.role', 'user'],
      ['x.role', 'not indexed'],
      ['0', 'no path'],
    ]),
    '',
  );
  t.same(JSON.parse(found!.text), [{ role: 'user' }, { role: 'assistant' }]);
  t.same(found!.keys, ['1.role', '0.role'], 'keys in attribute order; messages in index order');
});

t.test('index limits: nine digits at most, no leading zeros, gaps close', async (t) => {
  const found = collectMessages(
    map([
      ['gen_ai.prompt.999999999.role', 'last'],
      ['gen_ai.prompt.1000000000.role', 'ten digits'],
      ['gen_ai.prompt.00.role', 'leading zero'],
      ['gen_ai.prompt.5.role', 'middle'],
      ['gen_ai.prompt.0.role', 'first'],
      ['gen_ai.prompt..role', 'empty index'],
      ['gen_ai.prompt.-1.role', 'negative'],
    ]),
    'gen_ai.prompt.',
  );
  t.same(JSON.parse(found!.text), [{ role: 'first' }, { role: 'middle' }, { role: 'last' }]);
  t.same(found!.keys, ['gen_ai.prompt.999999999.role', 'gen_ai.prompt.5.role', 'gen_ai.prompt.0.role']);
});

t.test('the wrapper segment is only dropped right after the index', async (t) => {
  const found = collectMessages(
    map([
      ['llm.input_messages.0.message.message', 'twice'],
      ['llm.input_messages.0.content.message', 'later'],
      ['llm.input_messages.1.messages', 'longer name'],
      ['llm.input_messages.1.messag', 'shorter name'],
      ['llm.input_messages.2.message.', 'empty field'],
    ]),
    'llm.input_messages.',
    'message',
  );
  t.same(JSON.parse(found!.text), [
    { message: 'twice', content: { message: 'later' } },
    { messages: 'longer name', messag: 'shorter name' },
    { '': 'empty field' },
  ]);
});

t.test('index keys inside a message become arrays, other keys keep their order', async (t) => {
  const found = collectMessages(
    map([
      ['gen_ai.prompt.0.1', 'b'],
      ['gen_ai.prompt.0.0', 'a'],
      ['gen_ai.prompt.1.z', 'z'],
      ['gen_ai.prompt.1.a', 'a'],
      ['gen_ai.prompt.1.3', 'three'],
    ]),
    'gen_ai.prompt.',
  );
  t.equal(found!.text, '[["a","b"],{"3":"three","z":"z","a":"a"}]');
});
