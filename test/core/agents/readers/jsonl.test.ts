/** JSON Lines as agents append them: objects kept with their line numbers, the rest counted. */
import t from 'tap';
import { count, emptyStats, jsonLines, record, text, timestamp } from '../../../../src/core/agents/readers/jsonl.js';

t.test('objects with their 1-based line numbers; blank lines neither read nor counted', async (t) => {
  const stats = emptyStats();
  const lines = jsonLines('{"a":1}\n\n  {"b":2}  \n', stats);
  t.same(lines, [
    { number: 1, value: { a: 1 } },
    { number: 3, value: { b: 2 } },
  ]);
  t.same(stats, { lines: 2, unknown: 0, malformed: 0, truncated: 0 });
});

t.test('malformed lines anywhere, a truncated last line at the end', async (t) => {
  const stats = emptyStats();
  const lines = jsonLines('{"a":\n[1,2]\n"text"\nnull\n{"ok":true}\n{"half', stats);
  t.same(lines, [{ number: 5, value: { ok: true } }]);
  t.same(
    stats,
    { lines: 6, unknown: 0, malformed: 4, truncated: 1 },
    'a broken line, an array, a string and null are malformed; the unfinished last line is a write in progress',
  );
  const done = emptyStats();
  jsonLines('{"a":1}\n{"half\n', done);
  t.same(
    done,
    { lines: 2, unknown: 0, malformed: 1, truncated: 0 },
    'a broken line ended by its newline was written whole: malformed',
  );
  t.same(jsonLines('', emptyStats()), []);
});

t.test('field readers', async (t) => {
  t.equal(text('x'), 'x');
  for (const v of ['', 1, null, undefined, {}]) t.equal(text(v), undefined, `text(${JSON.stringify(v)})`);
  const o = { a: 1 };
  t.equal(record(o), o);
  for (const v of [null, [], 'x', 1]) t.equal(record(v), undefined, `record(${JSON.stringify(v)})`);
  t.equal(count(3), 3);
  t.equal(count(0), 0);
  for (const v of [-1, 1.5, '3', null, NaN]) t.equal(count(v), 0, `count(${String(v)})`);
  t.equal(timestamp('2025-11-20T10:15:02+01:00'), '2025-11-20T09:15:02.000Z', 'normalised to UTC');
  for (const v of ['yesterday', 17e11, null]) t.equal(timestamp(v), undefined, `timestamp(${String(v)})`);
});
