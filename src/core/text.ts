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
 * a line of its output): refusing it would lose the rest, and no one can mend it at the source.
 * Only text that holds a surrogate escape at all is walked.
 */
export function parseMendedJson(text: string): unknown {
  const value = JSON.parse(text) as unknown;
  return ESCAPED_SURROGATE.test(text) ? wellFormed(value) : value;
}

/** A `\uD800`–`\uDFFF` escape: the only way JSON text (itself a well-formed string) can spell half a pair. */
const ESCAPED_SURROGATE = /\\u[dD][89a-fA-F]/;

function wellFormed(value: unknown): unknown {
  if (typeof value === 'string') return value.toWellFormed();
  if (Array.isArray(value)) return value.map(wellFormed);
  if (value !== null && typeof value === 'object')
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [k.toWellFormed(), wellFormed(v)]));
  return value;
}

declare global {
  interface String {
    /** ES2024, in Node since 20 (the project's lib is ES2023). */
    toWellFormed(): string;
  }
}
