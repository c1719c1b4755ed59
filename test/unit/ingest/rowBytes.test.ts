/** src/ingest/rowBytes.ts: what a span row costs against a storage cap. */
import t from 'tap';
import { estimateRowBytes, rowBytes, ROW_OVERHEAD_BYTES } from '../../../src/ingest/rowBytes.js';
import { COLUMN_INDEX, SPAN_COLUMNS, type SpanRow } from '../../../src/store/spans/columns.js';

const emptyRow = (): SpanRow => SPAN_COLUMNS.map(() => null);

t.test('the overhead plus the length of input, output, attributes and metadata', async (t) => {
  t.equal(ROW_OVERHEAD_BYTES, 200);
  t.equal(rowBytes(emptyRow()), 200, 'a row without large fields');
  const row = emptyRow();
  row[COLUMN_INDEX.input] = 'x'.repeat(10);
  row[COLUMN_INDEX.output] = 'y'.repeat(20);
  row[COLUMN_INDEX.attributes] = '{"a":1}';
  row[COLUMN_INDEX.metadata] = '{}';
  t.equal(rowBytes(row), 200 + 10 + 20 + 7 + 2);
  row[COLUMN_INDEX.name] = 'n'.repeat(1000);
  row[COLUMN_INDEX.input_preview] = 'p'.repeat(500);
  row[COLUMN_INDEX.graph] = '{"node":"x"}';
  t.equal(rowBytes(row), 200 + 10 + 20 + 7 + 2, 'other columns cost nothing extra');
  row[COLUMN_INDEX.input] = 'ü'.repeat(4);
  t.equal(rowBytes(row), 200 + 4 + 20 + 7 + 2, 'characters, not bytes');
});

t.test('before mapping: the overhead of each row plus the body', async (t) => {
  t.equal(estimateRowBytes(0, 0), 0, 'nothing kept');
  t.equal(estimateRowBytes(5_000, 3), 3 * ROW_OVERHEAD_BYTES + 5_000);
});
