/**
 * src/store/spans/spanIdFilter.ts: a filter DuckDB builds from a file's span ids (the statement
 * run here on DuckDB) answers "maybe" in JavaScript for every id it was built from, and "no" for
 * nearly every other.
 */
import { DuckDBInstance, JSDuckDBValueConverter, type DuckDBConnection } from '@duckdb/node-api';
import { createHash, randomBytes } from 'node:crypto';
import t from 'tap';
import {
  mayHoldSpan,
  spanIdFilterBits,
  spanIdFilterSql,
  spanIdProbe,
} from '../../../../src/store/spans/spanIdFilter.js';

async function filterOf(c: DuckDBConnection, ids: readonly string[]): Promise<Uint8Array | null> {
  await c.run('CREATE OR REPLACE TABLE ids (span_id VARCHAR)');
  const appender = await c.createAppender('ids');
  for (const id of ids) {
    appender.appendVarchar(id);
    appender.endRow();
  }
  appender.closeSync();
  const result = await c.runAndReadAll(spanIdFilterSql('ids', ids.length));
  return result.convertColumns(JSDuckDBValueConverter)[0]![0] as Uint8Array | null;
}

t.test('every id a filter was built from is a maybe; other ids are noes but for ~2%', async (t) => {
  const instance = await DuckDBInstance.create(':memory:');
  const c = await instance.connect();
  // OpenTelemetry's ids, and the other texts a span id can be (JSON ingestion, agents' sessions).
  const ids = Array.from({ length: 20_000 }, () => randomBytes(8).toString('hex'));
  ids.push('0000000000000001', 'not-hex span id', 'ünïcødé-☃', '', 'a'.repeat(300));
  const filter = await filterOf(c, ids);
  if (!filter) throw new Error('no filter built');
  t.equal((filter.length - 1) * 8 - filter[0]!, spanIdFilterBits(ids.length), 'the filter has the bits its size says');
  t.equal(ids.filter((id) => !mayHoldSpan(filter, spanIdProbe(id))).length, 0, 'no id it holds is ruled out');
  // The filter as docs/segments.md defines it, built here from the digests: the very same bits.
  const m = spanIdFilterBits(ids.length);
  const expected = new Uint8Array(1 + m / 8);
  for (const id of ids) {
    const h = createHash('md5').update(id, 'utf8').digest().readBigUInt64LE(0);
    const [a, b] = [Number(h % 2n ** 32n), Number(h / 2n ** 32n)];
    for (let i = 0; i < 5; i++) {
      const bit = (a + i * b) % m;
      expected[1 + (bit >> 3)]! |= 0x80 >> (bit & 7);
    }
  }
  t.same([...filter], [...expected], 'its bits are the documented ones, no more');
  const others = Array.from({ length: 20_000 }, () => randomBytes(8).toString('hex'));
  const maybes = others.filter((id) => mayHoldSpan(filter, spanIdProbe(id))).length / others.length;
  t.ok(maybes > 0.005 && maybes < 0.04, `ids it does not hold answer maybe at ~2% (${(maybes * 100).toFixed(2)}%)`);

  t.equal(await filterOf(c, []), null, 'an empty file has no filter');
  const small = await filterOf(c, ['00f067aa0ba902b7']);
  t.equal((small!.length - 1) * 8, 64, 'a file of one span gets the smallest filter, 64 bits');
  t.ok(mayHoldSpan(small!, spanIdProbe('00f067aa0ba902b7')));
  t.equal(
    ['b7ad6b7169203331', 'x', 'ab'].filter((id) => mayHoldSpan(small!, spanIdProbe(id))).length,
    0,
    'other ids are ruled out by it',
  );
  c.closeSync();
  instance.closeSync();
});

t.test('the bits are read as DuckDB lays out a BIT: padding first, most significant bit first', async (t) => {
  const instance = await DuckDBInstance.create(':memory:');
  const c = await instance.connect();
  const probe = spanIdProbe('4bf92f3577b34da6');
  // A 21-bit value (3 bits of padding) holding exactly the probe's five bits, then one without the last.
  const positions = [0, 1, 2, 3, 4].map((i) => (probe.a + i * probe.b) % 21);
  const bitsOf = async (set: readonly number[]) => {
    const r = await c.runAndReadAll(`SELECT bitstring_agg(x, 0, 20) FROM (SELECT unnest([${set.join(', ')}]) AS x)`);
    return r.convertColumns(JSDuckDBValueConverter)[0]![0] as Uint8Array;
  };
  const all = await bitsOf(positions);
  t.equal(all[0], 3, 'three bits of padding');
  t.ok(mayHoldSpan(all, probe), 'all five probed bits set: maybe');
  const missing = positions[4]!;
  const fewer = positions.filter((p) => p !== missing);
  t.notOk(mayHoldSpan(await bitsOf(fewer), probe), 'one probed bit clear: no');
  t.ok(mayHoldSpan(new Uint8Array([0]), probe), 'a filter without bits rules nothing out');
  t.ok(mayHoldSpan(new Uint8Array([]), probe), 'nor does an empty one');
  c.closeSync();
  instance.closeSync();
});

t.test('the statement sizes its filter by the rows it is told of, 8 bits a span', async (t) => {
  t.equal(spanIdFilterBits(0), 64);
  t.equal(spanIdFilterBits(8), 64);
  t.equal(spanIdFilterBits(131_072), 1_048_576);
  t.match(spanIdFilterSql("read_parquet('x')", 100), /bitstring_agg\(p, 0, 799\)/);
});
