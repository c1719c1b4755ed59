/**
 * Text that is well-formed Unicode. Cutting text to a length without cutting a character in two. Lengths are JavaScript's (UTF-16
 * code units); a cut between the two halves of a surrogate pair (an emoji, say) would leave half a
 * character, text that is not well-formed: the API refuses it (docs/decisions.md, "Text is
 * well-formed Unicode") and DuckDB's JSON reader cannot read it back. Such a cut moves one unit
 * earlier instead.
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

function isHighSurrogate(unit: number): boolean {
  return unit >= 0xd800 && unit <= 0xdbff;
}

function isLowSurrogate(unit: number): boolean {
  return unit >= 0xdc00 && unit <= 0xdfff;
}

/**
 * Parsed JSON with every string and key made well-formed: half a surrogate pair (an escape such as
 * `"\ud800"` without its other half) becomes U+FFFD. For text the sender cannot mend (an agent's own
 * transcript), where refusing it would lose the rest.
 */
export function wellFormedJson(value: unknown): unknown {
  if (typeof value === 'string') return value.toWellFormed();
  if (Array.isArray(value)) return value.map(wellFormedJson);
  if (value !== null && typeof value === 'object') return Object.fromEntries(Object.entries(value).map(([k, v]) => [k.toWellFormed(), wellFormedJson(v)]));
  return value;
}

declare global {
  interface String {
    /** ES2024, in Node since 20 (the project's lib is ES2023). */
    toWellFormed(): string;
  }
}
