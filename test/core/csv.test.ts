import t from 'tap';
import { toCsv } from '../../src/core/csv.js';

t.test('csv', async (t) => {
  const csv = toCsv(
    ['id', 'name', 'cost', 'tags', 'note'],
    [
      { id: 'a', name: 'plain', cost: 0.5, tags: ['x', 'y'], note: null },
      { id: 'b', name: 'with, comma', cost: 0, tags: [], note: 'say "hi"\nbye' },
      { id: 'c', name: '=HYPERLINK("x")', cost: -1, tags: undefined, note: '@risk' },
    ],
  );
  t.equal(
    csv,
    'id,name,cost,tags,note\r\n' +
      'a,plain,0.5,"[""x"",""y""]",\r\n' +
      'b,"with, comma",0,[],"say ""hi""\nbye"\r\n' +
      'c,"\'=HYPERLINK(""x"")",-1,,\'@risk\r\n',
  );
  t.equal(toCsv(['id'], []), 'id\r\n', 'header only when empty');
});
