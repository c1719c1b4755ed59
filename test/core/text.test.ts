/** src/core/text.ts: cuts that never leave half a character; the first characters as SQL counts them; JSON parsed and mended. */
import t from 'tap';
import { cutIndex, cutText, leadingChars, parseMendedJson } from '../../src/core/text.js';

t.test('a cut inside a surrogate pair moves before it', async (t) => {
  const smile = '😀'; // two UTF-16 units
  t.equal(cutText(`ab${smile}c`, 3), 'ab', "after the pair's first half: the pair goes");
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
  t.equal(cutText('\ud83dx', 1), '\ud83d', "a lone half already in the text is not this function's to judge");
  t.equal(cutText('x\ude00y', 1), 'x', 'a low half after an ordinary unit');
});

t.test('the first characters, a pair counting as one', async (t) => {
  const smile = '😀';
  t.equal(leadingChars(`a${smile}b${smile}c`, 3), `a${smile}b`, 'three characters, five units');
  t.equal(leadingChars(`a${smile}b`, 2), `a${smile}`, 'the pair kept whole at the end');
  t.equal(leadingChars(`${smile}${smile}`, 1), smile);
  t.equal(leadingChars('abcdef', 4), 'abcd', 'no pair: as many units');
  t.equal(leadingChars(`ab${smile}`, 5), `ab${smile}`, 'fewer characters than asked: as is');
  t.equal(leadingChars(`a${smile}${smile}`, 3), `a${smile}${smile}`, 'as many characters as asked, more units: as is');
  t.equal(leadingChars('', 3), '');
  t.equal(leadingChars(`x${smile}`, 0), '');
  t.equal(leadingChars('\ud83dx\ude00yz', 3), '\ud83dx\ude00', 'a lone half is a character of its own');
  t.equal(leadingChars(`${smile}\ud83d`, 2), `${smile}\ud83d`, 'a high half at the very end: one character');
  t.equal(
    leadingChars(`${'x'.repeat(498)}${smile}${'y'.repeat(9)}`, 500),
    `${'x'.repeat(498)}${smile}y`,
    'as a 500-character preview',
  );
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
  const rekeyed = parseMendedJson('{"z":1,"k\\ud800":2,"__proto__":{"p\\udc00":3},"a":4}') as Record<string, unknown>;
  t.strictSame(Object.keys(rekeyed), ['z', 'k\ufffd', '__proto__', 'a'], 'mended keys keep their order');
  t.equal(Object.getPrototypeOf(rekeyed), Object.prototype, 'an own __proto__ key stays a key');
  t.strictSame(Object.keys(Object.getOwnPropertyDescriptor(rekeyed, '__proto__')!.value), ['p\ufffd']);
  const depth = 200_000;
  const deep = parseMendedJson('['.repeat(depth) + '"\\ud800"' + ']'.repeat(depth));
  let inner: unknown = deep;
  for (let i = 0; i < depth; i++) inner = (inner as unknown[])[0];
  t.equal(inner, '\ufffd', 'any depth JSON.parse takes, without recursion');
});
