/** src/core/text.ts: cuts that never leave half a character; JSON parsed and mended. */
import t from 'tap';
import { cutIndex, cutText, parseMendedJson } from '../../src/core/text.js';

t.test('a cut inside a surrogate pair moves before it', async (t) => {
  const smile = '😀'; // two UTF-16 units
  t.equal(cutText(`ab${smile}c`, 3), 'ab', 'after the pair\'s first half: the pair goes');
  t.equal(cutText(`ab${smile}c`, 4), `ab${smile}`, 'after the pair: kept whole');
  t.equal(cutText(`ab${smile}c`, 2), 'ab', 'before the pair');
  t.ok(cutText(`${'x'.repeat(9)}${smile}`.repeat(50), 10).isWellFormed());
  t.equal(cutIndex(smile, 1), 0, 'nothing fits of a pair one unit long');
  t.equal(cutIndex(`${smile}${smile}`, 3), 2);
});

t.test('other cuts are plain', async (t) => {
  t.equal(cutText('abcdef', 3), 'abc');
  t.equal(cutText('abc', 3), 'abc', 'no longer than the limit: as is');
  t.equal(cutText('abc', 10), 'abc');
  t.equal(cutIndex('abc', 10), 3, 'a shorter text is cut at its end');
  t.equal(cutIndex('abc', 0), 0);
  t.equal(cutText('\ud83dx', 1), '\ud83d', 'a lone half already in the text is not this function\'s to judge');
  t.equal(cutText('x\ude00y', 1), 'x', 'a low half after an ordinary unit');
});

t.test('JSON parsed and mended', async (t) => {
  t.strictSame(
    parseMendedJson('{"a":"x\\ud800y","b\\udc00":[1,null,true,"\\ud83d\\ude00","\\ud83d"],"c":{"d":"ok"}}'),
    { a: 'x\ufffdy', 'b\ufffd': [1, null, true, '😀', '\ufffd'], c: { d: 'ok' } },
    'strings and keys, at any depth; whole pairs kept',
  );
  t.strictSame(parseMendedJson('{"a":"\\ud83d\\ude00","n":7}'), { a: '😀', n: 7 }, 'a whole pair as escapes');
  t.strictSame(parseMendedJson('["plain",2]'), ['plain', 2], 'no escape, nothing walked');
  t.equal(parseMendedJson('"\\udfff"'), '\ufffd');
  t.throws(() => parseMendedJson('{'), SyntaxError, 'what is not JSON throws as JSON.parse does');
});
