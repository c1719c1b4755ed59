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
const REFUSAL =
  /^(?:(?:Conversion|Out of Range|Invalid Input|Constraint|Mismatch Type) Error:|Could not cast value|bigint out of int64 range)|can't be cast because the value is out of range/;

export function isStoreRefusal(e: unknown): boolean {
  return e instanceof Error && REFUSAL.test(e.message);
}

/**
 * A unique key or index meeting a row it already holds: at the insert (`Duplicate key …`) or, when
 * two transactions inserted the same key, at the second one's commit (`Failed to commit: PRIMARY KEY
 * or UNIQUE constraint violation`). A check before an insert cannot see a concurrent transaction's
 * row; this is the refusal that then tells a create it lost the race (a 409, not a 500).
 */
const UNIQUE_VIOLATION =
  /Duplicate key .* violates (?:unique|primary key) constraint|PRIMARY KEY or UNIQUE constraint violation/s;

export function isUniqueViolation(e: unknown): boolean {
  return e instanceof Error && UNIQUE_VIOLATION.test(e.message);
}

/**
 * Two transactions changing or deleting one row: DuckDB aborts the later (`Conflict on tuple
 * deletion!`, `Conflict on update!`). Run again, it reads the winner's committed state.
 */
const WRITE_CONFLICT = /Conflict on (?:tuple deletion|update)!/;

export function isWriteConflict(e: unknown): boolean {
  return e instanceof Error && WRITE_CONFLICT.test(e.message);
}
