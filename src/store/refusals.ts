/**
 * Whether a store error refuses a value — DuckDB would refuse the same data every time it is sent
 * (a cast it cannot make, a number out of a column's range, a constraint) — rather than a failure
 * of the machine (I/O, a full disk, memory) that a later try can outlive. The ingest coordinator
 * retries a commit that failed, and sets aside the data a commit refuses (ingest/logTriage.ts):
 * retrying a refusal only holds back every commit after it.
 *
 * DuckDB names an error's kind before its message (`Conversion Error: …`); its appender and the
 * Node bindings do not (`Could not cast value …`, `bigint out of int64 range`).
 */
const REFUSAL = /^(?:(?:Conversion|Out of Range|Invalid Input|Constraint|Mismatch Type) Error:|Could not cast value|bigint out of int64 range)|can't be cast because the value is out of range/;

export function isStoreRefusal(e: unknown): boolean {
  return e instanceof Error && REFUSAL.test(e.message);
}
