/**
 * Tokens of the string filter expression. Words are bare runs of letters, digits and `_ . - + : / @`
 * (field names, keywords, simple values); anything else must be quoted with `"` or `'`, where a
 * backslash escapes a quote or a backslash. Positions are 0-based offsets into the expression.
 */
import { filterError } from './check.js';

export type TokenKind = 'word' | 'string' | 'symbol' | '(' | ')' | ',' | 'eof';

export interface Token {
  kind: TokenKind;
  /** A word as written, a quoted value unescaped, or the symbol. */
  text: string;
  pos: number;
}

const WORD_RUN = /[\p{L}\p{N}\p{M}_.\-+:/@]+/uy;
const BARE = /^[\p{L}\p{N}\p{M}_.\-+:/@]+$/u;
const SPACE = /\s/;

/** Whether `text` reads back as one word, so a value needs no quotes. */
export function isBareWord(text: string): boolean {
  return BARE.test(text);
}

export function at(pos: number): string {
  return `at position ${pos}`;
}

export function tokenize(text: string): Token[] {
  const tokens: Token[] = [];
  const first = text.search(/\S/);
  if (text[first] === '[' || text[first] === '{') {
    filterError(
      at(first),
      'the JSON-array form of filter is no longer accepted; write an expression such as `status = ERROR and cost > 0.01`, or send JSON filters in the body of a POST search endpoint',
    );
  }
  let i = 0;
  while (i < text.length) {
    const c = text[i] as string;
    if (SPACE.test(c)) {
      i++;
    } else if (c === '(' || c === ')' || c === ',') {
      tokens.push({ kind: c, text: c, pos: i++ });
    } else if (c === '=') {
      tokens.push({ kind: 'symbol', text: c, pos: i++ });
    } else if (c === '<' || c === '>' || c === '!') {
      const two = text[i + 1] === '=';
      if (c === '!' && !two) filterError(at(i), 'expected "=" after "!" (the operator is !=)');
      tokens.push({ kind: 'symbol', text: two ? `${c}=` : c, pos: i });
      i += two ? 2 : 1;
    } else if (c === '"' || c === "'") {
      const [value, end] = quoted(text, i);
      tokens.push({ kind: 'string', text: value, pos: i });
      i = end;
    } else {
      WORD_RUN.lastIndex = i;
      const m = WORD_RUN.exec(text);
      if (!m) {
        const ch = String.fromCodePoint(text.codePointAt(i) as number);
        filterError(
          at(i),
          `unexpected character ${JSON.stringify(ch)}; quote values that hold spaces or special characters`,
        );
      }
      tokens.push({ kind: 'word', text: m[0], pos: i });
      i += m[0].length;
    }
  }
  tokens.push({ kind: 'eof', text: '', pos: text.length });
  return tokens;
}

/** The unescaped value of the quoted string opening at `start`, and the offset after it. */
function quoted(text: string, start: number): [string, number] {
  const quote = text[start];
  let out = '';
  let j = start + 1;
  for (;;) {
    const c = text[j];
    if (c === undefined) filterError(at(start), `unterminated quoted value; close it with ${quote}`);
    if (c === quote) return [out, j + 1];
    if (c === '\\') {
      const e = text[j + 1];
      if (e !== '"' && e !== "'" && e !== '\\') {
        filterError(at(j), 'a backslash escapes only a quote or a backslash; write \\\\ for a backslash');
      }
      out += e;
      j += 2;
    } else {
      out += c;
      j++;
    }
  }
}
