import t from 'tap';
import { PromptCache } from '../../../src/http/promptCache.js';

const answer = (body: string) => ({ body, etag: `"${body}"` });

t.test('hits, invalidation by app, stale writes refused, least recently used dropped', async (t) => {
  const cache = new PromptCache(2);
  t.equal(cache.get('t', 'a', 'p', 'l:production'), undefined);
  cache.set('t', 'a', 'p', 'l:production', cache.generation('t', 'a'), answer('1'));
  t.same(cache.get('t', 'a', 'p', 'l:production'), { body: '1', etag: '"1"', generation: 0 });
  t.equal(cache.get('t', 'a', 'p', 'v:1'), undefined, 'another selector');
  t.equal(cache.get('t', 'b', 'p', 'l:production'), undefined, 'another app');

  const before = cache.generation('t', 'a');
  cache.invalidate('t', 'a');
  t.equal(cache.get('t', 'a', 'p', 'l:production'), undefined, 'gone with the change');
  cache.set('t', 'a', 'p', 'l:production', before, answer('stale'));
  t.equal(cache.get('t', 'a', 'p', 'l:production'), undefined, 'an answer read before the change is not kept');

  const g = cache.generation('t', 'a');
  cache.set('t', 'a', 'x', 's', g, answer('x'));
  cache.set('t', 'a', 'y', 's', g, answer('y'));
  t.ok(cache.get('t', 'a', 'x', 's'), 'x used: y is now the oldest');
  cache.set('t', 'a', 'z', 's', g, answer('z'));
  t.equal(cache.size, 2);
  t.equal(cache.get('t', 'a', 'y', 's'), undefined, 'the least recently used went');
  t.ok(cache.get('t', 'a', 'x', 's'));
  t.ok(cache.get('t', 'a', 'z', 's'));
});
