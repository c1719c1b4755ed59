/** src/http/paged.ts: the offset pagination lists share. */
import t from 'tap';
import { paged, type Page } from '../../../src/http/paged.js';

t.test('the page asked for, 50 from 0 by default, answered with its pagination', async (t) => {
  const asked: Page[] = [];
  const fetch = async (page: Page) => {
    asked.push(page);
    return { data: ['a', 'b'], total: 7 };
  };
  t.same(await paged({}, fetch), {
    kind: 'json',
    status: 200,
    body: { data: ['a', 'b'], pagination: { total: 7, limit: 50, offset: 0 } },
  });
  t.same(await paged({ limit: 2, offset: 4 }, fetch), {
    kind: 'json',
    status: 200,
    body: { data: ['a', 'b'], pagination: { total: 7, limit: 2, offset: 4 } },
  });
  t.same(
    asked,
    [
      { limit: 50, offset: 0 },
      { limit: 2, offset: 4 },
    ],
    'the store is asked for exactly that page',
  );
});

t.test('a refusal of the fetch is the answer', async (t) => {
  await t.rejects(
    paged({}, async () => {
      throw new Error('no such run');
    }),
    /no such run/,
  );
});
