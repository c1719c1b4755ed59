import t from 'tap';
import { parsePromptFile, promptContent, renderPrompt } from '../../../src/core/prompts/document.js';
import { MAX_TEMPLATE_CHARS } from '../../../src/core/prompts/limits.js';

t.test('a text prompt file', async (t) => {
  const r = parsePromptFile(
    '\uFEFF---\nlabels: [production, staging]\nmodel: gpt-4o\ntemperature: 0.2\nstop: ["\\n"]\n---\nHello {{name}}\n\n',
  );
  t.same(r, {
    ok: true,
    value: {
      type: 'text',
      prompt: 'Hello {{name}}',
      config: { model: 'gpt-4o', temperature: 0.2, stop: ['\n'] },
      variables: ['name'],
      labels: ['production', 'staging'],
    },
  });
  t.same(parsePromptFile('No front matter {{x}}\n'), {
    ok: true,
    value: { type: 'text', prompt: 'No front matter {{x}}', config: {}, variables: ['x'], labels: [] },
  });
  t.same(parsePromptFile('---\n---\nEmpty front matter\r\n'), {
    ok: true,
    value: { type: 'text', prompt: 'Empty front matter', config: {}, variables: [], labels: [] },
  });
  t.same(parsePromptFile('---\r\ntype: text\r\n---\r\nCRLF'), {
    ok: true,
    value: { type: 'text', prompt: 'CRLF', config: {}, variables: [], labels: [] },
  });
});

t.test('a chat prompt file', async (t) => {
  const text =
    '---\ntype: chat\n---\n\nSystem:\nYou help with {{product}}.\n\n  user :  \n{{question}}\n\nassistant:\nSure.\n';
  t.same(parsePromptFile(text), {
    ok: true,
    value: {
      type: 'chat',
      prompt: [
        { role: 'system', content: 'You help with {{product}}.' },
        { role: 'user', content: '{{question}}' },
        { role: 'assistant', content: 'Sure.' },
      ],
      config: {},
      variables: ['product', 'question'],
      labels: [],
    },
  });
  t.match(parsePromptFile('---\ntype: chat\n---\nhello\nuser:\nx'), { ok: false, error: /starts with a role line/ });
  t.match(parsePromptFile('---\ntype: chat\n---\n\n'), { ok: false, error: /at least one message/ });
  t.match(parsePromptFile('---\ntype: chat\n---\nuser:\n{{#if}}'), { ok: false, error: /message 0 does not compile/ });
});

t.test('files that are not prompts', async (t) => {
  t.match(parsePromptFile('---\nmodel: x\nno end'), { ok: false, error: /never closed/ });
  t.match(parsePromptFile('---\nmodel: [unclosed\n---\nx'), { ok: false, error: /not YAML/ });
  t.match(parsePromptFile('---\n- a list\n---\nx'), { ok: false, error: /YAML mapping/ });
  t.match(parsePromptFile('---\nplain text\n---\nx'), { ok: false, error: /YAML mapping/ });
  t.match(parsePromptFile('---\ntype: audio\n---\nx'), { ok: false, error: /type must be text or chat/ });
  t.match(parsePromptFile('---\nlabels: production\n---\nx'), { ok: false, error: /list of strings/ });
  t.match(parsePromptFile('---\nlabels: [1]\n---\nx'), { ok: false, error: /list of strings/ });
  t.match(parsePromptFile('---\nlabels: [latest]\n---\nx'), { ok: false, error: /cannot be set/ });
  t.match(parsePromptFile('{{#each}}'), { ok: false, error: /the template does not compile/ });
});

t.test('content given over the API', async (t) => {
  t.match(promptContent('text', [{ role: 'user', content: 'x' }], {}), {
    ok: false,
    error: 'a text prompt is a string',
  });
  t.match(promptContent('chat', 'x', {}), { ok: false, error: 'a chat prompt is a list of messages' });
  const half = 'x'.repeat(MAX_TEMPLATE_CHARS / 2);
  t.match(promptContent('text', `${half}${half}`, {}), { ok: true }, 'a template of the limit');
  t.same(
    promptContent(
      'chat',
      [
        { role: 'system', content: half },
        { role: 'user', content: `${half}!` },
      ],
      {},
    ),
    {
      ok: false,
      error: `the template is ${MAX_TEMPLATE_CHARS + 1} characters long; the limit is ${MAX_TEMPLATE_CHARS}`,
      limit: MAX_TEMPLATE_CHARS,
    },
    'all messages together',
  );
});

t.test('rendering a version', async (t) => {
  t.same(renderPrompt('Hi {{a}}', { a: 1 }), { ok: true, prompt: 'Hi 1' });
  t.same(renderPrompt('Hi {{a}}', {}), { ok: false, missing: ['a'] });
  const chat = [
    { role: 'system' as const, content: '{{a}}' },
    { role: 'user' as const, content: '{{b}} {{a}}' },
  ];
  t.same(renderPrompt(chat, { a: 'x', b: 'y' }), {
    ok: true,
    prompt: [
      { role: 'system', content: 'x' },
      { role: 'user', content: 'y x' },
    ],
  });
  t.same(renderPrompt(chat, {}), { ok: false, missing: ['a', 'b'] });
  t.match(renderPrompt([{ role: 'user', content: '{{#if}}' }], {}), { ok: false, error: /Parse error/ });
  t.same(renderPrompt('{{a}}{{a}}', { a: 'xy' }, 3), { ok: false, overBudget: true });
  t.same(renderPrompt(chat, { a: 'xy', b: 'z' }, 6), {
    ok: true,
    prompt: [
      { role: 'system', content: 'xy' },
      { role: 'user', content: 'z xy' },
    ],
  });
  t.same(renderPrompt(chat, { a: 'xy', b: 'z' }, 5), { ok: false, overBudget: true }, 'the budget spans the messages');
});
