/**
 * The on-disk format of span segments (docs/segments.md). Bump the version when a column changes
 * meaning or type; readers choose by the version the manifest records for each file.
 *
 * Version 1: the columns of `columns.ts` in that order, with `tenant_id`, `app_id`,
 * `environment_id` as UUID, `start_ns`/`end_ns` as BIGINT Unix nanoseconds, ids as lowercase hex
 * text, JSON objects (`metadata`, `attributes`, `resource`, `graph`) as text; rows sorted by
 * `start_ns`, `trace_id`, `span_id`; ZSTD; the key-value metadata `tracelake_format` = "1".
 * Files written by later builds use Parquet 2 data pages (see `SEGMENT_COPY_OPTIONS`); files
 * written at ingest by later builds are Snappy-compressed (`INGEST_SEGMENT_COPY_OPTIONS`), compacted
 * ones stay ZSTD. Neither changes the version: every reader of the format reads both.
 *
 * Version 2: one more column, `attributes_in_columns`, last; `attributes` leaves out the
 * keys it names, whose values their columns hold (attributeColumns.ts). Version 1 files read as
 * version 2 files with no key left out.
 */
export const SEGMENT_FORMAT_VERSION = 2;

/** The versions this build reads. */
export const READABLE_FORMAT_VERSIONS: readonly number[] = [1, 2];

/**
 * Rows per Parquet row group. Smaller groups do not make a trace read cheaper (the reader's cost per
 * group and per column outweighs the rows it skips) and make scans slower (native-bench/RESULTS.md,
 * "Figures behind the code").
 */
export const ROW_GROUP_ROWS = 16_384;

/**
 * The options of every `COPY … TO` that writes a segment. Parquet 2 data pages (DuckDB's
 * `PARQUET_VERSION V2`: DELTA encodings for integers and byte arrays) are part of the format's
 * physical layout, not of its version — the columns and their meaning are the same, and readers
 * of Parquet 2 pages read both (DuckDB, and hyparquet in test/store/spans/format.test.ts).
 * They make rows smaller, the COPY and a window count (delta-encoded start times) faster, and no
 * read slower (native-bench/RESULTS.md, "Figures behind the code").
 */
export const SEGMENT_COPY_OPTIONS = segmentCopyOptions('zstd');

/**
 * The options of the segments the compute threads write at ingest (level 0): Snappy rather than
 * ZSTD, the rest as {@link SEGMENT_COPY_OPTIONS}. These files live until compaction rewrites them
 * with ZSTD (seconds to minutes), so what matters is what they cost to write and to read once, not
 * their bytes at rest: Snappy costs the worker's COPY and compaction's read less than ZSTD, for more
 * bytes until then (docs/decisions.md, "Segments: Snappy at ingest, sorted ZSTD after compaction").
 * Snappy is the codec every Parquet reader has.
 */
export const INGEST_SEGMENT_COPY_OPTIONS = segmentCopyOptions('snappy');

/** The options of a segment's `COPY … TO`, one codec or the other: everything else is the same. */
function segmentCopyOptions(codec: 'zstd' | 'snappy'): string {
  return `FORMAT parquet, COMPRESSION ${codec}, PARQUET_VERSION V2, ROW_GROUP_SIZE ${ROW_GROUP_ROWS},
  KV_METADATA {tracelake_format: '${SEGMENT_FORMAT_VERSION}'}`;
}
