/**
 * Text that is well-formed Unicode. Lengths are JavaScript's (UTF-16 code units); a cut between
 * the two halves of a surrogate pair (an emoji, say) would leave half a character, text that is
 * not well-formed: the API refuses it (docs/decisions.md, "Text is well-formed Unicode") and
 * DuckDB's JSON reader cannot read it back. So a cut moves one unit earlier instead, and JSON that
 * Tracelake reads from an agent, which no one can mend at the source, is mended here.
 */

/** Where to cut `text` to at most `max` units: `max`, or one less when that splits a pair; its length when it is shorter. */
export function cutIndex(text: string, max: number): number {
  if (text.length <= max) return text.length;
  return max > 0 && isHighSurrogate(text.charCodeAt(max - 1)) && isLowSurrogate(text.charCodeAt(max)) ? max - 1 : max;
}

/** `text` cut to at most `max` units (see `cutIndex`). */
export function cutText(text: string, max: number): string {
  return text.length <= max ? text : text.slice(0, cutIndex(text, max));
}

/**
 * The first `chars` characters of `text`, counted as SQL's `left()` counts them (code points: a
 * pair is one character). A span's preview is cut here when its text goes to a blob and when a
 * worker takes the trace summary's, and by `left()` when a read derives it from an inline text: the
 * two must give the same answer. A lone half counts as one character, as it will be U+FFFD in DuckDB.
 */
export function leadingChars(text: string, chars: number): string {
  if (text.length <= chars) return text; // no more characters than units
  const head = text.slice(0, chars);
  // Without a surrogate every unit is a character, and the test costs less than the walk below
  // (native-bench/RESULTS.md, "Figures behind the code").
  if (!SURROGATE.test(head)) return head;
  let end = 0;
  for (let n = 0; n < chars && end < text.length; n++) {
    end += isHighSurrogate(text.charCodeAt(end)) && isLowSurrogate(text.charCodeAt(end + 1)) ? 2 : 1;
  }
  return text.slice(0, end);
}

const SURROGATE = /[\uD800-\uDFFF]/;

function isHighSurrogate(unit: number): boolean {
  return unit >= 0xd800 && unit <= 0xdbff;
}

function isLowSurrogate(unit: number): boolean {
  return unit >= 0xdc00 && unit <= 0xdfff;
}

/**
 * `JSON.parse`, with every string and key made well-formed: half a surrogate pair (an escape such
 * as `"\ud800"` without its other half) becomes U+FFFD. For JSON written by an agent (a transcript,
 * a line of its output) or an OTLP/JSON export: refusing it would lose the rest, and stored as is it
 * would break DuckDB's JSON functions on every read. Only text that holds a surrogate escape at all
 * is walked.
 */
export function parseMendedJson(text: string): unknown {
  const value = JSON.parse(text) as unknown;
  return ESCAPED_SURROGATE.test(text) ? mended(value) : value;
}

/** A `\uD800`–`\uDFFF` escape: the only way JSON text (itself a well-formed string) can spell half a pair. */
const ESCAPED_SURROGATE = /\\u[dD][89a-fA-F]/;

/**
 * `value` (fresh from `JSON.parse`) with its strings and keys made well-formed, in place. Walked
 * with a list rather than by recursion: JSON.parse takes any depth, and so must this.
 */
function mended(value: unknown): unknown {
  if (typeof value === 'string') return value.toWellFormed();
  const pending: unknown[] = [value];
  while (pending.length > 0) {
    const node = pending.pop();
    if (typeof node !== 'object' || node === null) continue;
    const holder = node as Record<string, unknown>;
    if (!Array.isArray(node)) rekeyed(holder);
    for (const key of Object.keys(holder)) {
      const v = holder[key];
      if (typeof v === 'string') holder[key] = v.toWellFormed();
      else pending.push(v);
    }
  }
  return value;
}

/** Mends the keys of `map` in place, keeping their order (and an own `__proto__` key an own key). */
function rekeyed(map: Record<string, unknown>): void {
  const entries = Object.entries(map);
  if (entries.every(([key]) => key.isWellFormed())) return;
  for (const [key] of entries) delete map[key];
  for (const [key, value] of entries) {
    Object.defineProperty(map, key.toWellFormed(), { value, writable: true, enumerable: true, configurable: true });
  }
}

declare global {
  interface String {
    /** ES2024, in Node since 20 (the project's lib is ES2023). */
    toWellFormed(): string;
    isWellFormed(): boolean;
  }
}
