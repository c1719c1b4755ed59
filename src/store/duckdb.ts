/**
 * DuckDB's Node API for the store's modules, loaded with `require()`. The package is CommonJS, and
 * an ESM `import` of it makes Node lex each of the files its index re-exports for their named
 * exports, far more CPU than `require()` (native-bench/RESULTS.md, "Figures behind the code"),
 * paid at every start by each thread that opens DuckDB — the store thread and every compute thread.
 * Modules import its values from here; types still come from the package (`import type` is erased).
 */
import { createRequire } from 'node:module';
import type * as Api from '@duckdb/node-api';
import type * as Bindings from '@duckdb/node-bindings';

const require = createRequire(import.meta.url);
const api = require('@duckdb/node-api') as typeof Api;

/** The C API underneath, for filling a data chunk's vectors from typed arrays (spans/segmentBuffer). */
export const bindings = require('@duckdb/node-bindings') as typeof Bindings;

export const {
  BIGINT,
  DOUBLE,
  DuckDBDataChunk,
  DuckDBInstance,
  ENUM,
  INTEGER,
  JSDuckDBValueConverter,
  LIST,
  listValue,
  UBIGINT,
  VARCHAR,
} = api;
// The two classes used as values are types too: importing both names from one place.
export type DuckDBInstance = Api.DuckDBInstance;
export type DuckDBDataChunk = Api.DuckDBDataChunk;

/** Bytes a DuckDB instance holds in memory by what holds them (its tag, lowercase), by its own account. */
export type MemoryByTag = Record<string, number>;

/** A DuckDB instance's memory by tag (`MemoryByTag`): rows of `tag` and `bytes`, the tags holding any. */
export const DUCKDB_MEMORY_SQL =
  'SELECT lower(tag) AS tag, memory_usage_bytes::DOUBLE AS bytes FROM duckdb_memory() WHERE memory_usage_bytes > 0';

/**
 * The options every DuckDB instance of the store opens with: no extension installed or loaded at
 * run time, and no copy of the segment files it reads kept in its memory. DuckDB's external file
 * cache would hold one up to the memory limit, beside the OS page cache: compaction's instance held
 * ~0.9 GiB of files it had read once and deleted, the store's half its limit in the soak
 * (native-bench/RESULTS.md, "soak" and "Figures behind the code").
 */
export const INSTANCE_OPTIONS = {
  autoinstall_known_extensions: 'false',
  autoload_known_extensions: 'false',
  enable_external_file_cache: 'false',
} as const;
