import t from 'tap';
import { connectedPage, escapeHtml, pickerPage } from '../../../src/core/git/setupPage.js';

t.test('the picker page', async (t) => {
  const html = pickerPage({
    app: 'app-1',
    provider: 'local',
    state: 's"1',
    action: '/v1/git/setup',
    repositories: [
      { full_name: 'a/<b>', default_branch: 'main' },
      { full_name: 'c/d', default_branch: 'trunk' },
    ],
  });
  t.match(html, '<form method="post" action="/v1/git/setup">');
  t.match(html, 'value="s&#34;1"', 'the state, escaped');
  t.match(html, 'value="a/&#60;b&#62;" checked', 'the first is picked');
  t.match(html, 'value="c/d">');
  t.notMatch(html, '<b>');
  t.match(
    pickerPage({ app: 'x', provider: 'github', state: 's', action: '/a', repositories: [] }),
    'reaches no repository',
  );
  t.match(connectedPage('a/b', 'main'), 'a/b (branch main) is connected');
  t.equal(escapeHtml(`<&>"'`), '&#60;&#38;&#62;&#34;&#39;');
});
