import { COLUMN_INDEX, type SpanRow } from '../store/spans/columns.js';

/**
 * What a row costs against a storage cap: its large text fields plus a fixed share for the rest.
 * An estimate (segments compress), kept the same as the backfill of migration 4.
 */
export function rowBytes(row: SpanRow): number {
  let n = ROW_OVERHEAD_BYTES;
  for (const i of SIZED_COLUMNS) {
    const v = row[i];
    if (typeof v === 'string') n += v.length;
  }
  return n;
}

export const ROW_OVERHEAD_BYTES = 200;
const SIZED_COLUMNS = [COLUMN_INDEX.input, COLUMN_INDEX.output, COLUMN_INDEX.attributes, COLUMN_INDEX.metadata];

/**
 * What `rows` rows of a body of `bodyBytes` count against a storage cap, before they are mapped:
 * the fixed share of each plus the body's bytes (a row's large fields are most of its body).
 */
export function estimateRowBytes(bodyBytes: number, rows: number): number {
  return rows * ROW_OVERHEAD_BYTES + bodyBytes;
}
