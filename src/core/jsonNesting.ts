/**
 * How deep JSON text nests, read from the text: the validators and walks that follow a parse
 * recurse, and a body nested ten thousand levels overflowed their stack (a 500) where it should be
 * refused (400). `JSON.parse` itself takes any depth, so the text is parsed first and measured after.
 */

/** Deepest nesting an API body may have; no request body of the spec's comes near it. */
export const MAX_BODY_NESTING = 128;

/**
 * True when arrays and objects in `text` (JSON) nest more than `max` levels; brackets inside strings
 * do not count. Text that is not JSON gives an answer of no meaning.
 */
export function nestsDeeperThan(text: string, max: number): boolean {
  let depth = 0;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c === QUOTE) i = closingQuote(text, i);
    else if (c === OPEN_ARRAY || c === OPEN_OBJECT) {
      if (++depth > max) return true;
    } else if (c === CLOSE_ARRAY || c === CLOSE_OBJECT) depth--;
  }
  return false;
}

/** Where the string opened at `open` ends (the text's end when it does not); searched, not walked: strings are most of a body. */
function closingQuote(text: string, open: number): number {
  let at = text.indexOf('"', open + 1);
  while (at >= 0 && escaped(text, at)) at = text.indexOf('"', at + 1);
  return at < 0 ? text.length : at;
}

/** True when the character at `at` follows an odd number of backslashes. */
function escaped(text: string, at: number): boolean {
  let backslashes = 0;
  while (text.charCodeAt(at - 1 - backslashes) === BACKSLASH) backslashes++;
  return backslashes % 2 === 1;
}

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const OPEN_ARRAY = 0x5b;
const CLOSE_ARRAY = 0x5d;
const OPEN_OBJECT = 0x7b;
const CLOSE_OBJECT = 0x7d;
