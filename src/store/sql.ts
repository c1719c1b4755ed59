/** Small SQL helpers shared by the store modules. */

/** ISO 8601 text (UTC, milliseconds) of a TIMESTAMP column, as the API returns times. */
export function iso(column: string): string {
  return `strftime(${column}, '%Y-%m-%dT%H:%M:%S.%gZ')`;
}

/** A bound TIMESTAMP from epoch milliseconds. */
export const TS_PARAM = (n: number): string => `make_timestamp(($${n})::BIGINT * 1000)`;
