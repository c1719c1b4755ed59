import t from 'tap';
import { MAX_BODY_NESTING, nestsDeeperThan } from '../../src/core/jsonNesting.js';

const nested = (n: number, open = '[', close = ']') => open.repeat(n) + close.repeat(n);
const objects = (n: number) => '{"a":'.repeat(n) + '1' + '}'.repeat(n);

t.test('arrays and objects count, at the limit and one past it', async (t) => {
  t.equal(nestsDeeperThan(nested(3), 3), false);
  t.equal(nestsDeeperThan(nested(4), 3), true);
  t.equal(nestsDeeperThan(objects(3), 3), false);
  t.equal(nestsDeeperThan(objects(4), 3), true);
  t.equal(nestsDeeperThan('[{"a":[1]},{"b":[2]}]', 3), false, 'siblings do not add up');
  t.equal(nestsDeeperThan('"plain" 1 true', 0), false, 'scalars nest nothing');
  t.equal(nestsDeeperThan(nested(10_000), MAX_BODY_NESTING), true, 'ten thousand levels');
  t.equal(nestsDeeperThan(nested(MAX_BODY_NESTING), MAX_BODY_NESTING), false);
});

t.test('brackets in strings do not count, escaped quotes do not end a string', async (t) => {
  t.equal(nestsDeeperThan(`["${'[{'.repeat(50)}"]`, 1), false);
  t.equal(nestsDeeperThan(`["a\\"[[[[", "\\\\", [1]]`, 2), false, 'an escaped quote stays inside');
  t.equal(nestsDeeperThan(`["\\\\", [[1]]]`, 2), true, 'an escaped backslash ends before the quote');
});

t.test('a string left open ends the text', async (t) => {
  t.equal(nestsDeeperThan('["[[[[', 1), false);
  t.equal(nestsDeeperThan('[["\\\\\\"[[', 1), true, 'three backslashes: the quote is escaped');
});
