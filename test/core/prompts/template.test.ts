import t from 'tap';
import { checkTemplate, renderTemplate } from '../../../src/core/prompts/template.js';

t.test('variables: the top-level names a template reads', async (t) => {
  t.same(checkTemplate('Hello {{name}}, {{ name }} from {{user.city}}'), { ok: true, variables: ['name', 'user'] });
  t.same(checkTemplate('no variables'), { ok: true, variables: [] });
  t.same(checkTemplate('{{#if vip}}Dear {{title}}{{else}}Hi {{nick}}{{/if}}{{#unless quiet}}!{{/unless}}'), {
    ok: true,
    variables: ['vip', 'title', 'nick', 'quiet'],
  });
  t.same(
    checkTemplate('{{#each items}}{{this}} {{name}} {{@index}} {{../sep}} {{@root.footer}}{{/each}}'),
    { ok: true, variables: ['items', 'sep', 'footer'] },
    'inside each, paths are the item',
  );
  t.same(checkTemplate('{{#with user}}{{name}}{{/with}}'), { ok: true, variables: ['user'] });
  t.same(
    checkTemplate('{{#section}}{{inner}}{{/section}}'),
    { ok: true, variables: ['section'] },
    'a Mustache section',
  );
  t.same(
    checkTemplate('{{lookup map key}} {{#if (lookup flags on)}}x{{/if}} {{#each list as |item|}}{{item}}{{/each}}'),
    { ok: true, variables: ['map', 'key', 'flags', 'on', 'list'] },
  );
  t.same(checkTemplate('{{#each rows key=sort}}{{/each}}'), { ok: true, variables: ['rows', 'sort'] });
  t.same(
    checkTemplate('{{lookup key=name}}{{#each sort=order}}{{/each}}'),
    { ok: true, variables: ['name', 'order'] },
    'helpers called with a hash only',
  );
  t.same(
    checkTemplate('{{!-- a comment --}}{{"literal"}} {{@index}}'),
    { ok: true, variables: [] },
    'comments, literals and bare data are no variables',
  );
});

t.test('broken templates are refused when checked', async (t) => {
  t.match(checkTemplate('{{#if x}}never closed'), { ok: false, error: /Parse error/ });
  t.match(checkTemplate('{{unknownHelper a}}'), { ok: false, error: /unknownHelper/ });
  t.match(checkTemplate('{{log secret}}'), { ok: false, error: /unknown helper log/ }, 'no writing to the server log');
  t.same(checkTemplate('{{> header}}'), {
    ok: false,
    error: 'partials ({{> name}}) are not supported in prompt templates',
  });
  t.same(checkTemplate('{{#> layout}}x{{/layout}}'), {
    ok: false,
    error: 'partials ({{> name}}) are not supported in prompt templates',
  });
});

t.test('rendering', async (t) => {
  t.same(
    renderTemplate('Hi {{name}} <{{tag}}>', { name: 'Ada & co', tag: 'b' }),
    { ok: true, text: 'Hi Ada & co <b>' },
    'no HTML escaping',
  );
  t.same(renderTemplate('{{a}}{{b}}{{c}}', { a: 1 }), { ok: false, missing: ['b', 'c'] });
  t.same(renderTemplate('{{a}}', { a: undefined }), { ok: false, missing: ['a'] });
  t.same(
    renderTemplate('{{#if on}}yes{{/if}}[{{v}}]', { on: false, v: '' }),
    { ok: true, text: '[]' },
    'false and "" are values',
  );
  t.same(
    renderTemplate('{{user.name}}', { user: {} }),
    { ok: false, missing: ['name'] },
    'a field missing deeper down',
  );
  t.same(renderTemplate('{{#each xs}}{{.}},{{/each}}', { xs: [1, 2] }), { ok: true, text: '1,2,' });
  t.match(renderTemplate('{{#if}}', {}), { ok: false, error: /Parse error/ });
  t.same(renderTemplate('{{constructor}}', { constructor: 'x' }), { ok: true, text: 'x' }, 'own properties only');
  t.match(renderTemplate('{{#each xs}}{{/each}}', { xs: 5 }), { ok: true });
  t.match(renderTemplate('{{a.b}}', { a: 5 }), { ok: false, error: /in 5/ }, 'a field of something that is no object');
});

t.test('the output budget', async (t) => {
  const cube = '{{#each @root.a}}{{#each @root.a}}{{#each @root.a}}{{this}},{{/each}}{{/each}}{{/each}}';
  const a = [1, 2, 3];
  const whole = renderTemplate(cube, { a });
  t.equal(whole.ok && whole.text.length, 54, 'unbounded by default');
  t.same(renderTemplate(cube, { a }, 54), whole, 'an output of exactly the budget is served');
  t.same(renderTemplate(cube, { a }, 53), { ok: false, overBudget: true });
  t.same(
    renderTemplate(cube, { a: Array.from({ length: 400 }, (_, i) => i) }, 1000),
    { ok: false, overBudget: true },
    'loops stop as soon as they pass it',
  );
  t.same(
    renderTemplate('{{#each a}}[{{#each ../a}}{{this}}{{/each}}]{{/each}}', { a }, 15),
    { ok: true, text: '[123][123][123]' },
    'what nested loops produced is counted once',
  );
  t.same(
    renderTemplate('{{#xs}}{{.}}{{/xs}}', { xs: ['ab', 'cd'] }, 3),
    { ok: false, overBudget: true },
    'a section over a list is a loop',
  );
  t.same(
    renderTemplate('{{v}}{{v}}{{v}}', { v: 'x'.repeat(10) }, 29),
    { ok: false, overBudget: true },
    'text outside loops counts too',
  );
  t.same(renderTemplate('{{v}}', { v: 'ok' }), { ok: true, text: 'ok' }, 'the next render starts afresh');
});
