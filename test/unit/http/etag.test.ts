import t from 'tap';
import { etagOf, noneMatch } from '../../../src/http/etag.js';

t.test('entity tags', async (t) => {
  const tag = etagOf('{"data":1}');
  t.match(tag, /^"[\w-]{22}"$/);
  t.equal(etagOf(Buffer.from('{"data":1}')), tag, 'bytes and text alike');
  t.not(etagOf('{"data":2}'), tag);
  t.notOk(noneMatch(undefined, tag));
  t.ok(noneMatch(tag, tag));
  t.ok(noneMatch(' * ', tag));
  t.ok(noneMatch(`"a", W/${tag}`, tag), 'weak comparison, in a list');
  t.notOk(noneMatch('"a", "b"', tag));
});
