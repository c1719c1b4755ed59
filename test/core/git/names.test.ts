import t from 'tap';
import { isBranchName, isRef, parseRepositoryName } from '../../../src/core/git/names.js';

t.test('repository names: owner/repo', async (t) => {
  t.same(parseRepositoryName('acme/prompts'), { owner: 'acme', name: 'prompts' });
  t.same(parseRepositoryName('a-b_c.d/E.git'), { owner: 'a-b_c.d', name: 'E.git' });
  for (const bad of ['acme', 'a/b/c', '/b', 'a/', '../x', 'a/..', './a', 'a b/c', 'a/%2e', `${'x'.repeat(101)}/y`, ''])
    t.equal(parseRepositoryName(bad), null, bad);
});

t.test('branch names follow git check-ref-format', async (t) => {
  for (const ok of ['main', 'feature/x', 'release-1.2', 'a@b', 'user/name/topic']) t.ok(isBranchName(ok), ok);
  for (const bad of [
    '',
    '@',
    'a..b',
    'a b',
    'a~1',
    'a^',
    'a:b',
    'a?',
    'a*',
    'a[',
    'a\\b',
    'a@{1}',
    'a//b',
    '/a',
    'a/',
    'a.',
    '.a',
    'a/.b',
    'x.lock',
    'a/b.lock',
    '-x',
    'x'.repeat(256),
    'tab\there',
    'nul\u0000',
  ]) {
    t.notOk(isBranchName(bad), JSON.stringify(bad));
  }
});

t.test('refs are branch names or full commit shas', async (t) => {
  t.ok(isRef('a'.repeat(40)));
  t.ok(isRef('main'));
  t.notOk(isRef('a..b'));
});
