/**
 * Date-times of filters: ISO 8601 text to epoch nanoseconds, exact to the nanosecond (span times
 * are BIGINT nanoseconds). A date alone is midnight UTC; a time without a zone is UTC.
 */

const ISO = /^(\d{4})-(\d{2})-(\d{2})(?:[T ](\d{2}):(\d{2})(?::(\d{2})(?:\.(\d{1,9}))?)?(Z|z|[+-]\d{2}:?\d{2})?)?$/;

/** Nanoseconds that fit a BIGINT: about 1677-09-21 to 2262-04-11. */
const MIN_NS = -(2n ** 63n);
const MAX_NS = 2n ** 63n - 1n;

/** Epoch nanoseconds of an ISO 8601 date or date-time, or null when it is not one we can store. */
export function isoToNs(text: string): bigint | null {
  const m = ISO.exec(text);
  if (!m) return null;
  const [, y, mo, d, h = '0', mi = '0', s = '0', frac = '', zone = 'Z'] = m;
  const date = new Date(0);
  date.setUTCFullYear(Number(y), Number(mo) - 1, Number(d));
  date.setUTCHours(Number(h), Number(mi), Number(s), 0);
  const same =
    date.getUTCFullYear() === Number(y) &&
    date.getUTCMonth() === Number(mo) - 1 &&
    date.getUTCDate() === Number(d) &&
    date.getUTCHours() === Number(h) &&
    date.getUTCMinutes() === Number(mi) &&
    date.getUTCSeconds() === Number(s);
  if (!same) return null;
  const offsetMin = zone.toUpperCase() === 'Z' ? 0 : zoneMinutes(zone);
  if (offsetMin === null) return null;
  const ns = BigInt(date.getTime() - offsetMin * 60_000) * 1_000_000n + BigInt(frac.padEnd(9, '0'));
  return ns >= MIN_NS && ns <= MAX_NS ? ns : null;
}

function zoneMinutes(zone: string): number | null {
  const digits = zone.slice(1).replace(':', '');
  const hours = Number(digits.slice(0, 2));
  const minutes = Number(digits.slice(2));
  if (hours > 23 || minutes > 59) return null;
  return (zone.startsWith('-') ? -1 : 1) * (hours * 60 + minutes);
}
