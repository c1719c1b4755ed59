import t from 'tap';
import { checkTemplatePath, isPromptName, labelsProblem, promptNameOfPath } from '../../../src/core/prompts/names.js';

t.test('prompt names', async (t) => {
  for (const ok of ['greeting', 'support/agent', 'a.b-c_d', 'A1/b2/c3']) t.ok(isPromptName(ok), ok);
  for (const bad of ['', '/a', 'a/', 'a//b', '../a', 'a/..', '.hidden', 'a/.b', 'a.', 'a b', 'x'.repeat(129), 'a\\b'])
    t.notOk(isPromptName(bad), bad);
});

t.test('labels', async (t) => {
  t.equal(labelsProblem([]), null);
  t.equal(labelsProblem(['production', 'staging-2', 'v1.2']), null);
  t.match(labelsProblem(['Prod']), /is not a label/);
  t.match(labelsProblem(['latest']), /cannot be set/);
  t.match(labelsProblem(['a', 'a']), /twice/);
});

t.test('template paths', async (t) => {
  t.same(checkTemplatePath('prompts/greeting.md'), { ok: true, path: 'prompts/greeting.md' });
  t.same(checkTemplatePath('prompts/a/b.txt'), { ok: true, path: 'prompts/a/b.txt' });
  const reasons: Record<string, RegExp> = {
    '': /1–1024/,
    ['x'.repeat(1025)]: /1–1024/,
    'prompts/a\u0000': /control/,
    'prompts\\a': /backslash/,
    '/prompts/a.md': /relative/,
    'prompts/../a': /"\."/,
    'prompts/./a': /"\."/,
    'prompts//a': /empty/,
    'prompts/': /empty/,
    'README.md': /inside prompts/,
    prompts: /inside prompts/,
    'other/prompts/a.md': /inside prompts/,
  };
  for (const [path, reason] of Object.entries(reasons)) {
    const r = checkTemplatePath(path);
    t.notOk(r.ok, JSON.stringify(path.slice(0, 20)));
    if (!r.ok) t.match(r.reason, reason);
  }
});

t.test('the prompt a file defines', async (t) => {
  t.equal(promptNameOfPath('prompts/greeting.md'), 'greeting');
  t.equal(promptNameOfPath('prompts/support/agent.md'), 'support/agent');
  t.equal(promptNameOfPath('prompts/notes.txt'), null);
  t.equal(promptNameOfPath('docs/a.md'), null);
  t.equal(promptNameOfPath('prompts/.hidden.md'), null);
});
