/**
 * Span id filters: which compacted segments may hold a span, known without opening them, so that a
 * span by id without its trace (`GET /v1/spans/{id}`) reads the file that holds it rather than the
 * `span_id` column of every file of the app (native-bench/RESULTS.md, "spanById").
 *
 * A filter is a Bloom filter over one file's span ids, kept in a file beside it (a DuckDB `BIT` of
 * 8 bits a row; segmentStore.ts, docs/segments.md). DuckDB builds it when compaction writes the
 * file (`spanIdFilterSql`); the reader probes it here. Both take a span id's MD5 (of its UTF-8
 * bytes) and the digest's first eight bytes as a little-endian 64-bit number (DuckDB's
 * `md5_number_upper`): `a` its low 32 bits, `b` its high 32; probe i of five is bit
 * (a + i·b) mod m, m the filter's length in bits. With 8 bits a span and five probes about 2% of
 * the files that do not hold an id answer "maybe" and are read for nothing; a file that holds it
 * always answers "maybe".
 *
 * Files written by ingestion have no filter (NULL): they live about a minute, until compaction takes
 * them, and are small; they are read whole, as is any file whose filter is missing. (Building one per
 * ingest file would add its cost a span (native-bench/RESULTS.md, "spanIdFilter") to the compute
 * workers' ingest path.)
 */
import { createHash } from 'node:crypto';

const BITS_PER_SPAN = 8;
const PROBES = 5;
/** The smallest filter: a file of a few spans still gets a meaningful one. */
const MIN_BITS = 64;

/** A filter's length in bits for a file of `rows` spans (a whole number of bytes). */
export function spanIdFilterBits(rows: number): number {
  return Math.max(MIN_BITS, Math.ceil(rows) * BITS_PER_SPAN);
}

/**
 * A statement whose one value (`span_filter`) is the filter of the span ids of `relation` (SQL text:
 * a table or `read_parquet(…)` with a `span_id` column), sized for `rows` spans. NULL when the
 * relation is empty.
 */
export function spanIdFilterSql(relation: string, rows: number): string {
  const m = spanIdFilterBits(rows);
  const probes = Array.from({ length: PROBES }, (_, i) => `(a + ${i} * b) % ${m}`).join(', ');
  return `SELECT bitstring_agg(p, 0, ${m - 1}) AS span_filter
            FROM (SELECT unnest([${probes}]) AS p
                    FROM (SELECT (h & 4294967295)::BIGINT AS a, (h >> 32)::BIGINT AS b
                            FROM (SELECT md5_number_upper(span_id) AS h FROM ${relation})))`;
}

/** What a span id probes in every filter, computed once a lookup. */
export interface SpanIdProbe {
  a: number;
  b: number;
}

export function spanIdProbe(spanId: string): SpanIdProbe {
  const digest = createHash('md5').update(spanId, 'utf8').digest();
  return { a: digest.readUInt32LE(0), b: digest.readUInt32LE(4) };
}

/**
 * Whether the file whose filter this is may hold the span: false only when it does not. `filter` is
 * DuckDB's bytes of a `BIT` value: the count of padding bits, then the bits, first one first (most
 * significant bit of each byte first), after that many padding bits. A filter without bits rules
 * nothing out.
 */
export function mayHoldSpan(filter: Uint8Array, probe: SpanIdProbe): boolean {
  const padding = filter[0] ?? 0;
  const bits = (filter.length - 1) * 8 - padding;
  if (bits <= 0) return true;
  for (let i = 0; i < PROBES; i++) {
    const at = ((probe.a + i * probe.b) % bits) + padding;
    if ((filter[1 + (at >> 3)]! & (0x80 >> (at & 7))) === 0) return false;
  }
  return true;
}
