/**
 * The on-disk format of span segments (docs/segments.md). Bump the version when a column changes
 * meaning or type; readers choose by the version the manifest records for each file.
 *
 * Version 1: the columns of `columns.ts` in that order, with `tenant_id`, `app_id`,
 * `environment_id` as UUID, `start_ns`/`end_ns` as BIGINT Unix nanoseconds, ids as lowercase hex
 * text, JSON objects (`metadata`, `attributes`, `resource`, `graph`) as text; rows sorted by
 * `start_ns`, `trace_id`, `span_id`; ZSTD; the key-value metadata `tracelake_format` = "1".
 */
export const SEGMENT_FORMAT_VERSION = 1;
