/**
 * What DuckDB's allocator (the jemalloc built into its library, configured by the environment
 * variable below as the library loads) is told before anything the operator sets there, which
 * comes after and wins. DuckDB's own default gives unused pages back to the kernel after 1 s;
 * under a steady load they are wanted again within seconds, and each page the kernel hands out
 * anew costs a minor fault, dear on a VM whose host takes freed pages back (native-bench/RESULTS.md,
 * "pageFaults" and "threads"; docs/decisions.md, "Operations"). Pages unused for 10 s still go back.
 *
 * Call it on the main thread before any thread loads DuckDB's library (a worker's `process.env`
 * is a copy the library's `getenv` does not see): `tracelake serve` does, before it starts the
 * store thread and the compute threads. The in-process read benches (`traceById`, the raw side of
 * `search`) do not: a trace read takes the same time either way (native-bench/RESULTS.md, "Figures
 * behind the code").
 */
const DEFAULTS = 'dirty_decay_ms:10000,muzzy_decay_ms:10000';
const VARIABLE = 'DUCKDB_JE_MALLOC_CONF';

export function setDuckdbAllocatorDefaults(): void {
  const own = process.env[VARIABLE];
  process.env[VARIABLE] = own ? `${DEFAULTS},${own}` : DEFAULTS;
}
